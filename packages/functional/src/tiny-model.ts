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

/**
 * `fleet verify --model tiny-moe`: the tiny model with a Mixture-of-Experts FFN in layer 1 (8
 * experts of 32, top-2, renormalised, a gated 64-wide shared expert as in Qwen2-MoE) after a
 * dense layer 0, so routing, dispatch, grouped GEMMs and the combine are all exercised.
 */
export const TINY_MOE_MODEL: ModelSpec = {
  ...TINY_MODEL,
  name: 'tiny-moe',
  moe: {
    numExperts: 8,
    expertsPerToken: 2,
    expertIntermediateSize: 32,
    sharedIntermediateSize: 64,
    sharedExpertGate: true,
    denseLayers: [0],
    normTopkProb: true,
    routedScalingFactor: 1,
    scoring: 'softmax',
    module: 'mlp',
  },
};

/**
 * `fleet verify --model tiny-mla`: tiny-moe with DeepSeek's latent attention (q LoRA 32, latent
 * 32 + rope 8, nope 16, v 16 per head), so the q compression, the absorbed W_UK/W_UV, the
 * latent cache and its append are exercised beside the experts.
 */
export const TINY_MLA_MODEL: ModelSpec = {
  ...TINY_MOE_MODEL,
  name: 'tiny-mla',
  numKvHeads: 4,
  headDim: 24,
  qkNorm: false,
  mla: { qLoraRank: 32, kvLoraRank: 32, ropeDim: 8, nopeDim: 16, vDim: 16 },
};
