/** Timelines: the event stream as Chrome Trace Event / Perfetto JSON, and its checks. */
export * from './chrome-trace.js';
export { TraceRecorder, type TraceRecorderOptions, type MemorySample } from './trace-recorder.js';
export { validateTrace } from './validate-trace.js';
export { TaskBusyTime } from './task-busy-time.js';
export { OpSpans, type OpSpan } from './op-spans.js';
export { withObservers } from './with-observers.js';
export { multiDeviceTrace, GPU_PID_STRIDE } from './multi-device.js';
