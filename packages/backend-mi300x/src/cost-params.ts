/**
 * MI300X parameters of core's `RooflineCostModel`. Each value carries its provenance tag
 * (hardware.md: DS, DER, MEAS, MEAS*, CAL, UNC) and source id.
 */
import type { RooflineParams } from '@fleet/core';
import {
  BARRIER_NS,
  CDNA3_CU,
  CDNA_VENDOR_PIPELINE,
  GRAPH_GAP_NS,
  MI300X_LATENCY_CYCLES,
  TILE_OVERHEAD_NS,
  VLLM_EAGER_LAUNCH_NS,
  cdnaRuntimeCosts,
  megakernelPipeline,
} from '@fleet/family-cdna';
import { MI300X_CLOCK_GHZ } from './topology.js';

// dispatch = 224 + 205 = 429 cycles ≈ 204.3 ns; fetch likewise (the family's cdnaRuntimeCosts).
const runtime = cdnaRuntimeCosts(MI300X_LATENCY_CYCLES, MI300X_CLOCK_GHZ);

export const params: RooflineParams = {
  // UNC: no decode-tile MFMA efficiency measured on MI300X; 70% of the 2048 FLOP/clk/CU peak
  // assumed. Decode GEMV is HBM-bound, so this matters only at large batch.
  matrixEfficiency: 0.7,
  // UNC: elementwise/softmax tiles assumed to reach half the 256 FLOP/clk/CU FP32 vector peak.
  vectorEfficiency: 0.5,
  // UNC: per-tile prologue + epilogue that the memory system does not already charge
  // (address and LDS setup, MFMA pipeline fill/drain, accumulator → bf16 conversion, the
  // output store's issue): assumed ≈ 630 cycles ≈ 300 ns per tile, every op kind.
  tileOverheadNs: { default: TILE_OVERHEAD_NS },
  // UNC DER: sc1 store acked by the XCD L2 (224 cycles, MEAS S6) + L2 atomic (205 cycles,
  // MEAS S7) at 2.1 GHz; scheduler and worker share the XCD's L2.
  dispatchNs: runtime.dispatchNs,
  // UNC DER: L1-bypassing poll (224 cycles, S6) + descriptor copy from L2 (205 cycles, S7).
  fetchNs: runtime.fetchNs,
  // Core's kernel runtime charges, between two dependent kernels, `endOfKernel.barrierNs`
  // (device side) and then `launch.graphNodeNs` (graph mode), or waits for the host's next
  // eager launch (`launch.eagerNs` apart). The measured graph gap below covers both parts,
  // so the two are split to add up to it instead of counting the barrier twice.
  launch: {
    // CAL (see VLLM_EAGER_LAUNCH_NS): `kernel-per-op` models vLLM's eager loop; the bare HIP
    // stream launch (≈ 4.0 µs, MEAS/UNC S17) is its floor.
    eagerNs: VLLM_EAGER_LAUNCH_NS,
    // DER from MEAS S16 (GraphBench, ROCm 7.2, device probably MI300X: UNC): ≈ 1.54 µs per
    // node in a one-chain hipGraph, the whole gap between dependent empty kernels, minus the
    // 1.0 µs `barrierNs` below that the runtime charges separately: 1540 − 1000 = 540 ns.
    graphNodeNs: GRAPH_GAP_NS - BARRIER_NS,
  },
  endOfKernel: {
    // UNC: device-side grid completion (last wave retires, CP end-of-pipe event, next
    // dispatch) — the floor between dependent kernels that eager launches also pay. On CDNA2
    // stream and graph back-to-back gaps are equal (MI210 ≈ 2.1 µs, MEAS* S7), so most of
    // the gap is device-side; assumed ≈ 2/3 of the 1.54 µs graph gap (S16).
    barrierNs: BARRIER_NS,
    // DS/MEAS S6: the CP writes back the L2 at the end of every kernel (dirty lines become
    // visible to the other XCDs only then, or at buffer_wbl2).
    writeBackL2: true,
  },
  // DS S18/S19: workgroup i → XCD i mod 8 in SPX mode, then any free CU of that XCD (S21).
  hardwareDispatch: 'round-robin-partition',
  // The megakernel at its union occupancy; vendor kernels at theirs (@fleet/family-cdna occupancy).
  pipelines: { persistent: megakernelPipeline(CDNA3_CU), kernel: CDNA_VENDOR_PIPELINE },
};
