import type { TaskGraph } from '../graph/task-graph.js';
import type { MemoryCounters } from '../memory/memory-system.js';
import type { Backend } from '../plugin/contract.js';

/**
 * Simulations remembered per process: rows that compile to the same graph sit close together
 * in a sweep — a policy's batch sizes apart, or a few policies apart (on B200, fleet-wave-ksplit
 * compiles to fleet-mtile's graph six simulations later).
 */
const ENTRIES = 8;
/**
 * The most tiles the remembered graphs hold together (each is held while later ones run): a
 * few batch-32 steps of three layers (32k tiles each), or the last several smaller ones.
 */
const MAX_HELD_TILES = 48_000;

interface Entry<R> {
  backend: Backend;
  options: string;
  graph: TaskGraph;
  result: R;
  tiles: number;
}

/**
 * Results of recent simulations, reused for a graph equal to one already simulated on the
 * same backend with the same options: the simulation is deterministic, so it would repeat
 * the result exactly. Two policies often compile to the same graph (FLEET's tile orders agree
 * when one M tile covers the batch). Only simulations nothing observes are remembered — no
 * event subscribers, no stream contributions — so the graph's policy name, which only the
 * event stream carries, may differ.
 */
export class SimulationMemo<R> {
  private readonly entries: Entry<R>[] = [];

  /** The remembered result for this simulation, or null. */
  find(backend: Backend, graph: TaskGraph, options: string): R | null {
    for (const e of this.entries) if (e.backend === backend && e.options === options && sameGraph(e.graph, graph)) return e.result;
    return null;
  }

  /** Remember a result, forgetting the oldest ones past `ENTRIES` or `MAX_HELD_TILES` (a graph larger than that is not remembered). */
  remember(backend: Backend, graph: TaskGraph, options: string, result: R): void {
    let tiles = 0;
    for (const t of graph.tasks) tiles += t.tiles.length;
    if (tiles > MAX_HELD_TILES) return;
    this.entries.unshift({ backend, options, graph, result, tiles });
    let held = 0;
    let keep = 0;
    while (keep < this.entries.length && keep < ENTRIES && held + this.entries[keep]!.tiles <= MAX_HELD_TILES) held += this.entries[keep++]!.tiles;
    this.entries.length = keep;
  }
}

/** Whether two task graphs hold the same data, their policy names aside. */
export function sameGraph(a: TaskGraph, b: TaskGraph): boolean {
  if (a === b) return true;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i]) return false;
    if (k === 'policy') continue;
    if (!sameData((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** Structural equality of plain data: primitives (`Object.is`), arrays, typed arrays, objects with the same keys in the same order; anything else by identity. */
export function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a.constructor !== b.constructor) return false;
    const x = a as unknown as ArrayLike<unknown>;
    const y = b as unknown as ArrayLike<unknown>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** A copy of per-bucket counters, so a caller changing them cannot change the remembered ones. */
export function copyCounters(counters: readonly MemoryCounters[]): MemoryCounters[] {
  return counters.map((c) => ({ ...c, l2: { ...c.l2 }, llc: { ...c.llc } }));
}
