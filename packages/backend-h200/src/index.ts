/** @fleet/backend-h200 — NVIDIA H200 SXM for Fleet: the H100's GH100 die and calibration with 141 GB of HBM3e at 4.8 TB/s. */
import { API_VERSION, defineBackend } from '@fleet/core';
import { module } from './module.js';

export { topology, H200_HBM_BYTES, H200_HBM_PEAK_BYTES_PER_NS, H200_HBM_ACHIEVABLE_BYTES_PER_NS, H200_L2_BYTES } from './topology.js';
export { node, hgxH200 } from './node.js';
export { module } from './module.js';
export { h200PipelineValidation, h200PipelineValidationPoints, h200PrefillValidation, h200PrefillValidationPoints } from './validation.js';

export default defineBackend({ name: 'h200', apiVersion: API_VERSION, module });
