/**
 * @fleet/functional — functional verification: a compiled task graph runs the reference
 * numerics in the order the simulation produces (inputs read when a task starts, outputs
 * stored when it ends), and its logits are compared with a straight-line reference. A
 * schedule that lets a task run before a producer it needs gives wrong numbers. `fleet
 * verify` is built on this package.
 *
 * - models and weights: the built-in tiny models, a `config.json` or checkpoint directory
 *   through `@fleet/core`'s loader (`model-source`), random or safetensors weights
 *   (`weights`, `safetensors-data`)
 * - the computation: each op's numerics on whole tensors (`decode-ops`), the straight-line
 *   reference (`reference`)
 * - the schedule run with numbers: which ops a task computes (`stages`), memory versioned
 *   by producer (`versioned-memory`), the executor observing the simulation (`executor`),
 *   what a fused attention cluster computes together (`cluster-plan`)
 * - checks: `verifyDecode` (`verify`), tensor parallelism against one device
 *   (`tensor-parallel`), deliberate scheduling bugs (`fault-injection`)
 */
export * from './safetensors-data.js';
export * from './weights.js';
export * from './decode-ops.js';
export * from './reference.js';
export * from './versioned-memory.js';
export * from './stages.js';
export * from './executor.js';
export * from './verify.js';
export * from './tiny-model.js';
export * from './model-source.js';
export * from './fault-injection.js';
export * from './cluster-plan.js';
export * from './tensor-parallel.js';
