/**
 * H100 parameters of core's `RooflineCostModel`. "ours" = our own measurements on one
 * H100 80GB HBM3 (SXM), /work/shared/reference/h100-microbench.json [CAL].
 */
import { inFlightFromRate, type RooflineParams } from '@fleet/core';
import { median } from './stats.js';
import { GAPS, OURS, PIPELINE, PRIOR } from './reference/calibration.js';
import { H100_CLOCK_GHZ, H100_LATENCY_CYCLES as LAT, H100_SXM5 as topology } from './reference/topology.js';

/**
 * CAL ours (`GAPS.layer`, bench/device/gaps.py): the GPU's idle time between dependent kernels
 * in a CUDA graph, ns — on the profiler's timeline of a replayed decode layer's PyTorch and
 * cuBLAS kernels (norm, GEMVs, split-K reduce, elementwise), the median of the 95 gaps from
 * one kernel's end to the next one's start (10th–90th percentile 0.32–0.67 µs). Kernel times
 * are the profiler's durations, so each calibration subtracts from them only what the
 * simulation charges apart. (The earlier 1.2 µs was a tiny kernel's launch period, its own
 * run of about 0.8 µs included.)
 */
export const GRAPH_GAP_NS = Math.round(GAPS.layer.gapMedianUs * 1000);
/**
 * CAL ours (`GAPS`): what a graph replay takes beyond its kernels and the gaps between them —
 * the graph's launch and completion, ns: the replay's time (CUDA events) less the profiler's span
 * from the first kernel's start to the last one's end, the median over the decode layer's chain
 * and the chains of 8 to 1056 CTAs (16.7–25.1 µs). (The one-CTA chain runs slower under the
 * profiler than without it, so its span says nothing.) It is the host's more than the GPU's: a
 * second H100 host took 66–83 µs (bench/results/h100-gaps-repeat), an H200 host 62–70; the
 * hosts that measured our per-call sweeps took 17–19 (their time per call less the profiled
 * kernels and gaps, e.g. the MoE routing call's 18.8 µs).
 */
export const GRAPH_LAUNCH_NS = Math.round(median([GAPS.layer, ...GAPS.touch.filter((t) => t.ctas > 1)].map((c) => c.replayUs - c.profiledSpanUs)) * 1000);
/** UNC: the device-side part of that gap (see `endOfKernel.barrierNs`), ns: two thirds, as on CDNA. */
export const BARRIER_NS = Math.round((2 * GRAPH_GAP_NS) / 3);

const ns = (cycles: number) => Math.round((cycles / H100_CLOCK_GHZ) * 10) / 10;

/**
 * Bytes one SM keeps in flight in a vendor kernel (Little's law), from the GEMV calibration:
 * the QKV GEMV at M = 1 (prior, 22.4 µs) runs 96 CTAs (one per SM, its grid in our profile),
 * so each SM streams 6144 × 4096 × 2 / 96 B in 22.4 µs = 23.4 B/ns against the DRAM latency at
 * the kernel's 2.2 TB/s (topology.memory.hbm.loadedLatency; 658 cycles unloaded): ≈ 9 KB.
 */
const PRIOR_QKV_BYTES_PER_NS = (6144 * 4096 * 2) / (PRIOR.gemvBf16ColdUs.qkv_proj_N6144_K4096 * 1000);
export const BYTES_IN_FLIGHT_PER_SM = Math.round(inFlightFromRate(topology.memory.hbm, PRIOR_QKV_BYTES_PER_NS / 96, PRIOR_QKV_BYTES_PER_NS));

/**
 * DER from CAL ours `gemmPeak` (bench/h100/pipeline.py): the matrix pipe's issue efficiency
 * on a large GEMM (8192³ bf16, wgmma m64nNk16): 780 TFLOP/s of the 989.4 dense peak. Tiles
 * pad their batch rows to wgmma's granularity, so small tiles pay for the padding instead.
 */
export const WGMMA_EFFICIENCY =
  (2 * PIPELINE.gemmPeak.m * PIPELINE.gemmPeak.n * PIPELINE.gemmPeak.k) /
  (PIPELINE.gemmPeak.us * 1000) /
  (topology.computeUnit.matrixFlopsPerNs.bf16 * topology.partitions.computeUnits.reduce((a, b) => a + b, 0));

/**
 * UNC: per-tile prologue/epilogue the memory system does not charge (address setup, wgmma
 * pipeline fill/drain, accumulator conversion, store issue): ≈ 600 cycles ≈ 300 ns.
 */
export const TILE_OVERHEAD_NS = 300;

/** UNC: elementwise/softmax tiles assumed to reach half the FP32 vector peak. */
export const VECTOR_EFFICIENCY = 0.5;

export const params: RooflineParams = {
  matrixEfficiency: WGMMA_EFFICIENCY,
  vectorEfficiency: VECTOR_EFFICIENCY,
  tileOverheadNs: { default: TILE_OVERHEAD_NS },
  // DER from CAL ours: MPK's scheduler writes a task id (a relaxed store, 18-cycle issue) then a
  // release add at GPU scope: atom.add.release.gpu 945 cycles.
  dispatchNs: ns(OURS.atomics.atomAddReleaseGpu),
  // DER from CAL ours: the worker's acquire poll of its queue (ld.acquire.gpu 277 cycles) + the
  // descriptor copy from L2 into shared memory (one L2 round trip, 296 cycles).
  fetchNs: ns(OURS.atomics.ldAcquireGpu + LAT.l2),
  // Core's kernel runtime charges `endOfKernel.barrierNs` and then `launch.graphNodeNs`
  // between dependent kernels (graph mode); the measured graph gap covers both, so they
  // are split to add up to it.
  launch: {
    // CAL ours: PyTorch eager, 6.33 µs per tiny kernel — the host's issue interval,
    // dispatcher overhead included (raw back-to-back launches on H200 ≈ 2.5 µs, MEAS* S7).
    eagerNs: 6330,
    // DER from CAL ours: the graph's gap between kernels less the `barrierNs` share.
    graphNodeNs: GRAPH_GAP_NS - BARRIER_NS,
    graphLaunchNs: GRAPH_LAUNCH_NS,
  },
  endOfKernel: {
    // UNC: device-side grid completion before the next dependent grid starts, assumed
    // ≈ 2/3 of our graph gap (the same split as on CDNA); no separate measurement.
    barrierNs: BARRIER_NS,
    // DS: the L2 is the device's point of coherence; nothing is written back at kernel end.
    writeBackL2: false,
  },
  // UNC/DS: the block scheduler places each CTA on the next SM with room, anywhere on the die
  // (no partition round-robin is documented for Hopper).
  hardwareDispatch: 'greedy',
  // Tiles of library kernels carry their own pipeline (hopper-libraries.ts). The rest:
  // DER from CAL (see BYTES_IN_FLIGHT_PER_SM) for PyTorch's elementwise kernels. UNC persistent:
  // MPK's 256-thread workers (2 warps per sub-partition) keep as much in flight as a cuBLAS GEMV
  // CTA and double-buffer their loads (cp.async), so 4 contexts overlap compute with memory.
  pipelines: { kernel: { inFlightBytes: BYTES_IN_FLIGHT_PER_SM, overlap: 4 }, persistent: { inFlightBytes: BYTES_IN_FLIGHT_PER_SM, overlap: 4 } },
};
