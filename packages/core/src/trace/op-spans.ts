import type { OpKind } from '../graph/op-graph.js';
import type { TaskGraph } from '../graph/task-graph.js';
import type { SimEvent } from '../protocol/events.js';

/** One op's tasks in a simulated step: when the first started, when the last ended, the worker time they took. */
export interface OpSpan {
  layer: number;
  op: string;
  kind: OpKind;
  tasks: number;
  startNs: number;
  endNs: number;
  /** Worker time in its tasks, summed over the workers that ran them (a chiplet-task counts each). */
  busyNs: number;
}

/**
 * Per-op spans of one simulated step (the last `graph` event's): where a step's time goes,
 * op by op — a stage's span is its share of the critical path in a persistent kernel, its busy
 * time the work its workers did. Pass `observer` to `simulateGraph`, then `spans(graph)`.
 */
export class OpSpans {
  private start = new Float64Array(0);
  private end = new Float64Array(0);
  private busy = new Float64Array(0);
  private readonly open = new Map<number, number>();

  readonly observer = (events: readonly SimEvent[]): void => {
    for (const e of events) {
      switch (e.type) {
        case 'graph':
          this.start = new Float64Array(e.tasks).fill(Number.POSITIVE_INFINITY);
          this.end = new Float64Array(e.tasks);
          this.busy = new Float64Array(e.tasks);
          this.open.clear();
          break;
        case 'task-start':
          this.start[e.task] = Math.min(this.start[e.task]!, e.t);
          this.open.set(e.worker, e.t);
          break;
        case 'task-end': {
          this.end[e.task] = Math.max(this.end[e.task]!, e.t);
          const t0 = this.open.get(e.worker);
          if (t0 !== undefined) this.busy[e.task]! += e.t - t0;
          this.open.delete(e.worker);
          break;
        }
      }
    }
  };

  /** The ops of `graph` that ran, in the order their first task started. */
  spans(graph: TaskGraph): OpSpan[] {
    const byOp = new Map<string, OpSpan>();
    for (const t of graph.tasks) {
      const s0 = this.start[t.id];
      if (s0 === undefined || !Number.isFinite(s0)) continue;
      const key = `${t.layer}:${t.opId}`;
      const s = byOp.get(key) ?? { layer: t.layer, op: t.opId, kind: t.kind, tasks: 0, startNs: s0, endNs: 0, busyNs: 0 };
      s.tasks++;
      s.startNs = Math.min(s.startNs, s0);
      s.endNs = Math.max(s.endNs, this.end[t.id]!);
      s.busyNs += this.busy[t.id]!;
      byOp.set(key, s);
    }
    return [...byOp.values()].sort((a, b) => a.startNs - b.startNs || a.endNs - b.endNs);
  }
}
