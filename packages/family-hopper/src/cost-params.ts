/**
 * H100 parameters of core's `RooflineCostModel`. "ours" = our own measurements on one
 * H100 80GB HBM3 (SXM), /work/shared/reference/h100-microbench.json [CAL].
 */
import { inFlightFromRate, type RooflineParams } from '@fleet/core';
import { GAPS, OURS, PIPELINE, PRIOR } from './reference/calibration.js';
import { H100_CLOCK_GHZ, H100_LATENCY_CYCLES as LAT, H100_SXM5 as topology } from './reference/topology.js';

/**
 * CAL ours (`GAPS.touch`, bench/device/gaps.py): what a graph replay takes beyond its kernels
 * and the boundaries between them — the graph's launch and completion, ns: the intercept of the
 * replay time (CUDA events, no profiler attached) against the chain's length, 50 and 800
 * launches of a 132-CTA kernel (6.8 µs; 7.2 on a repeat, 6.1 on an H200). Earlier figures of
 * 17–83 µs were replays timed after a profiler session had left CUPTI attached
 * (bench/results/h100-cupti).
 */
export const GRAPH_LAUNCH_NS = (() => {
  const chain = (n: number) => GAPS.touch.find((t) => t.ctas === 132 && t.launches === n)!;
  const [short, long] = [chain(50), chain(800)];
  const period = (long.replayUs - short.replayUs) / (long.launches - short.launches);
  return Math.round((short.replayUs - short.launches * period) * 1000);
})();
/**
 * CAL ours (`GAPS.layer`, bench/device/gaps.py): the GPU's idle time between dependent kernels
 * in a CUDA graph, ns — a replayed decode layer's PyTorch and cuBLAS kernels (norm, GEMVs,
 * split-K reduce, elementwise; 96 kernels): the replay's time less the kernels' profiled
 * durations and the graph's launch, per boundary (0.41 µs; whole decode steps of two layouts
 * give 0.40). Kernel times are the profiler's durations, so each calibration subtracts from
 * them only what the simulation charges apart.
 */
export const GRAPH_GAP_NS = Math.round(((GAPS.layer.replayUs - GAPS.layer.busyUs) * 1000 - GRAPH_LAUNCH_NS) / (GAPS.layer.activities - 1));
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
