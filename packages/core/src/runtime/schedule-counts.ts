import type { TaskGraph } from '../graph/task-graph.js';
import type { PersistentOptions } from './persistent-runtime.js';

/** What a compiled schedule does for one counter bucket (a layer), counted from its tasks and kernels. */
export interface ScheduleCounts {
  /** Kernel launches (kernel-per-op: one per kernel; a persistent launch is the run's, not a layer's). */
  launches: number;
  /** Tasks a scheduler writes into a worker queue (persistent: one per task). */
  dispatches: number;
  /** Device-scope release fences (persistent: one per task, or one per worker of a chiplet-task without two-level counting). */
  fences: number;
}

export function zeroScheduleCounts(): ScheduleCounts {
  return { launches: 0, dispatches: 0, fences: 0 };
}

/** Add `c` × `scale` into `into`. */
export function addScheduleCounts(into: ScheduleCounts, c: ScheduleCounts, scale = 1): void {
  into.launches += c.launches * scale;
  into.dispatches += c.dispatches * scale;
  into.fences += c.fences * scale;
}

/**
 * The launches, dispatches and fences one iteration of `graph` performs, per counter bucket
 * (index = layer + 1), from the schedule alone — exactly what the runtimes count when they run
 * it: a kernel-per-op graph launches each kernel once; a persistent graph (`persistent` given)
 * dispatches each task once and fences once per task, or once per worker of the partition for
 * a chiplet-task whose workers each signal (no two-level counting).
 */
export function scheduleCounts(graph: TaskGraph, persistent?: PersistentOptions): ScheduleCounts[] {
  const out: ScheduleCounts[] = [];
  const at = (layer: number) => {
    while (out.length <= layer + 1) out.push(zeroScheduleCounts());
    return out[layer + 1]!;
  };
  if (graph.style === 'persistent') {
    if (!persistent) throw new Error(`policy ${graph.policy}: counting a persistent graph needs its persistent runtime options`);
    for (const t of graph.tasks) {
      const c = at(t.layer);
      c.dispatches++;
      c.fences += t.partition !== null && !persistent.twoLevelCounting ? persistent.workersPerPartition : 1;
    }
  } else {
    for (const k of graph.kernels) at(k.layer).launches++;
  }
  return out;
}
