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
export const API_VERSION = '2.0';

/** What a backend package default-exports. */
export interface BackendDescriptor {
  name: string;
  apiVersion: string;
  /** Binds `TOKENS.Topology`, `TOKENS.CostModel` (and optional tuning and contributions). */
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
  /**
   * Compute time of one tile on one compute unit, ns (matrix or vector roofline with
   * efficiency). `pipeline` is the one the tile runs on (its own, else the runtime's), for a
   * backend whose compute depends on how the kernel streams (CDNA's megakernel stages its
   * GEMM through LDS at one wave per SIMD).
   */
  tileComputeNs(tile: Tile, op: OpKind, level: TaskLevel, pipeline?: TilePipeline): number;
  /** Fixed per-tile overhead on a worker (pipeline fill, epilogue), ns. */
  tileOverheadNs(op: OpKind): number;
  /** Scheduler time to place one task into one worker queue (store + release atomic), ns. */
  dispatchNs: number;
  /** Worker time to notice and fetch a queued task (poll + descriptor copy), ns. */
  fetchNs: number;
  /**
   * Kernel launch costs, ns: `eagerNs` between dependent kernels launched from the host,
   * `graphNodeNs` before each kernel of a replayed CUDA/HIP graph (with the end-of-kernel
   * barrier, the gap between two), `graphLaunchNs` once per replay of a whole step's graph (the
   * graph's own launch and completion; default 0).
   */
  launch: { eagerNs: number; graphNodeNs: number; graphLaunchNs?: number };
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

/**
 * Kernel-per-op policies: the kernel granularity of the software stack a policy stands for on
 * this backend (e.g. PyTorch ops in a CUDA graph run unfused, RoPE as 5 kernels per tensor,
 * cuBLAS split-K with a reduction kernel; vLLM fuses more). Default: fused.
 */
export interface KernelGranularity {
  unfused?: boolean;
  perOp?: Partial<Record<OpKind, number>>;
  splitKReduce?: boolean;
  /** The split-K reduction kernel's workgroups, where they differ from the backend's kernel pipeline. */
  splitKReduceKernel?: RowKernel;
  /**
   * Each MoE routing kernel's time outside its few bytes (top-k and its sort, histogram, scan,
   * the grouped GEMM's pointer setup, the gather and scatter bookkeeping), ns. Default 0.
   */
  routingKernelFixedNs?: number;
  /** The framework's own kernels for ops of a kind (norms, elementwise), where they differ from the backend's kernel pipeline. */
  rowKernels?: Partial<Record<OpKind, RowKernel>>;
}

/**
 * How one framework kernel for a row op (a norm, an elementwise pass) runs a workgroup: the
 * loads its threads keep outstanding and the time it spends outside its memory stream.
 */
export interface RowKernel {
  /**
   * Bytes of loads one workgroup keeps in flight: a loop whose threads each wait on one load
   * per iteration streams its row as a chain of round trips. Omitted: the backend's kernel pipeline.
   */
  inFlightBytes?: number;
  /** Workgroups a compute unit holds at once (occupancy): they share its in-flight bytes and hide each other's fixed time. */
  residentTiles?: number;
  /** Time each workgroup spends outside its memory stream (reductions, index arithmetic), ns. */
  fixedNs?: number;
  /**
   * Elements one workgroup takes (its threads × elements per thread): an elementwise kernel's
   * grid is the op's elements over this, whatever the rows, not a workgroup per row. Omitted:
   * the op's own row split.
   */
  elementsPerTile?: number;
  /**
   * Vector work per element beyond the op's own arithmetic (a strided kernel's per-element
   * index computation), FLOP-equivalents at the device's vector rate; it adds up over the
   * workgroups an SM runs. Omitted: none.
   */
  vectorFlopsPerElement?: number;
}

/** How a persistent megakernel's workers and schedulers sit on the device. */
export interface PersistentTuning {
  workersPerPartition?: number;
  schedulersPerPartition?: number;
  /** Total schedulers when they are not per partition (MPK on NVIDIA). */
  globalSchedulers?: number;
  /** Bytes of one task descriptor a worker copies (MPK: 112, 352 with the TMA descriptors Hopper's tasks carry). */
  descriptorBytes?: number;
  /**
   * How Mirage MPK's compiler cuts a linear into CU-tasks on this backend: `mpk-rocm`, the
   * ROCm port FLEET published (64-column tasks, 128 for the fused gate+up, the residual
   * linears split over K to fill the workers); absent, MPK's CUDA demo grid.
   */
  linearGrid?: 'mpk-rocm';
}

/**
 * How a backend runs the policies' runtimes: tuning, not a list of policies. Whether a policy
 * runs at all is the policy's to decide from the topology and the backend's contributions;
 * a backend names a policy only where it differs from that (rare): its own layout, or a
 * refusal with the reason.
 */
export interface BackendTuning {
  /** Persistent megakernels: workers per partition, and schedulers per partition or in all. */
  persistent?: PersistentTuning;
  /** Kernel-per-op policies: the framework's kernel granularity on this backend. */
  kernels?: KernelGranularity;
  /**
   * Cluster policies: blocks per thread-block cluster, how many clusters fit at once (default:
   * one CTA per SM, whole clusters per partition), CTAs per SM, and how a cluster kernel's CTA
   * streams its weight and KV tiles (default: the backend's kernel pipeline).
   */
  cluster?: { size: number; maxActiveClusters?: number; ctasPerUnit?: number; pipeline?: TilePipeline };
  /** Exceptions by policy name: a policy's own megakernel layout, or a refusal shown to users. */
  policies?: Record<string, { persistent?: PersistentTuning; refuse?: string }>;
}

/** What an extension package (`fleet.kind: "extension"`) default-exports: contributions, no hardware. */
export interface ExtensionDescriptor {
  name: string;
  apiVersion: string;
  /** Binds contribution tokens: `TOKENS.Policy`, `TOKENS.ValidationSuite`, `TOKENS.ReportSection`. */
  module: ContainerModule;
}

/** Identity helper with type checking for extension authors. */
export function defineExtension(d: ExtensionDescriptor): ExtensionDescriptor {
  return d;
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
  /** How it runs the policies' runtimes (`TOKENS.Tuning`; empty when not bound). */
  tuning: BackendTuning;
  streamContributions: readonly StreamContribution[];
  collectives: readonly CollectiveModel[];
  /** The vendor libraries' kernel selection, if the backend models it (`TOKENS.KernelLibrary`). */
  kernelLibrary?: KernelLibrary;
  /** The node of several such devices and its collective library (`TOKENS.Node`), if the backend describes one. */
  node?: NodeSpec;
  /** What its module bound to the contribution points (policies, validation suites, report sections). */
  contributions: readonly Contribution[];
}

/** One value a plugin bound to a contribution token, with the package it came from. */
export interface Contribution {
  token: symbol;
  value: unknown;
  origin: string;
}
