/**
 * @fleet/ops — kernels as task decompositions with data footprints, and the scheduling
 * policies that compile a decode step's op graph into a task graph.
 *
 * - `decompose/`  linear (16×64 tiles, N-split, M-tile/M-split, split-K), split-KV attention, row ops
 * - `policies/`   kernel-per-op, kernel-per-op-graph, mirage, fleet-mtile, fleet-msplit
 * - `predict/`    decode prediction: sampled positions and layers, extrapolated
 */
export * from './decompose/linear.js';
export * from './decompose/attention.js';
export * from './decompose/row-ops.js';
export { BufferTable } from './decompose/buffers.js';
export * from './policies/policy.js';
export { compilePolicy, type CompileOptions } from './policies/compile.js';
export * from './predict/decode.js';
