/**
 * The small model `fleet verify` runs by default: Qwen3-shaped (q/k-norm, GQA 4 heads over
 * 2 KV heads) but tiny — hidden 64, 2 layers, vocab 256 — so a functional decode step of
 * every policy takes milliseconds. The FFN is 512 wide so that vendor-BLAS split-K (which
 * needs K ≥ 512) and multi-task activations are exercised too.
 */
import type { ModelSpec } from '@fleet/core';

export const TINY_MODEL: ModelSpec = {
  name: 'tiny',
  hiddenSize: 64,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 16,
  intermediateSize: 512,
  vocabSize: 256,
  qkNorm: true,
  qkvBias: false,
  tieWordEmbeddings: false,
  activation: 'silu',
  normsPerLayer: 2,
  dtype: 'bf16',
};
