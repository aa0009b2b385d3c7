/**
 * The Chrome Trace Event format (JSON object form), as chrome://tracing and ui.perfetto.dev
 * read it. Only the phases Fleet writes are modelled. Times are microseconds; Fleet writes
 * whole virtual nanoseconds (three decimals), which both viewers keep exactly.
 */

/** `X` complete slice, `i` instant, `C` counter, `s`/`f` flow start/end, `M` metadata. */
export type TracePhase = 'X' | 'i' | 'C' | 's' | 'f' | 'M';

export type TraceArgs = Record<string, string | number | boolean>;

export interface TraceEvent {
  name: string;
  ph: TracePhase;
  cat?: string;
  /** Process: Fleet uses one per partition plus one for the device. */
  pid: number;
  /** Thread: one per worker, scheduler or device-wide track. */
  tid?: number;
  /** Microseconds. Metadata events have none. */
  ts?: number;
  dur?: number;
  /** Flow id (`s`/`f`). */
  id?: number;
  /** Flow end binding point: `e` binds to the enclosing slice. */
  bp?: 'e';
  /** Instant scope: `t` thread, `p` process, `g` global. */
  s?: 't' | 'p' | 'g';
  args?: TraceArgs;
}

export interface ChromeTrace {
  traceEvents: TraceEvent[];
  /** Free-form description of the run (the format's `otherData`). */
  otherData: TraceArgs;
}

/** Virtual ns → trace µs, rounded to whole ns so that equal times stay equal. */
export function usOf(ns: number): number {
  return Math.round(ns) / 1000;
}

/** Trace µs → whole ns (inverse of `usOf`). */
export function nsOf(us: number): number {
  return Math.round(us * 1000);
}

/**
 * Serialise a trace deterministically: one event per line, keys in the order the writer
 * set them, so traces diff well and the same run gives the same bytes.
 */
export function serializeTrace(trace: ChromeTrace): string {
  const lines = trace.traceEvents.map((e) => JSON.stringify(e));
  return `{"otherData":${JSON.stringify(trace.otherData)},"traceEvents":[\n${lines.join(',\n')}\n]}\n`;
}
