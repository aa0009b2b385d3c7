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
   * workers). Other levels: `null` (the runtime or the hardware picks a worker).
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
