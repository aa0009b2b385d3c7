/**
 * What a Hopper device's cost model, kernel library and cluster collectives are calibrated
 * on, as one value a device package passes to `hopperBackend`. Only one such set exists:
 * `H100_CALIBRATION`, derived from our H100 SXM5 measurements (`reference/`). A device with
 * its own kernel measurements would derive its own set the same way.
 */
import type { CollectiveModel, KernelLibrary, RooflineParams } from '@fleet/core';
import { collectives } from './collectives.js';
import { params } from './cost-params.js';
import { kernelLibrary } from './hopper-libraries.js';

export interface HopperCalibration {
  /** The part the measurements were taken on, for provenance (a device that borrows them says so). */
  measuredOn: string;
  params: RooflineParams;
  kernelLibrary: KernelLibrary;
  collectives: readonly CollectiveModel[];
}

/** Cost parameters, library model and DSMEM/global collectives from our H100 SXM5 measurements. */
export const H100_CALIBRATION: HopperCalibration = {
  measuredOn: 'NVIDIA H100 SXM5 80 GB (our microbenchmarks, reference/)',
  params,
  kernelLibrary,
  collectives,
};
