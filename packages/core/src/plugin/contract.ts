import type { ContainerModule } from 'inversify';
import type { Observable } from 'rxjs';
import type { KernelLibrary } from '../compute/kernel-library.js';
import type { TilePipeline } from '../compute/tile-pipeline.js';
import type { OpKind } from '../graph/op-graph.js';
import type { Tile } from '../graph/task-graph.js';
import type { TaskLevel } from '../levels/task-level.js';
import type { SimEvent } from '../protocol/events.js';
import type { Topology } from '../topology/topology.js';
import type { NodeSpec } from '../node/collectives.js';

/** The plugin API version this core implements. Plugins must share the major, and not exceed the minor. */
export const API_VERSION = '1.1';

/** What a backend package default-exports. */
export interface BackendDescriptor {
  name: string;
  apiVersion: string;
  /** Binds `TOKENS.Topology`, `TOKENS.CostModel`, `TOKENS.PolicySupport` (and optional contributions). */
  module: ContainerModule;
}

/** Identity helper with type checking for backend authors. */
export function defineBackend(d: BackendDescriptor): BackendDescriptor {
  return d;
}

/** Where each workgroup of a hardware-dispatched grid lands. */
export type HardwareDispatch =
  /** workgroup i → partition i mod P (CDNA SPX mode), then the next free CU there */
  | 'round-robin-partition'
  /** workgroup i → the next free compute unit anywhere (NVIDIA block scheduler) */
  | 'greedy';

/**
 * The backend's cost model. The simulation asks it for compute time and fixed costs; memory
 * time is not here: it comes out of the simulated caches and shared bandwidth resources.
 */
export interface CostModel {
  /** Compute time of one tile on one compute unit, ns (matrix or vector roofline with efficiency). */
  tileComputeNs(tile: Tile, op: OpKind, level: TaskLevel): number;
  /** Fixed per-tile overhead on a worker (pipeline fill, epilogue), ns. */
  tileOverheadNs(op: OpKind): number;
  /** Scheduler time to place one task into one worker queue (store + release atomic), ns. */
  dispatchNs: number;
  /** Worker time to notice and fetch a queued task (poll + descriptor copy), ns. */
  fetchNs: number;
  /** Kernel launch costs, ns. */
  launch: { eagerNs: number; graphNodeNs: number };
  /** Between two kernels: device-wide barrier cost and the cache effect at kernel end. */
  endOfKernel: { barrierNs: number; writeBackL2: boolean };
  hardwareDispatch: HardwareDispatch;
  /**
   * How a compute unit streams tiles, by execution style, for tiles that do not carry their
   * own `pipeline`: a persistent megakernel holding every task type runs at the occupancy of
   * the union of its task types; vendor kernels' pipelines come from the kernel library.
   * Omitted: bandwidth-bound reads, compute fully overlapped.
   */
  pipelines?: { persistent: TilePipeline; kernel: TilePipeline };
}

/** A backend's stance on one scheduling policy. */
export interface PolicySupport {
  policy: string;
  /** Set when the backend cannot run the policy; shown to the user. */
  unsupportedReason?: string;
  /** Persistent runtimes: workers and schedulers per partition (as the policy runs on this hardware). */
  workersPerPartition?: number;
  schedulersPerPartition?: number;
  /** Persistent runtimes: total schedulers when they are not per partition (MPK on NVIDIA). */
  globalSchedulers?: number;
  /** Which coherence scope a CU-task's completion signal needs. */
  signalScope?: 'chiplet' | 'device';
  /**
   * Kernel-per-op policies: the kernel granularity of the software stack this policy stands
   * for on this backend (e.g. PyTorch ops in a CUDA graph run unfused, RoPE as 5 kernels per
   * tensor, cuBLAS split-K with a reduction kernel; vLLM fuses more). Default: fused.
   */
  kernels?: { unfused?: boolean; perOp?: Partial<Record<OpKind, number>>; splitKReduce?: boolean };
  /** Cluster policies: blocks per thread-block cluster, and how many clusters fit at once. */
  clusterSize?: number;
  maxActiveClusters?: number;
}

/** A metric a backend derives from the event stream (coherence accounting, collectives…). */
export interface BackendMetric {
  name: string;
  value: number;
  unit: string;
}

/**
 * Backend accounting as an RxJS operator over the event stream (batches of events).
 * It runs alongside core's metrics and may emit any number of metrics when the stream completes.
 */
export type StreamContribution = (events$: Observable<readonly SimEvent[]>) => Observable<BackendMetric>;

/** A collective's cost model (Hopper DSMEM ClusterReduce/ClusterGather, AMD L2-local counters…). */
export interface CollectiveModel {
  name: string;
  /** Latency in ns of the collective on `bytes` per participant over `participants` members. */
  latencyNs(bytes: number, participants: number): number;
  /** Bytes moved between participants. */
  trafficBytes(bytes: number, participants: number): number;
  onChip: boolean;
}

/** The resolved view of a loaded backend, assembled by core from the bindings. */
export interface Backend {
  name: string;
  apiVersion: string;
  topology: Topology;
  costModel: CostModel;
  policies: readonly PolicySupport[];
  streamContributions: readonly StreamContribution[];
  collectives: readonly CollectiveModel[];
  /** The vendor libraries' kernel selection, if the backend models it (`TOKENS.KernelLibrary`). */
  kernelLibrary?: KernelLibrary;
  /** The node of several such devices and its collective library (`TOKENS.Node`), if the backend describes one. */
  node?: NodeSpec;
}
