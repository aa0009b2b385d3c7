/**
 * MI350X parameters of core's `RooflineCostModel`. No MI350 launch, fence or GEMM-tile
 * number is public (hardware.md §2.3), so most values are MI300X's [UNC] and say so.
 */
import {
  BARRIER_NS,
  CDNA4_CU,
  GRAPH_GAP_NS,
  MI300X_LATENCY_CYCLES,
  TILE_OVERHEAD_NS,
  VLLM_EAGER_LAUNCH_NS,
  cdnaRuntimeCosts,
  megakernelPipeline,
  vendorPipeline,
} from '@fleet/family-cdna';
import type { RooflineParams } from '@fleet/core';
import { MI350X_CLOCK_GHZ } from './topology.js';

// dispatch = fetch = (224 + 205) MI300X cycles at 2.2 GHz ≈ 195 ns (see the CDNA runtime costs).
const runtime = cdnaRuntimeCosts(MI300X_LATENCY_CYCLES, MI350X_CLOCK_GHZ);

export const params: RooflineParams = {
  // MEAS*/UNC seedcode §4: HipKittens' best 8192³ bf16 GEMM on an 8 × 32-CU part (MI350X or
  // MI355X, unnamed) reached 1114 TFLOP/s = 44–48% of peak; decode tiles are assumed no better.
  matrixEfficiency: 0.45,
  // UNC: as MI300X, half the FP32 vector peak.
  vectorEfficiency: 0.5,
  // UNC: MI300X's assumed per-tile prologue/epilogue, same ns.
  tileOverheadNs: { default: TILE_OVERHEAD_NS },
  // UNC DER: sc1 store acked by the XCD L2 + L2 atomic, MI300X cycles (S6/S7) at 2.2 GHz;
  // consistent with the 88–102 ns single-chiplet atomics measured on MI350 (FLEET repo).
  dispatchNs: runtime.dispatchNs,
  // UNC DER: L1-bypassing poll + descriptor copy from L2, MI300X cycles at 2.2 GHz.
  fetchNs: runtime.fetchNs,
  // UNC hardware.md §2.3: no MI350 launch number; the CDNA values (the family's launch costs):
  // vLLM's eager issue interval (CAL on this part) and the MI300X hipGraph gap 1.54 µs (S16)
  // split into barrier 1.0 µs + node 0.54 µs.
  launch: { eagerNs: VLLM_EAGER_LAUNCH_NS, graphNodeNs: GRAPH_GAP_NS - BARRIER_NS },
  endOfKernel: {
    // UNC: MI300X's assumed device-side share of the graph gap.
    barrierNs: BARRIER_NS,
    // UNC: CDNA3 behaviour (S6, the CP writes back L2 at kernel end) assumed on CDNA4, whose
    // L2 is also per-XCD and write-back (S20); CDNA4 keeps the lines after writing them back.
    writeBackL2: true,
  },
  // DS S32b (iree-org/wave PR 1001): "On MI350 the hardware assigns flat workgroup indices
  // round robin to 8 XCD".
  hardwareDispatch: 'round-robin-partition',
  // The megakernel at the union occupancy on a CDNA4 CU (its outstanding bytes per wave are
  // calibrated on this part's batch-1 fleet-mtile TPOT); vendor kernels at their occupancy.
  pipelines: { persistent: megakernelPipeline(CDNA4_CU), kernel: vendorPipeline(CDNA4_CU) },
};
