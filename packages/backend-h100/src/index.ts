/**
 * @fleet/backend-h100 — NVIDIA H100 SXM5 (Hopper) for Fleet: the family's reference part, on an
 * HGX H100 board, priced with its own measurements (@fleet/family-hopper's `H100_CALIBRATION`).
 */
import { H100_CALIBRATION, hopperBackend, policies } from '@fleet/family-hopper';
import { node } from './node.js';
import { topology } from './topology.js';

export { topology } from './topology.js';
export { node, hgxH100 } from './node.js';

export default hopperBackend({ name: 'h100', topology, policies, node, calibration: H100_CALIBRATION });
export { h100PipelineValidation, pipelineValidationPoints } from './pipeline-validation.js';
export { h100PrefillValidation, prefillValidationPoints } from './prefill-validation.js';
export { h100Validation, clusterFusionTableValidation, TABLE1_TOLERANCE, linearOpUs, row as validationRow, clusterKernelUs, clusterFusionTpotMs, type OpsForValidation, type PolicyLike, type H100ValidationOptions } from './validation.js';
export { h100MoeValidation, moeValidationPoints, groupedGemmUs } from './moe-validation.js';
export { clusterFusionValidation, clusterFusionClaimPoints, clusterFusionSpeedup, CLUSTERFUSION_CLAIMS } from './clusterfusion-validation.js';
