/**
 * @fleet/ops — kernels as task decompositions with data footprints, and the scheduling
 * policies that compile a decode step's op graph into a task graph.
 *
 * - `decompose/`  linear (16×64 tiles, N-split, M-tile/M-split, split-K), split-KV attention, row ops
 * - `policies/`   kernel-per-op, kernel-per-op-graph, mirage, fleet-mtile, fleet-msplit
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
export * from './policies/policy.js';
export { compilePolicy, type CompileOptions } from './policies/compile.js';
export * from './predict/decode.js';
export * from './predict/prefill.js';
export * from './predict/mixed.js';
export { simulateStep, compiledSteps, collectivesFor, resolvePolicy, sameLayerOps, worseExtrapolation, PROOF_LAYERS, type LayerExtrapolation, type StepOptions, type StepResult, type StepSimulation } from './predict/step.js';
export { linearOpGraph } from './predict/single-op.js';
export * from './attention-mapping/index.js';
export * from './quant/weight-type.js';
export * from './quant/groupwise.js';
export * from './quant/prelayout.js';
export * from './quant/cost.js';
export * from './policies/clusterfusion.js';
export * from './policies/clusterfusion-mla.js';
export * from './decompose/moe.js';
export * from './quant/weight-regions.js';
