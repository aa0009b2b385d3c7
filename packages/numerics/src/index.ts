/**
 * @fleet/numerics — the pure building blocks of functional verification: number formats,
 * reference kernels on typed arrays, low-bit codes and data layouts. Nothing here simulates
 * a machine; `@fleet/ops` reads the storage types and low-bit codes for weight bytes, and
 * `@fleet/functional` runs compiled task graphs on these kernels.
 *
 * - number formats: any float split with exact round-to-nearest-even (`float-format`), the
 *   fp32/fp16/bf16 storage types (`dtype`), a seeded generator (`random`)
 * - reference kernels: linear/GEMV, RMSNorm, residual, gated activations, argmax (`linear`,
 *   `elementwise`), RoPE (`rope`), decode attention as split-KV flash-decoding with the
 *   ClusterFusion combine (`attention`), prefill FlashAttention-2 (`flash-attention`),
 *   DeepSeek MLA with weight absorption (`mla`)
 * - `lowbit/`  `int2..int8`, `uint1..uint8`, floats `fXeYmZ` of 3–8 bits (and CDNA3's FNUZ
 *   FP8); codes and bit packing; FP8 tensors with per-tensor or per-row scales and the scaled
 *   FP8 GEMM (`fp8`)
 * - `layout/`  algebraic layouts, swizzles, register-tile reinterpretation, the mma.m16n8k16 layout
 */
export * from './random.js';
export * from './float-format.js';
export * from './dtype.js';
export * from './linear.js';
export * from './elementwise.js';
export * from './rope.js';
export * from './attention.js';
export * from './flash-attention.js';
export * from './mla.js';
export * from './lowbit/types.js';
export * from './lowbit/codec.js';
export * from './lowbit/packing.js';
export * from './lowbit/fp8.js';
export * from './layout/layout.js';
export * from './layout/swizzle.js';
export * from './layout/register-tile.js';
export * from './layout/mma.js';
