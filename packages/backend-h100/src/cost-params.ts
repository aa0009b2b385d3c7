/**
 * H100 parameters of core's `RooflineCostModel`. "ours" = our own measurements on one
 * H100 80GB HBM3 (SXM), /work/shared/reference/h100-microbench.json [CAL].
 */
import type { RooflineParams } from '@fleet/core';
import { H100_CLOCK_GHZ, H100_LATENCY_CYCLES as LAT } from './topology.js';

/** CAL ours: launch.graphPerNodeUs 1.20 — the whole gap between dependent kernels in a CUDA graph, ns. */
export const GRAPH_GAP_NS = 1200;
/** UNC: the device-side part of that gap (see `endOfKernel.barrierNs`), ns. */
export const BARRIER_NS = 800;

/** Two dependent L2 round trips (346 cycles each, ours) at 1.98 GHz ≈ 349.5 ns. */
const TWO_L2_ROUND_TRIPS_NS = Math.round(((2 * LAT.l2) / H100_CLOCK_GHZ) * 10) / 10;

export const params: RooflineParams = {
  // CAL ours (S39): bf16 8192³ GEMM 798 TFLOP/s = 81% of the 989.4 dense peak. Decode tiles
  // are smaller and mostly HBM-bound, so this is an upper bound on what they reach.
  matrixEfficiency: 0.8,
  // UNC: elementwise/softmax tiles assumed to reach half the FP32 vector peak.
  vectorEfficiency: 0.5,
  // UNC: per-tile prologue/epilogue the memory system does not charge (address setup,
  // wgmma pipeline fill/drain, accumulator conversion, store issue): ≈ 600 cycles ≈ 300 ns.
  tileOverheadNs: { default: 300 },
  // UNC DER: MPK's scheduler writes a task id (relaxed store, acked by the L2) and then a
  // release add at GPU scope (atomic at the L2): two dependent L2 round trips (ours: 346 cycles).
  dispatchNs: TWO_L2_ROUND_TRIPS_NS,
  // UNC DER: the worker's acquire poll of its queue (L2) + the descriptor copy from L2 into
  // shared memory (descriptor assumed L2-resident, its bytes negligible): two L2 round trips.
  fetchNs: TWO_L2_ROUND_TRIPS_NS,
  // Core's kernel runtime charges `endOfKernel.barrierNs` and then `launch.graphNodeNs`
  // between dependent kernels (graph mode); the measured graph gap covers both, so they
  // are split to add up to it.
  launch: {
    // CAL ours: PyTorch eager, 6.33 µs per tiny kernel — the host's issue interval,
    // dispatcher overhead included (raw back-to-back launches on H200 ≈ 2.5 µs, MEAS* S7).
    eagerNs: 6330,
    // DER from CAL ours: 1.20 µs per node in a CUDA graph (Hazy ≈ 1.3 µs, S45) minus the
    // 0.8 µs `barrierNs`: 1200 − 800 = 400 ns.
    graphNodeNs: GRAPH_GAP_NS - BARRIER_NS,
  },
  endOfKernel: {
    // UNC: device-side grid completion before the next dependent grid starts, assumed
    // ≈ 2/3 of our 1.20 µs graph gap (the same split as on CDNA); no separate measurement.
    barrierNs: BARRIER_NS,
    // DS: the L2 is the device's point of coherence; nothing is written back at kernel end.
    writeBackL2: false,
  },
  // UNC/DS: the block scheduler places each CTA on the next SM with room, anywhere on the die
  // (no partition round-robin is documented for Hopper).
  hardwareDispatch: 'greedy',
};
