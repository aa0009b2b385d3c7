/**
 * MI300X parameters of core's `RooflineCostModel`: the CDNA family's (each value with its
 * provenance tag, hardware.md: DS, DER, MEAS, MEAS*, CAL, UNC, and source id) at MI300X's clock.
 * Dispatch = fetch = 224 + 205 = 429 cycles at 2.1 GHz ≈ 204.3 ns.
 */
import type { RooflineParams } from '@fleet/core';
import { CDNA3_CU, CDNA3_LDS_BYTES_PER_CLK, CDNA_VENDOR_PIPELINE, cdnaRooflineParams, megakernelLdsStaging, megakernelPipeline } from '@fleet/family-cdna';
import { MI300X_CLOCK_GHZ } from './topology.js';

export const params: RooflineParams = cdnaRooflineParams({
  clockGHz: MI300X_CLOCK_GHZ,
  // UNC: no decode-tile MFMA efficiency measured on MI300X; 70% of the 2048 FLOP/clk/CU peak
  // assumed. Decode GEMV is HBM-bound, so this matters only at large batch.
  matrixEfficiency: 0.7,
  // The megakernel at its union occupancy, its GEMM tiles staged through the CU's LDS (128
  // B/clk, DS S1) at one wave per SIMD; vendor kernels at theirs (@fleet/family-cdna occupancy).
  pipelines: {
    persistent: megakernelPipeline(CDNA3_CU, { ldsStaging: megakernelLdsStaging(CDNA3_LDS_BYTES_PER_CLK, MI300X_CLOCK_GHZ) }),
    kernel: CDNA_VENDOR_PIPELINE,
  },
});
