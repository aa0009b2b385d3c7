/**
 * B200 parameters of core's `RooflineCostModel`. No B200 launch, dispatch or efficiency
 * measurement exists in Fleet's sources yet, so every value is a placeholder (UNC) carried
 * over from the H100 (the same CUDA driver and host path) or derived from B200 latencies;
 * each says which, so a measurement can replace it field by field.
 */
import type { RooflineParams } from '@fleet/core';
import { B200_LATENCY_NS as LAT } from './topology.js';

/** UNC from our H100 (CAL, h100-microbench.json): the gap between dependent kernels in a CUDA graph, ns. */
export const GRAPH_GAP_NS = 1200;
/** UNC: the device-side part of that gap (see `endOfKernel.barrierNs`), as split for H100, ns. */
export const BARRIER_NS = 800;

/** Two dependent near-L2 round trips (MEAS S52: ≈ 150 ns each). */
const TWO_L2_ROUND_TRIPS_NS = 2 * LAT.l2;

export const params: RooflineParams = {
  // UNC: our H100 bf16 8192³ GEMM reached 81% of its dense peak (CAL); assumed alike on B200.
  matrixEfficiency: 0.8,
  // UNC: elementwise/softmax tiles assumed to reach half the FP32 vector peak (as for H100).
  vectorEfficiency: 0.5,
  // UNC: per-tile prologue/epilogue the memory system does not charge, as for H100 (≈ 600 cycles).
  tileOverheadNs: { default: 300 },
  // UNC DER: MPK's scheduler stores a task id and then does a release add at GPU scope:
  // two dependent L2 round trips inside the die.
  dispatchNs: TWO_L2_ROUND_TRIPS_NS,
  // UNC DER: the worker's acquire poll of its queue + the descriptor copy: two L2 round trips.
  fetchNs: TWO_L2_ROUND_TRIPS_NS,
  launch: {
    // UNC from our H100: PyTorch eager, 6.33 µs per tiny kernel (host-bound, not the GPU's).
    eagerNs: 6330,
    // UNC DER from our H100: 1.20 µs per CUDA-graph node minus the 0.8 µs barrier.
    graphNodeNs: GRAPH_GAP_NS - BARRIER_NS,
  },
  endOfKernel: {
    // UNC: device-side grid completion before the next dependent grid, as split for H100.
    barrierNs: BARRIER_NS,
    // The L2 is the point of device coherence on both dies: nothing is written back at kernel end.
    writeBackL2: false,
  },
  // UNC: the block scheduler places each CTA on the next SM with room, on either die.
  hardwareDispatch: 'greedy',
};
