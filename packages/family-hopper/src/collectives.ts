/**
 * ClusterReduce and ClusterGather on H100, on chip (DSMEM) and off chip (through global
 * memory), as core `CollectiveModel`s. Both run core's recursive-doubling schedule
 * (`collectiveRounds`); this module prices one round on each medium from our microbenchmarks:
 *
 * - on chip: push the message into the peer's shared memory at the measured per-CTA DSMEM write
 *   rate, then a cluster barrier (measured), plus a store and its acknowledgement (two remote
 *   latencies, measured).
 * - off chip: store the message to global memory and load the peer's (2 × message at one CTA's
 *   streaming rate, from the GEMV calibration), then the synchronisation the exchange needs — a
 *   device release fence, one atomic flag add and an acquire poll among the N CTAs — and the
 *   global-memory round trip of the load: the peer's message comes back from L2 (its line homed
 *   in either half: the near latency plus half the far extra). All measured.
 * - a reduce then combines what it received into its own vector in shared memory, on either
 *   medium (`combineNs`): the CTA's threads each load both operands, add and store back, one
 *   access-width chunk per thread per step. ClusterFusion's primitive adds one half2 (4 B) per
 *   thread (include/dsm.cuh) on 4 warps (include/H100/llama/config.h), so each 512 B step
 *   waits a shared-memory load (latency-bound); wide (16 B) accesses are bank-bound instead
 *   (3 × message at 128 B/clk).
 *
 * `bytes` is per participant: a reduce's vector, a gather's slice.
 */
import { collectiveRounds, collectiveTrafficBytes, scheduleLatencyNs, type ClusterCollectiveKind, type CollectiveModel, type RoundPricing } from '@fleet/core';
import { OURS, PRIOR } from './reference/calibration.js';
import { dsmem } from './clusters.js';
import { H100_CLOCK_GHZ, H100_LATENCY_CYCLES } from './reference/topology.js';

const CLK = H100_CLOCK_GHZ;

/** DS: shared memory serves 32 banks × 4 B per clock per SM. */
export const SHARED_BYTES_PER_NS = 128 * CLK;

/**
 * One CTA's global-memory streaming rate, bytes/ns: the QKV GEMV at M = 1 (CAL, 22.4 µs) runs
 * 96 CTAs (its grid in our profile, one per SM) over 6144 × 4096 bf16 weights, far below the
 * HBM limit, so each CTA streamed 524,288 B in 22.4 µs.
 */
export const CTA_STREAM_BYTES_PER_NS = (6144 * 4096 * 2) / 96 / (PRIOR.gemvBf16ColdUs.qkv_proj_N6144_K4096 * 1000);

/** Loading the peer's message from L2 after the flag: an L2 hit homed in either half (mean), cycles (ours). */
export const OFF_CHIP_LOAD_CYCLES = H100_LATENCY_CYCLES.l2 + H100_LATENCY_CYCLES.l2FarExtra / 2;

/**
 * Off-chip round: fence.acq_rel.gpu after the stores + flag atomic (mean over L2 homes) + acquire
 * poll (the synchronisation), then the load's L2 round trip, ns (ours).
 */
export const OFF_CHIP_ROUND_FIXED_NS =
  (OURS.atomics.storeThenFenceAcqRelGpu + OURS.atomics.atomRelaxedMeanOverLinesCycles + OURS.atomics.ldAcquireGpu + OFF_CHIP_LOAD_CYCLES) / CLK;

/** Threads of a ClusterFusion CTA: NUM_WARPS 4 (include/H100/llama/config.h). */
export const CLUSTER_CTA_THREADS = 128;

/** Bytes each thread combines per step in ClusterFusion's ClusterReduce: one half2 (include/dsm.cuh). */
export const CLUSTERFUSION_COMBINE_ACCESS_BYTES = 4;

/** Ours: a plain shared-memory load, ns (28.7 cycles, the wait of one combine step). */
export const SHARED_LOAD_NS = OURS.dsmemLatency.byCluster[0]!.localSharedCycles / CLK;

/**
 * A reduce's local combine of a `bytes` message into its own vector, ns: ⌈bytes / (threads ×
 * access)⌉ steps, each waiting one shared-memory load, or the banks' rate for the 3 × bytes
 * read and written, whichever is slower.
 */
export function combineNs(bytes: number, accessBytes = CLUSTERFUSION_COMBINE_ACCESS_BYTES, threads = CLUSTER_CTA_THREADS): number {
  if (bytes <= 0) return 0;
  return Math.max(Math.ceil(bytes / (threads * accessBytes)) * SHARED_LOAD_NS, (3 * bytes) / SHARED_BYTES_PER_NS);
}

/** One round's fixed part and send rate through DSMEM (the combine is `combineNs`). */
export function onChipPricing(clusterSize: number): RoundPricing {
  return {
    fixedNs: dsmem.barrierNs(clusterSize) + 2 * dsmem.latencyNs(clusterSize),
    sendBytesPerNs: dsmem.writeBytesPerNsPerCta(clusterSize),
    combineBytesPerNs: Number.POSITIVE_INFINITY,
  };
}

/** One round's fixed part and send rate through global memory (the combine is `combineNs`). */
export function offChipPricing(): RoundPricing {
  return {
    fixedNs: OFF_CHIP_ROUND_FIXED_NS,
    // each round stores the message and loads the peer's: twice the bytes at the CTA's rate
    sendBytesPerNs: CTA_STREAM_BYTES_PER_NS / 2,
    combineBytesPerNs: Number.POSITIVE_INFINITY,
  };
}

function model(kind: ClusterCollectiveKind, onChip: boolean, accessBytes: number): CollectiveModel {
  return {
    name: `${onChip ? 'cluster' : 'global'}-${kind}`,
    onChip,
    latencyNs: (bytes, participants) => {
      const rounds = collectiveRounds(kind, bytes, participants);
      const moves = scheduleLatencyNs(rounds, onChip ? onChipPricing(participants) : offChipPricing());
      return moves + (kind === 'reduce' ? rounds.reduce((t, r) => t + combineNs(r.sendBytes, accessBytes), 0) : 0);
    },
    trafficBytes: (bytes, participants) => collectiveTrafficBytes(kind, bytes, participants),
  };
}

/** cluster-reduce, cluster-gather (DSMEM) and global-reduce, global-gather (global memory), as ClusterFusion's primitives run. */
export const collectives: readonly CollectiveModel[] = [true, false].flatMap((onChip) =>
  (['reduce', 'gather'] as const).map((kind) => model(kind, onChip, CLUSTERFUSION_COMBINE_ACCESS_BYTES)),
);

/**
 * The model for `kind` on chip or off chip; `accessBytes` is what each thread combines per step
 * (default ClusterFusion's half2; 16 for a kernel with vector accesses).
 */
export function collectiveModel(kind: ClusterCollectiveKind, onChip: boolean, accessBytes = CLUSTERFUSION_COMBINE_ACCESS_BYTES): CollectiveModel {
  if (accessBytes === CLUSTERFUSION_COMBINE_ACCESS_BYTES) return collectives.find((c) => c.name === `${onChip ? 'cluster' : 'global'}-${kind}`)!;
  return model(kind, onChip, accessBytes);
}

/**
 * ClusterFusion's collective benchmark (Table 1 of the paper), as it runs: the primitive in
 * the grid its kernels use — one cluster of 4 CTAs per attention head, 32 heads (Llama-2-7B),
 * all resident at once — with the table's data size the total over the grid, so each cluster
 * handles size / 32. A reduce's CTAs each hold the cluster's vector (size / 32 each); a
 * gather's CTAs each hold a slice (size / 128) and end with the cluster's size / 32.
 */
export const CLUSTERFUSION_BENCH = { clusters: 32, clusterSize: 4 } as const;

export interface CollectiveBenchKernel {
  /** Bytes each CTA starts with (a reduce's vector, a gather's slice). */
  perCtaBytes: number;
  /** Bytes each CTA ends with (what it stores). */
  resultBytes: number;
  /** Cluster waves: the clusters resident at once (small CTAs: our `small` occupancy) over the grid. */
  waves: number;
  launchUs: number;
  /** Load the input from global memory, the collective, store the result; per wave. */
  waveUs: number;
  kernelUs: number;
}

/**
 * The Table 1 kernel, whole (launch included), for `totalBytes` over the grid: launch (our
 * empty cluster kernel), then per wave of clusters each CTA loads its input from global
 * memory, runs the collective and stores its result (global traffic at one CTA's streaming
 * rate). Nothing here is fitted to the table.
 */
export function clusterFusionBenchKernel(
  kind: ClusterCollectiveKind,
  totalBytes: number,
  onChip: boolean,
  bench: { clusters: number; clusterSize: number } = CLUSTERFUSION_BENCH,
): CollectiveBenchKernel {
  const { clusters, clusterSize: n } = bench;
  const perCluster = totalBytes / clusters;
  const perCtaBytes = kind === 'reduce' ? perCluster : perCluster / n;
  const resultBytes = perCluster;
  const resident = OURS.occupancy.small[n - 1] ?? 1;
  const waves = Math.ceil(clusters / resident);
  const launchUs = (OURS.emptyClusterKernelUs.byCluster as Record<string, number>)[String(n)] ?? OURS.emptyClusterKernelUs.byCluster['4'];
  const globalNs = (perCtaBytes + resultBytes) / CTA_STREAM_BYTES_PER_NS;
  const waveUs = (globalNs + collectiveModel(kind, onChip).latencyNs(perCtaBytes, n)) / 1000;
  return { perCtaBytes, resultBytes, waves, launchUs, waveUs, kernelUs: launchUs + waves * waveUs };
}
