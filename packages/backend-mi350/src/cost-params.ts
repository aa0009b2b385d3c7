/**
 * MI350X parameters of core's `RooflineCostModel`. No MI350 launch, fence or GEMM-tile
 * number is public (hardware.md §2.3), so most values are MI300X's [UNC]: the CDNA family's
 * launch, tile-overhead and end-of-kernel costs, and dispatch = fetch = (224 + 205) MI300X
 * cycles at 2.2 GHz ≈ 195 ns, consistent with the 88–102 ns single-chiplet atomics measured
 * on MI350 (FLEET repo). CDNA3's end-of-kernel L2 write-back (S6) is assumed on CDNA4, whose
 * L2 is also per-XCD and write-back (S20). Workgroups go round robin to the 8 XCDs (DS S32b).
 */
import type { RooflineParams } from '@fleet/core';
import { CDNA4_CU, CDNA4_LDS_BYTES_PER_CLK, cdnaRooflineParams, megakernelLdsStaging, megakernelPipeline, vendorPipeline } from '@fleet/family-cdna';
import { MI350X_CLOCK_GHZ } from './topology.js';

export const params: RooflineParams = cdnaRooflineParams({
  clockGHz: MI350X_CLOCK_GHZ,
  // MEAS*/UNC seedcode §4: HipKittens' best 8192³ bf16 GEMM on an 8 × 32-CU part (MI350X or
  // MI355X, unnamed) reached 1114 TFLOP/s = 44–48% of peak; decode tiles are assumed no better.
  matrixEfficiency: 0.45,
  // The megakernel at the union occupancy on a CDNA4 CU, its GEMM tiles staged through the
  // CU's LDS (256 B/clk, DS S1b/S20) at one wave per SIMD (its outstanding bytes per wave are
  // calibrated on this part's batch-1 fleet-mtile TPOT); vendor kernels at their occupancy.
  pipelines: {
    persistent: megakernelPipeline(CDNA4_CU, { ldsStaging: megakernelLdsStaging(CDNA4_LDS_BYTES_PER_CLK, MI350X_CLOCK_GHZ) }),
    kernel: vendorPipeline(CDNA4_CU),
  },
});
