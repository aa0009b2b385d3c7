/**
 * MI300X parameters of core's `RooflineCostModel`: the CDNA family's (each value with its
 * provenance tag, hardware.md: DS, DER, MEAS, MEAS*, CAL, UNC, and source id) at MI300X's clock.
 * Dispatch = fetch = 224 + 205 = 429 cycles at 2.1 GHz ≈ 204.3 ns.
 */
import type { RooflineParams } from '@fleet/core';
import { CDNA3_CU, CDNA_VENDOR_PIPELINE, cdnaRooflineParams, megakernelPipeline } from '@fleet/family-cdna';
import { MI300X_CLOCK_GHZ } from './topology.js';

export const params: RooflineParams = cdnaRooflineParams({
  clockGHz: MI300X_CLOCK_GHZ,
  // UNC: no decode-tile MFMA efficiency measured on MI300X; 70% of the 2048 FLOP/clk/CU peak
  // assumed. Decode GEMV is HBM-bound, so this matters only at large batch.
  matrixEfficiency: 0.7,
  // The megakernel at its union occupancy; vendor kernels at theirs (@fleet/family-cdna occupancy).
  pipelines: { persistent: megakernelPipeline(CDNA3_CU), kernel: CDNA_VENDOR_PIPELINE },
});
