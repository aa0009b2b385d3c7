import type { TilePipeline } from '../compute/tile-pipeline.js';
import type { TaskLevel } from '../levels/task-level.js';
import type { AccessPolicy } from '../topology/topology.js';
import type { OpKind } from './op-graph.js';

/**
 * A byte range of a buffer touched by a tile: `rows` runs of `bytes` bytes, `strideBytes`
 * apart (a 2-D slice of a row-major tensor). `rows` defaults to 1.
 */
export interface Region {
  buffer: number;
  offset: number;
  bytes: number;
  rows?: number;
  strideBytes?: number;
  policy: AccessPolicy;
}

/** The unit of work one worker does at a time. */
export interface Tile {
  reads: Region[];
  writes: Region[];
  flops: number;
  /** Matrix pipe (GEMM/GEMV tiles) or vector ALU (elementwise, softmax). */
  unit: 'matrix' | 'vector';
  /** Vector-ALU work beside the matrix pipe (e.g. dequantizing weights), FLOP. */
  vectorFlops?: number;
  /**
   * Time the tile spends that moves no cache or HBM bytes (a DSMEM collective round, a
   * cluster barrier), ns; added once, with the tile's last step.
   */
  fixedNs?: number;
  /**
   * Bytes the tile sends to other devices over the node's interconnect (an NVSHMEM put),
   * through the link bandwidth that every tile in flight shares; with its last step.
   */
  linkBytes?: number;
  /**
   * The worker streams its reads in this many equal steps (a GEMM tile's K-chunks), each
   * resolved against the caches when it starts; writes land with the last step. Default 1.
   * Steps make the live working set one chunk per worker, as in the real kernel.
   */
  steps?: number;
  /**
   * How the kernel running this tile streams it (bytes in flight, overlap of compute and
   * memory); default: the cost model's pipeline for the graph's execution style.
   */
  pipeline?: TilePipeline;
  /**
   * Set sampling: the tile's regions stand for this many times their bytes. The caches see
   * the regions as written (a study that samples one access in k runs in caches scaled to
   * 1/k); bandwidth, Little's-law latency and the memory counters see `trafficScale` × the
   * bytes. Default 1.
   */
  trafficScale?: number;
}

export interface Task {
  id: number;
  name: string;
  opId: string;
  kind: OpKind;
  layer: number;
  level: TaskLevel;
  /**
   * Chiplet-tasks: the partition that runs it (its tiles are strided over that partition's
   * workers). Kernel-per-op workgroups: the partition the hardware dispatcher places it on
   * (a study fixing the placement); `null`: the dispatcher's own rule. Other levels: `null`.
   */
  partition: number | null;
  tiles: Tile[];
  /** Events this task waits on before it may start. */
  waits: number[];
  /** The event it signals (adds 1 to) once done, or `null`. */
  signal: number | null;
  /** Kernel-per-op graphs: the kernel this task (a workgroup) belongs to. */
  kernel?: number;
}

/** An event counter: fires once `threshold` producer tasks have signalled it. */
export interface EventCounterSpec {
  id: number;
  name: string;
  threshold: number;
  /**
   * Multi-device graphs: the GPU that owns the counter (MPK packs it into bits 32–47 of the
   * event id). Default 0, the simulated rank.
   */
  device?: number;
  /** Signalled by other devices (NVSHMEM put-with-signal) rather than by local tasks alone. */
  remote?: boolean;
}

export interface BufferSpec {
  id: number;
  name: string;
  bytes: number;
  kind: 'weight' | 'activation' | 'kv-cache' | 'sync';
}

export interface KernelSpec {
  id: number;
  name: string;
  opIds: string[];
  layer: number;
  tasks: number[];
  /**
   * Workgroups of this kernel resident on one compute unit at once (its occupancy, e.g. two
   * ClusterFusion CTAs of ≈101 KB shared memory per H100 SM). Default: the simulation's
   * `workgroupsPerUnit`.
   */
  workgroupsPerUnit?: number;
}

/** Execution style of a compiled graph; selects the runtime. */
export type ExecutionStyle = 'persistent' | 'kernel-per-op';

export interface TaskGraph {
  policy: string;
  style: ExecutionStyle;
  buffers: BufferSpec[];
  tasks: Task[];
  events: EventCounterSpec[];
  /** Kernel-per-op graphs: kernels in launch order. */
  kernels: KernelSpec[];
  /** Layer indices present in the graph (policies may compile a sample of layers). */
  layers: number[];
}

/**
 * Distinct bytes a graph reads from buffers that none of its tiles write (weights, inputs):
 * the union of its read regions. Run from cold caches, every such byte has to come from
 * DRAM at least once, so this bounds a cold run's DRAM reads from below. Buffers the graph
 * writes (outputs, workspaces) are left out: their reads may be served by the writes.
 * With `lineBytes`, each region row is widened to whole lines first (what the fetch moves).
 */
export function uniqueReadBytes(graph: TaskGraph, lineBytes = 1): number {
  const written = new Set<number>();
  for (const t of graph.tasks) for (const tile of t.tiles) for (const w of tile.writes) written.add(w.buffer);
  const spans = new Map<number, number[]>();
  for (const t of graph.tasks) {
    for (const tile of t.tiles) {
      for (const r of tile.reads) {
        if (written.has(r.buffer) || r.bytes <= 0) continue;
        let list = spans.get(r.buffer);
        if (!list) spans.set(r.buffer, (list = []));
        const stride = r.strideBytes ?? r.bytes;
        for (let row = 0; row < (r.rows ?? 1); row++) {
          const start = r.offset + row * stride;
          list.push(Math.floor(start / lineBytes) * lineBytes, Math.ceil((start + r.bytes) / lineBytes) * lineBytes);
        }
      }
    }
  }
  let total = 0;
  for (const list of spans.values()) {
    const order = Array.from({ length: list.length / 2 }, (_, i) => i).sort((a, b) => list[2 * a]! - list[2 * b]!);
    let lo = -1;
    let hi = -1;
    for (const i of order) {
      const s = list[2 * i]!;
      const e = list[2 * i + 1]!;
      if (s > hi) {
        total += hi - lo;
        lo = s;
        hi = e;
      } else if (e > hi) hi = e;
    }
    total += hi - lo;
  }
  return total;
}
