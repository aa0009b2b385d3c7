/**
 * Core's `RooflineCostModel` parameters that every CDNA part shares: the ROCm stack's launch
 * and per-tile costs (./launch.ts), the persistent runtime's dispatch and fetch from the
 * device's load latencies (./runtime-costs.ts), CDNA's end-of-kernel L2 write-back and its
 * round-robin workgroup dispatch. A device passes its clock, its GEMM-tile efficiency and its
 * pipelines; where a value is not measured on the part, its cost-params file says so.
 */
import type { RooflineParams } from '@fleet/core';
import { BARRIER_NS, GRAPH_GAP_NS, TILE_OVERHEAD_NS, VLLM_EAGER_LAUNCH_NS } from './launch.js';
import { MI300X_LATENCY_CYCLES } from './latency.js';
import { cdnaRuntimeCosts } from './runtime-costs.js';

/** What one CDNA device sets; the rest of its roofline parameters are the family's. */
export interface CdnaRooflineSpec {
  clockGHz: number;
  /** Fraction of the MFMA peak a decode tile reaches. */
  matrixEfficiency: number;
  pipelines: RooflineParams['pipelines'];
}

/** A CDNA device's roofline parameters. */
export function cdnaRooflineParams(spec: CdnaRooflineSpec): RooflineParams {
  // dispatch = fetch = (224 + 205) MI300X cycles at the device's clock (cdnaRuntimeCosts).
  const runtime = cdnaRuntimeCosts(MI300X_LATENCY_CYCLES, spec.clockGHz);
  return {
    matrixEfficiency: spec.matrixEfficiency,
    // UNC: elementwise/softmax tiles assumed to reach half the 256 FLOP/clk/CU FP32 vector peak.
    vectorEfficiency: 0.5,
    // UNC: per-tile prologue + epilogue that the memory system does not already charge
    // (TILE_OVERHEAD_NS: ≈ 630 cycles ≈ 300 ns per tile on MI300X, every op kind).
    tileOverheadNs: { default: TILE_OVERHEAD_NS },
    // UNC DER: sc1 store acked by the XCD L2 (224 cycles, MEAS S6) + L2 atomic (205 cycles,
    // MEAS S7); scheduler and worker share the XCD's L2.
    dispatchNs: runtime.dispatchNs,
    // UNC DER: L1-bypassing poll (224 cycles, S6) + descriptor copy from L2 (205 cycles, S7).
    fetchNs: runtime.fetchNs,
    // Core's kernel runtime charges, between two dependent kernels, `endOfKernel.barrierNs`
    // (device side) and then `launch.graphNodeNs` (graph mode), or waits for the host's next
    // eager launch (`launch.eagerNs` apart). The measured graph gap covers both parts, so the
    // two are split to add up to it instead of counting the barrier twice.
    launch: {
      // CAL (see VLLM_EAGER_LAUNCH_NS): `kernel-per-op` models vLLM's eager loop; the bare HIP
      // stream launch (≈ 4.0 µs, MEAS/UNC S17) is its floor.
      eagerNs: VLLM_EAGER_LAUNCH_NS,
      // DER from MEAS S16 (GraphBench, ROCm 7.2, device probably MI300X: UNC): ≈ 1.54 µs per
      // node in a one-chain hipGraph, the whole gap between dependent empty kernels, minus the
      // 1.0 µs `barrierNs` that the runtime charges separately: 1540 − 1000 = 540 ns.
      graphNodeNs: GRAPH_GAP_NS - BARRIER_NS,
    },
    endOfKernel: {
      // UNC: device-side grid completion (see BARRIER_NS), ≈ 2/3 of the 1.54 µs graph gap (S16).
      barrierNs: BARRIER_NS,
      // DS/MEAS S6: the CP writes back the L2 at the end of every kernel (dirty lines become
      // visible to the other XCDs only then, or at buffer_wbl2); CDNA4's L2 is also per-XCD
      // and write-back (S20).
      writeBackL2: true,
    },
    // DS S18/S19: workgroup i → XCD i mod 8 in SPX mode, then any free CU of that XCD (S21);
    // on MI350 likewise (S32b, iree-org/wave PR 1001).
    hardwareDispatch: 'round-robin-partition',
    pipelines: spec.pipelines,
  };
}
