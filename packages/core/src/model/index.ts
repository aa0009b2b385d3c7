/** The model loader: presets, Hugging Face configs, safetensors headers, decode op graphs. */
export type { ModelSpec } from './model-spec.js';
export { MODEL_PRESETS, listPresets } from './presets.js';
export { parameterCount, activeParameterCount, attentionParameters, ffnParameters } from './parameters.js';
export { parseHfConfig, readHfConfig, SUPPORTED_MODEL_TYPES, MAX_CONFIG_BYTES, MAX_DIMENSION, MAX_LAYERS, MAX_PARAMETERS } from './hf-config.js';
export {
  readSafetensorsHeader,
  SAFETENSORS_DTYPE_BYTES,
  MAX_SAFETENSORS_HEADER_BYTES,
  type SafetensorsDType,
  type SafetensorsHeader,
  type SafetensorsTensor,
} from './safetensors.js';
export { crossCheckTensors, checkpointTensors, expectedTensors, type CheckpointTensor } from './cross-check.js';
export { loadModel, describeModel } from './load-model.js';
export {
  buildDecodeGraph,
  buildPrefillGraph,
  buildMixedGraph,
  buildStepGraph,
  type StepSegment,
  type MixedStepOptions,
  MAX_DECODE_BATCH,
  MAX_CONTEXT_LEN,
  MAX_STEP_TOKENS,
  MAX_TP,
  tensorParallelProblem,
  tensorParallelShapes,
  type DecodeGraphOptions,
  type PrefillGraphOptions,
  type TensorParallelShapes,
} from './decode-graph.js';
export {
  type MoeSpec,
  type MlaSpec,
  type Routing,
  type ExpertLoad,
  MAX_EXPERTS,
  MAX_ZIPF_S,
  UNIFORM_ROUTING,
  isMoeLayer,
  kvElementsPerToken,
  parseRouting,
  describeRouting,
  expertPopularity,
  selectionProbabilities,
  expectedActiveExperts,
  expertLoads,
} from './moe.js';
export { MOE_MODEL_TYPES } from './moe-config.js';
export { moeFfnOps, mlaAttentionOps, type LayerContext } from './moe-graph.js';
