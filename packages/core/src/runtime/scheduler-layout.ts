import type { TaskGraph } from '../graph/task-graph.js';

/** Which workers each scheduler of a persistent megakernel owns, and its cursor's symmetry. */
export interface SchedulerLayout {
  /** Workers of each partition, in id order (a worker's rank is its index here). */
  partitionWorkers: number[][];
  /** Workers each scheduler deals CU-tasks to, round-robin, in cursor order. */
  schedulerWorkers: number[][];
  /**
   * Per scheduler: the smallest rotation of its worker list that keeps every worker in its
   * partition (its list's length where none does) — the symmetry its cursor is reduced by.
   */
  rotation: number[];
}

/**
 * The schedulers' layout over workers placed on partitions `partitionOf`: chiplet-aware, one
 * scheduler per partition owning that partition's workers (FLEET); otherwise `schedulers`
 * schedulers owning contiguous ranges of worker ids (MPK).
 */
export function schedulerLayout(partitionOf: ArrayLike<number>, partitions: number, chipletAware: boolean, schedulers: number): SchedulerLayout {
  const W = partitionOf.length;
  const partitionWorkers: number[][] = Array.from({ length: partitions }, () => []);
  for (let w = 0; w < W; w++) partitionWorkers[partitionOf[w]!]!.push(w);
  const S = chipletAware ? partitions : Math.max(1, schedulers);
  const schedulerWorkers = chipletAware ? partitionWorkers : Array.from({ length: S }, (_, s) => range(Math.floor((s * W) / S), Math.floor(((s + 1) * W) / S)));
  return { partitionWorkers, schedulerWorkers, rotation: schedulerWorkers.map((ws) => partitionRotation(ws, partitionOf)) };
}

/**
 * Whether the schedulers' cursors can stand in equivalent positions at two consecutive layer
 * boundaries, which a proof of repetition (`SteadyStateProbe`) needs. Between two quiescent
 * boundaries every CU-task of the layer is dealt once, each advancing its scheduler's cursor
 * by one; a cursor is equivalent only modulo its rotation, so the layer's CU-tasks must be a
 * sum of multiples of the rotations — a multiple of their gcd. When no sampled layer's are,
 * no boundary can be proven: a run made only for the proof need not start.
 */
export function cursorsCanRepeat(graph: TaskGraph, layout: SchedulerLayout): boolean {
  const g = layout.rotation.reduce((a, r) => gcd(a, r), 0);
  if (g <= 1) return true;
  const cuTasks = new Map<number, number>();
  for (const t of graph.tasks) if (t.partition === null) cuTasks.set(t.layer, (cuTasks.get(t.layer) ?? 0) + 1);
  return graph.layers.some((l) => (cuTasks.get(l) ?? 0) % g === 0);
}

/**
 * The smallest rotation r of a worker list (r divides its length) that maps every worker to
 * one of the same partition; the list's length (the identity) when only that does.
 */
function partitionRotation(workers: readonly number[], partitionOf: ArrayLike<number>): number {
  const n = workers.length;
  for (let r = 1; r < n; r++) {
    if (n % r !== 0) continue;
    let ok = true;
    for (let i = 0; ok && i < n; i++) ok = partitionOf[workers[i]!] === partitionOf[workers[(i + r) % n]!];
    if (ok) return r;
  }
  return Math.max(1, n);
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function range(a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = a; i < b; i++) out.push(i);
  return out;
}
