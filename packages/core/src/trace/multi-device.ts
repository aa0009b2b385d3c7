/**
 * A tensor-parallel step as a multi-GPU timeline. The ranks run the same schedule on
 * identical devices (the simulation runs one of them), so each GPU's process is that rank's
 * timeline; what the ranks exchange is drawn between them: every collective slice (an
 * NVSHMEM put-with-signal task, or an NCCL/RCCL kernel's channel) gets a flow from each GPU
 * to every peer, the put arriving at the peer's copy of the task that waits for it.
 */
import type { ChromeTrace, TraceEvent } from './chrome-trace.js';

/** Process ids of one GPU: GPU g's processes are its rank-0 ids + g × this. */
export const GPU_PID_STRIDE = 1000;

export function multiDeviceTrace(single: ChromeTrace, devices: number, node: string): ChromeTrace {
  if (devices <= 1) return single;
  const maxFlow = single.traceEvents.reduce((m, e) => (e.id !== undefined ? Math.max(m, e.id) : m), 0);
  const out: TraceEvent[] = [];
  for (let g = 0; g < devices; g++) {
    for (const e of single.traceEvents) {
      const c: TraceEvent = { ...e, pid: e.pid + g * GPU_PID_STRIDE };
      if (e.ph === 'M' && e.name === 'process_name') c.args = { name: `gpu ${g} · ${String(e.args?.name ?? '')}` };
      if (e.ph === 'M' && e.name === 'process_sort_index') c.args = { sort_index: Number(e.args?.sort_index ?? 0) + g * GPU_PID_STRIDE };
      if (e.id !== undefined) c.id = e.id + g * maxFlow;
      out.push(c);
    }
  }
  // Cross-GPU flows: each collective slice on GPU g puts its data (with a signal) to the same slice on every peer.
  let id = devices * maxFlow;
  const slices = single.traceEvents.filter((e) => e.ph === 'X' && (e.args?.kind === 'all-reduce' || e.args?.kind === 'all-gather'));
  for (const s of slices) {
    for (let g = 0; g < devices; g++) {
      for (let q = 0; q < devices; q++) {
        if (q === g) continue;
        id++;
        out.push({ name: 'put-with-signal', cat: 'nvshmem', ph: 's', id, pid: s.pid + g * GPU_PID_STRIDE, tid: s.tid, ts: s.ts, args: { from: g, to: q } });
        out.push({ name: 'put-with-signal', cat: 'nvshmem', ph: 'f', bp: 'e', id, pid: s.pid + q * GPU_PID_STRIDE, tid: s.tid, ts: s.ts });
      }
    }
  }
  return { traceEvents: out, otherData: { ...single.otherData, devices, node, ranks: "each GPU runs the simulated rank's schedule (ranks are symmetric)" } };
}
