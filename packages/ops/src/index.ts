/**
 * @fleet/ops — kernels as task decompositions with data footprints, and the scheduling
 * policies that compile a decode step's op graph into a task graph.
 *
 * - `decompose/`  linear (16×64 tiles, N-split, M-tile/M-split, split-K), split-KV attention, row ops
 * - `compile/`    lowering an op graph to tasks: schedules, stages, the shared decompositions
 * - `policies/`   scheduling policies as objects, one module per family (kernel-per-op;
 *                 megakernels: Mirage MPK and FLEET's traversals; ClusterFusion), the registry
 * - `predict/`    decode prediction: sampled positions and layers, extrapolated
 * - `quant/`      weight types, group-wise quantization, pre-layout, weight bytes and dequant work
 *
 * Number formats, reference kernels, low-bit codes and layouts are in `@fleet/numerics`;
 * running a compiled task graph with real numbers (`fleet verify`) is `@fleet/functional`.
 */
export * from './decompose/linear.js';
export * from './decompose/attention.js';
export * from './decompose/row-ops.js';
export { BufferTable } from './decompose/buffers.js';
export * from './compile/schedule.js';
export type { Draft, Stage } from './compile/drafts.js';
export {
  lowerGraph,
  colTiles,
  splitCols,
  gemmShape,
  type CompileOptions,
  type Lowering,
  type LoweringContext,
  type LinearJob,
  type GroupedOperands,
  type PersistentLinears,
} from './compile/lowering.js';
export * from './policies/policy.js';
export * from './policies/options.js';
export * from './policies/registry.js';
export { kernelPerOpLowering, kernelSchedule, KERNEL_PER_OP, KERNEL_PER_OP_GRAPH } from './policies/kernel-per-op.js';
export {
  cuTaskLowering,
  chipletTaskLowering,
  megakernelPolicy,
  fleetSchedule,
  chipletIsPartition,
  persistentOptionsFor,
  MIRAGE,
  FLEET_MTILE,
  FLEET_MSPLIT,
  FLEET_KSPLIT,
  mpkRocmKSplits,
} from './policies/megakernel.js';
export { FLEET_WAVE_KSPLIT, waveKSplitPipeline } from './policies/wave-ksplit.js';
export * from './predict/decode.js';
export * from './predict/prefill.js';
export * from './predict/mixed.js';
export {
  simulateStep,
  compiledSteps,
  collectivesFor,
  withLibraryCollectivesOnly,
  backendCompileOptions,
  sameLayerOps,
  layerKinds,
  layersToSample,
  worseExtrapolation,
  PROOF_LAYERS,
  proofTries,
  type LayerExtrapolation,
  type StepOptions,
  type StepResult,
  type StepSimulation,
} from './predict/step.js';
export type { StepTraffic } from './predict/traffic.js';
export { linearOpGraph } from './predict/single-op.js';
export { attentionModuleLatency, type AttentionModuleLatency, type AttentionModuleOptions } from './predict/attention-module.js';
export * from './quant/weight-type.js';
export * from './quant/groupwise.js';
export * from './quant/prelayout.js';
export * from './quant/cost.js';
export * from './policies/clusterfusion.js';
export * from './policies/clusterfusion-mla.js';
export * from './decompose/moe.js';
export * from './quant/weight-regions.js';
