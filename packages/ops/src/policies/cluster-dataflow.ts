/**
 * What a cluster block's dataflow exchanges and what that costs: the options of a ClusterFusion
 * compile, the per-CTA collective messages of SplitToken and SplitHead, their DSMEM traffic,
 * the price of a round (the backend's `cluster-*` models, else the chiplet coherence scope),
 * how many clusters fit at once, and the shapes of a CTA's task and request rows. Shared by the
 * dense and the MLA cluster blocks.
 */
import {
  collectiveRounds,
  coherenceScope,
  scheduleLatencyNs,
  type AttentionOp,
  type ClusterCollectiveKind,
  type CollectiveModel,
  type Region,
  type Task,
  type Tile,
  type TilePipeline,
  type Topology,
} from '@fleet/core';
import type { CompileOptions } from '../compile/lowering.js';

export type ClusterDataflow = 'split-token' | 'split-head';

export interface ClusterFusionOptions extends CompileOptions {
  /** CTAs per cluster: 1, 2, 4, 8 or 16 (default 4, ClusterFusion's). */
  clusterSize?: number;
  dataflow?: ClusterDataflow;
  /** The backend's collective models; without them rounds are priced from the chiplet coherence scope. */
  collectives?: readonly CollectiveModel[];
  /** Exchange through global memory instead of DSMEM (the "DSMEM disabled" ablation). */
  offChip?: boolean;
  /** Clusters per KV-head group, each serving a contiguous share of the requests (default: as many as the co-resident clusters allow, at most one per request). */
  requestSplit?: number;
  /** Clusters of a size that can be co-resident (default: Σ ⌊GPC SMs · ctasPerUnit / size⌋ over the topology's partitions). */
  maxActiveClusters?: (clusterSize: number) => number;
  /** CTAs of the fused kernel resident per SM (its shared memory decides; default 1). */
  ctasPerUnit?: number;
  /** How a CTA streams its weight and KV tiles (the backend's; default: its kernel pipeline). */
  pipeline?: TilePipeline;
}

const EL = 2;
const FP32 = 4;

/** Per-CTA message sizes of one unit's collectives, bytes (a unit serves one KV group for one or more requests). */
export interface ClusterMessages {
  gather: number;
  reduces: number[];
}

/** The collectives one KV-group unit serving `requests` requests runs for a dataflow: each request's messages, side by side. */
export function clusterMessages(op: AttentionOp, clusterSize: number, dataflow: ClusterDataflow, requests = op.batch): ClusterMessages {
  const g = op.heads / op.kvHeads;
  const d = op.headDim;
  const B = requests;
  if (dataflow === 'split-head') return { gather: 0, reduces: [B * g * op.kvLen * FP32, B * g * d * EL] };
  return { gather: (B * (g + 2) * d * EL) / clusterSize, reduces: [B * g * FP32, B * g * FP32, B * g * d * EL] };
}

/** DSMEM bytes one unit moves: Σ collective traffic (seeds §3: Reduce(size, N) = size·log2 N·N, …). */
export function clusterTrafficBytes(op: AttentionOp, clusterSize: number, dataflow: ClusterDataflow): number {
  const m = clusterMessages(op, clusterSize, dataflow);
  const traffic = (kind: ClusterCollectiveKind, bytes: number) => collectiveRounds(kind, bytes, clusterSize).reduce((s, r) => s + r.sendBytes * clusterSize, 0);
  return (m.gather > 0 ? traffic('gather', m.gather) : 0) + m.reduces.reduce((s, b) => s + traffic('reduce', b), 0);
}

export function collectiveNs(kind: ClusterCollectiveKind, bytes: number, n: number, topology: Topology, opts: ClusterFusionOptions): number {
  if (n === 1 || bytes === 0) return 0;
  const name = `${opts.offChip ? 'global' : 'cluster'}-${kind}`;
  const model = opts.collectives?.find((c) => c.name === name);
  if (model) return model.latencyNs(bytes, n);
  // No model: a round costs the chiplet scope's release and two atomic latencies, bytes at L1 rate.
  const scope = coherenceScope(topology, opts.offChip ? 'device' : 'chiplet');
  return scheduleLatencyNs(collectiveRounds(kind, bytes, n), {
    fixedNs: scope.release.fixedNs + 2 * scope.atomicLatencyNs,
    sendBytesPerNs: topology.computeUnit.l1.bandwidthBytesPerNs,
    combineBytesPerNs: topology.computeUnit.l1.bandwidthBytesPerNs,
  });
}

/** Clusters of `size` CTAs that fit at once, `ctasPerUnit` CTAs per SM, from the topology's partitions. */
export function clustersFromPartitions(topology: Topology, size: number, ctasPerUnit = 1): number {
  return topology.partitions.computeUnits.reduce((s, n) => s + Math.floor((n * ctasPerUnit) / size), 0);
}

/**
 * Clusters of `n` CTAs that run side by side: those the hardware co-schedules
 * (`maxActiveClusters`) and those the kernel's slots hold (`ctasPerUnit` CTAs on every SM).
 */
export function residentClusters(topology: Topology, opts: ClusterFusionOptions, n: number): number {
  const per = opts.ctasPerUnit ?? 1;
  if (!(Number.isInteger(per) && per >= 1)) throw new RangeError(`clusterfusion: ctasPerUnit must be a positive integer (got ${per})`);
  const active = Math.max(1, (opts.maxActiveClusters ?? ((s) => clustersFromPartitions(topology, s, per)))(n));
  const slots = Math.max(1, Math.floor((topology.partitions.computeUnits.reduce((a, x) => a + x, 0) * per) / n));
  return Math.min(active, slots);
}

/** `bytes` at `offset` of `rows` consecutive request rows `strideBytes` apart (one plain range for one row). */
export function batchRows(buffer: number, offset: number, bytes: number, rows: number, strideBytes: number): Region {
  return rows > 1 ? { buffer, offset, bytes, rows, strideBytes, policy: 'default' } : { buffer, offset, bytes, policy: 'default' };
}

/**
 * The fused attention task of CTA `cta` of cluster `cluster` in `layer`: its tiles, no waits, no
 * signal. Under a `pipeline` (the backend's TMA stream) a tile that does not set its own steps
 * streams its reads in windows of the pipeline's bytes in flight, as the kernel's double buffer
 * does: the caches see what is live, so clusters that read the same weights at the same moment
 * (a KV group's request shares) hit each other's lines instead of all missing at once.
 */
export function ctaTask(layer: number, cluster: number, cta: number, tiles: Tile[], pipeline?: TilePipeline): Omit<Task, 'id' | 'kernel'> {
  if (pipeline) {
    for (const t of tiles) {
      t.pipeline = pipeline;
      const bytes = t.reads.reduce((s, r) => s + r.bytes * (r.rows ?? 1), 0);
      const steps = Math.ceil(bytes / pipeline.inFlightBytes);
      if (t.steps === undefined && steps > 1) t.steps = steps;
    }
  }
  return {
    name: `L${layer}.cluster${cluster}.cta${cta}`,
    opId: `L${layer}.attention`,
    kind: 'attention',
    layer,
    level: 'cu',
    partition: null,
    tiles,
    waits: [],
    signal: null,
  };
}
