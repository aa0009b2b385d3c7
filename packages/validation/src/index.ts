/**
 * @fleet/validation — every suite `fleet validate` runs, and the measured and published data
 * they compare against: predictions of Fleet's devices beside our own H100/H200 measurements,
 * the FLEET paper on MI350X, vendor GEMV measurements on MI300X, ClusterFusion on H100 and the
 * NUMA-attention study. Calibration data that sets parameters stays with the devices and their
 * families; what is here is only ever compared against.
 */
import { ContainerModule, defineExtension, TOKENS } from '@fleet/core';
import { SUITES } from './suites.js';

export { SUITES } from './suites.js';
export type { ValidationSuite } from '@fleet/core';

// H100: our end-to-end, pipeline, prefill and MoE measurements; ClusterFusion's Table 1 and claims.
export {
  h100Validation,
  clusterFusionTableValidation,
  TABLE1_TOLERANCE,
  linearOpUs,
  clusterKernelUs,
  clusterFusionTpotMs,
  row as validationRow,
  speedupRow,
  type H100ValidationOptions,
} from './h100/validation.js';
export { h100PipelineValidation, pipelineValidationPoints } from './h100/pipeline.js';
export { h100PrefillValidation, prefillValidationPoints } from './h100/prefill.js';
export { h100MoeValidation, moeValidationPoints, groupedGemmUs, h200MoeValidation, h200MoeValidationPoints } from './h100/moe.js';
export {
  h100DecodeValidation,
  decodeValidationPoints,
  h200DecodeValidation,
  h200DecodeValidationPoints,
  decodeAttentionUs,
  qwen3Dense,
} from './h100/decode.js';
export { groupedRows } from './h100/validation.js';
export { familiesValidation, familiesValidationPoints, familyModel, type FamiliesSet } from './h100/families.js';
export { h100NcclValidation, ncclValidationPoints, ncclGraphAllReduceUs, h200NcclValidation, h200NcclValidationPoints } from './h100/nccl.js';
export {
  h100LinearShapesValidation,
  linearShapesValidationPoints,
  h200LinearShapesValidation,
  h200LinearShapesValidationPoints,
} from './h100/linear-shapes.js';
export { h100KsweepValidation, h100KsweepValidationPoints, h200KsweepValidation, h200KsweepValidationPoints } from './h100/ksweep.js';
export { ncclPublishedValidation, ncclPublishedPoints, NCCL_PUBLISHED_BACKENDS } from './published/collectives.js';
export { h100Fp8Validation, fp8ValidationPoints, h200Fp8Validation, h200Fp8ValidationPoints, FP8_CALIBRATION_SHAPES } from './h100/fp8.js';
export {
  clusterFusionValidation,
  clusterFusionClaimPoints,
  clusterFusionSpeedup,
  clusterFusionModuleSpeedup,
  CLUSTERFUSION_CLAIMS,
  CLUSTERFUSION_MODULE_CLAIMS,
} from './h100/clusterfusion.js';
// Mirage MPK: the runtime walkthrough and FLEET's citation of its H100 speedups.
export { mpkValidation, mpkValidationPoints, MPK_SPEEDUP_BATCHES } from './h100/mpk.js';
// H200: our measurements with the H100 scripts.
export { h200TpValidation, h200TpValidationPoints } from './h200/tp.js';
export { h200PipelineValidation, h200PipelineValidationPoints, h200PrefillValidation, h200PrefillValidationPoints } from './h200/validation.js';
// MI350X: the FLEET paper; MI300X: vendor GEMV bandwidth.
export { fleetMi350Validation, fleetMi350Jobs } from './mi350/fleet-mi350.js';
export { fleetPaper, FLEET_PAPER_SOURCE, type FleetPaperDataset, type FleetPolicy, type Table4Row, type Table4Policy } from './mi350/fleet-paper.js';
export { gemvMi300xValidation } from './mi300x/gemv.js';
// Per-suite verdicts: rows within tolerance, MAPE of the predicted values.
export { summariseSuites, formatSuiteSummary, type SuiteSummary } from './summary.js';
// Tilus: its figures' relations on L40S/H100/A100 and our H100 comparator measurements.
export { tilusValidation, tilusBackendRows, tilusMeasuredRows, tilusValidationPoints, TILUS_BACKENDS, type TilusPart } from './tilus/tilus.js';

/**
 * The package as a Fleet extension: every suite bound to `TOKENS.ValidationSuite`, so that
 * `fleet validate` finds Fleet's suites the way it finds any installed package's.
 */
export default defineExtension({
  name: 'validation',
  apiVersion: '2.0',
  module: new ContainerModule(({ bind }) => {
    for (const s of SUITES) bind(TOKENS.ValidationSuite).toConstantValue(s);
  }),
});
