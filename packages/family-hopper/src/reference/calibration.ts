/**
 * The Hopper reference calibration: our own microbenchmarks on one H100 SXM5 80 GB
 * (bench/h100/microbench.cu, bench/h100/pipeline.py, bench/h100/loaded_latency.py), as JSON with
 * their provenance beside the parameters they set. The H100 SXM5 is the only Hopper part whose
 * die and libraries we measured, so every Hopper device's cluster, collective, launch and
 * kernel-library parameters come from here: the H100's as its own measurement, the H200's as
 * measurements "taken on an H100" (same GH100 die, clocks and software stack), which its
 * package says where it passes them. End-to-end measurements that only check predictions are
 * not here: they are validation data (@fleet/validation).
 */
import cal from './h100-microbench-ours.json' with { type: 'json' };
import prior from './h100-microbench-prior.json' with { type: 'json' };
import pipeline from './h100-pipeline-ours.json' with { type: 'json' };
import loadedLatency from './h100-loaded-latency-ours.json' with { type: 'json' };
import fp8 from './h100-fp8-ours.json' with { type: 'json' };
import ksweep from './h100-ksweep-ours.json' with { type: 'json' };
import gaps from './h100-gaps-ours.json' with { type: 'json' };
import moeRouting from './h100-moe-routing-ours.json' with { type: 'json' };
import prefillTiles from './h100-prefill-tiles-ours.json' with { type: 'json' };
import decodeBlocks from './h100-decode-blocks-ours.json' with { type: 'json' };

/** Our 2026-11-21 microbenchmarks: clusters, DSMEM, L2 halves, atomics, fences, launches, GEMV at M = 1. */
export const OURS = cal;
/** Our 2026-11-24 kernel microbenchmarks (bench/h100/pipeline.py): the large-GEMM peak, the GEMV and decode-attention streams, the nvjet tile menu. */
export const PIPELINE = pipeline;
/**
 * Our 2026-11-24 loaded-latency sweep (bench/h100/loaded_latency.py, fitted by
 * bench/h100/fit_loaded_latency.py): a pointer chase timed while other SMs stream at known rates.
 */
export const LOADED_LATENCY = loadedLatency;
/**
 * Our 2026-11-25 FP8 GEMM sweep's calibration rows (bench/device/sweep.py, section fp8): the
 * compute-bound M = 4096 points of three of its six shapes, FP8 beside bf16.
 */
export const FP8_CAL = fp8;
/**
 * Our 2026-11-27 skinny-GEMM sweep over K (bench/device/ksweep.py; two H100 runs at M = 1 and 8,
 * one at M = 16, 32 and 64): per nvjet kernel, grid and M, a line through (weight bytes,
 * kernel time) — its fixed cost and stream rate.
 */
export const KSWEEP = ksweep;
/**
 * Our 2026-11-27 kernel-boundary timeline (bench/device/gaps.py): chains of kernels in one CUDA
 * graph, each replay's gaps between them read off the profiler; the decode layer's mix, cuDNN's
 * and FlashAttention-2's decode attention calls.
 */
export const GAPS = gaps;
/** Our 2026-11-25 MoE routing call (bench/device/sweep.py, section moe): its kernels profiled at batches 1–256. */
export const MOE_ROUTING = moeRouting;
/** cuDNN's prefill attention at batch 1 over tiles a CTA and KV blocks a tile (bench/h100/prefill_tiles.py). */
export const PREFILL_TILES = prefillTiles;
/** cuDNN's grouped-rows decode attention at batch 1 on 1–4 CTAs over head dims and KV lengths (bench/h100/decode_blocks.py). */
export const DECODE_BLOCKS = decodeBlocks;
/** The earlier reference set (/work/shared/reference/h100-microbench.json): HBM, launch, latencies, GEMV at M = 1. */
export const PRIOR = prior;

/** Median over ranks of the remote DSMEM load latency, SM cycles, by cluster size (ours). */
export function dsmemLatencyCycles(clusterSize: number): number {
  const rows = OURS.dsmemLatency.byCluster;
  if (clusterSize <= 1) return rows[0]!.ownRankViaClusterCycles;
  // the measured size at or above `clusterSize` (2, 4, 8, 16)
  const row = rows.find((r) => r.cluster >= clusterSize) ?? rows[rows.length - 1]!;
  return row.remoteMeanCycles;
}

/** barrier.cluster arrive + wait (cluster.sync()) in a loop, SM cycles, by cluster size (ours). */
export function clusterBarrierCycles(clusterSize: number): number {
  const t = OURS.atomics.clusterSyncCycles as Record<string, number>;
  const sizes = Object.keys(t)
    .map(Number)
    .sort((a, b) => a - b);
  const at = sizes.find((s) => s >= clusterSize) ?? sizes[sizes.length - 1]!;
  return t[String(at)]!;
}
