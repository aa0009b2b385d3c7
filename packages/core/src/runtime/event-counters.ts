import { DeadlockError } from '../errors/fleet-error.js';
import type { TaskGraph } from '../graph/task-graph.js';
import type { EventBus } from '../protocol/event-bus.js';

/**
 * Event counters with thresholds. A task becomes ready once every event it waits on has
 * fired; an event fires when its count reaches its threshold — exactly once per iteration.
 * As in MPK, a persistent kernel running several iterations never resets its counters: in
 * iteration k (from 1) an event fires when its count reaches threshold × k.
 */
export class EventCounters {
  private readonly count: Int32Array;
  private readonly fired: Uint8Array;
  private readonly waiting: number[][];
  private readonly unmet: Int32Array;
  fires = 0;
  /** The iteration running (1 for the first). */
  iteration = 1;

  constructor(
    private readonly graph: TaskGraph,
    private readonly onReady: (taskIds: number[]) => void,
  ) {
    const E = graph.events.length;
    this.count = new Int32Array(E);
    this.fired = new Uint8Array(E);
    this.waiting = Array.from({ length: E }, () => []);
    this.unmet = new Int32Array(graph.tasks.length);
    for (const t of graph.tasks) {
      this.unmet[t.id] = t.waits.length;
      for (const e of t.waits) this.waiting[e]!.push(t.id);
    }
  }

  initiallyReady(): number[] {
    return this.graph.tasks.filter((t) => t.waits.length === 0).map((t) => t.id);
  }

  /**
   * The next iteration begins: every event may fire once more (at its threshold times the new
   * iteration) and every task waits again; the counts carry on.
   */
  nextIteration(): void {
    this.iteration++;
    this.fired.fill(0);
    for (const t of this.graph.tasks) this.unmet[t.id] = t.waits.length;
  }

  /** Add one to `event`; fires it (and readies its waiters) when the threshold is reached. */
  signal(event: number, now: number, bus: EventBus): void {
    const c = ++this.count[event]!;
    const spec = this.graph.events[event]!;
    if (c !== spec.threshold * this.iteration) return;
    this.fired[event] = 1;
    this.fires++;
    if (bus.active) bus.emit({ type: 'event-fire', t: now, event });
    const ready: number[] = [];
    for (const id of this.waiting[event]!) if (--this.unmet[id]! === 0) ready.push(id);
    if (ready.length > 0) this.onReady(ready);
  }

  /**
   * Stand for tasks `skipped` (every producer of their events among them, none of them run
   * this iteration) having signalled, except `last`, whose event the caller then signals
   * (`signal`) — so the tasks it readies are readied as the run would have readied them.
   * Refuses (false, nothing changed) where another of their events would ready a task that is
   * not skipped, or an event has producers outside `skipped` or was signalled already.
   */
  skip(skipped: readonly number[], isSkipped: (task: number) => boolean, last: number): boolean {
    const lastEvent = this.graph.tasks[last]!.signal;
    if (lastEvent === null) return false;
    const signals = new Map<number, number>();
    for (const id of skipped) {
      const e = this.graph.tasks[id]!.signal;
      if (e !== null) signals.set(e, (signals.get(e) ?? 0) + 1);
    }
    if (!signals.has(lastEvent) || this.waiting[lastEvent]!.some(isSkipped)) return false;
    // Tasks not skipped keep at least one wait unmet until `last` signals.
    const met = new Map<number, number>();
    for (const [e, n] of signals) {
      const threshold = this.graph.events[e]!.threshold;
      if (n !== threshold || this.fired[e] || this.count[e] !== threshold * (this.iteration - 1)) return false;
      if (e === lastEvent) continue;
      for (const id of this.waiting[e]!) {
        if (isSkipped(id)) continue;
        const m = (met.get(id) ?? 0) + 1;
        met.set(id, m);
        if (m >= this.unmet[id]!) return false;
      }
    }
    for (const [e, n] of signals) {
      if (e === lastEvent) {
        this.count[e]! += n - 1;
        continue;
      }
      this.count[e]! += n;
      this.fired[e] = 1;
      this.fires++;
      for (const id of this.waiting[e]!) this.unmet[id]!--;
    }
    return true;
  }

  /** Events that have not reached their threshold, as `name count/threshold`. */
  pendingEvents(): string[] {
    return this.graph.events.filter((e) => !this.fired[e.id]).map((e) => `${e.name} ${this.count[e.id]}/${e.threshold * this.iteration}`);
  }
}

/**
 * Static checks before a graph runs: every waited event has producers, thresholds match the
 * producers' count, event ids are in range, chiplet-tasks name an existing partition, and the
 * dependency graph is acyclic. A violation is a `DeadlockError` naming the culprits.
 */
export function checkTaskGraph(graph: TaskGraph, partitions: number): void {
  const E = graph.events.length;
  const producers = new Int32Array(E);
  for (const t of graph.tasks) {
    // The waits, then the signal (no array built per task: the graph may have millions).
    for (let k = 0, n = t.waits.length; k <= n; k++) {
      const e = k < n ? t.waits[k]! : t.signal;
      if (e === null) continue;
      if (!(e >= 0 && e < E)) throw new DeadlockError(`task graph '${graph.policy}': task ${t.name} refers to event ${e}, which does not exist`, [t.name], []);
    }
    if (t.signal !== null) producers[t.signal]!++;
    if (t.partition !== null && !(t.partition >= 0 && t.partition < partitions)) {
      throw new DeadlockError(
        `task graph '${graph.policy}': chiplet-task ${t.name} is bound to partition ${t.partition}, but the device has ${partitions}`,
        [t.name],
        [],
      );
    }
  }
  for (const t of graph.tasks) {
    for (let k = 0; k < t.waits.length; k++) {
      const e = t.waits[k]!;
      const spec = graph.events[e]!;
      if (producers[e] === 0) {
        throw new DeadlockError(`task graph '${graph.policy}': task ${t.name} waits on event ${spec.name}, which no task signals`, [t.name], [spec.name]);
      }
    }
  }
  for (const spec of graph.events) {
    if (producers[spec.id]! > 0 && producers[spec.id] !== spec.threshold) {
      throw new DeadlockError(
        `task graph '${graph.policy}': event ${spec.name} has threshold ${spec.threshold} but ${producers[spec.id]} producer tasks`,
        [],
        [spec.name],
      );
    }
  }
  // Kahn's algorithm over task → event → task edges.
  const indeg = new Int32Array(graph.tasks.length);
  const consumers: number[][] = Array.from({ length: E }, () => []);
  for (const t of graph.tasks) {
    indeg[t.id] = t.waits.length;
    for (let k = 0; k < t.waits.length; k++) consumers[t.waits[k]!]!.push(t.id);
  }
  const eventLeft = Int32Array.from(graph.events.map((e) => e.threshold));
  const stack = graph.tasks.filter((t) => t.waits.length === 0).map((t) => t.id);
  let seen = 0;
  while (stack.length > 0) {
    const id = stack.pop()!;
    seen++;
    const s = graph.tasks[id]!.signal;
    if (s !== null && --eventLeft[s]! === 0) for (const c of consumers[s]!) if (--indeg[c]! === 0) stack.push(c);
  }
  if (seen < graph.tasks.length) {
    const stuck = graph.tasks.filter((t) => indeg[t.id]! > 0).map((t) => t.name);
    throw new DeadlockError(
      `task graph '${graph.policy}': dependency cycle; ${stuck.length} tasks can never start (e.g. ${stuck.slice(0, 3).join(', ')})`,
      stuck,
      [],
    );
  }
}
