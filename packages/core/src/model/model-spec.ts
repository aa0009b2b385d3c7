import type { DType } from '../graph/op-graph.js';
import type { MlaSpec, MoeSpec } from './moe.js';

/**
 * A decoder-only transformer, normalised from a preset or a Hugging Face `config.json`
 * (and cross-checked with safetensors headers when a directory is given).
 */
export interface ModelSpec {
  /** Preset name or the directory/file it came from. */
  name: string;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  intermediateSize: number;
  vocabSize: number;
  /** Qwen3-style RMSNorm on q and k per head. */
  qkNorm: boolean;
  qkvBias: boolean;
  tieWordEmbeddings: boolean;
  activation: 'silu' | 'gelu-tanh';
  /** RMSNorms per layer: 2 (Llama, Qwen) or 4 (Gemma 2: pre and post norms). */
  normsPerLayer: 2 | 4;
  dtype: DType;
  /**
   * Mixture-of-Experts FFN (Qwen2/3-MoE, Mixtral, DeepSeek); absent: every layer is dense.
   * `intermediateSize` stays the width of the dense layers' FFN.
   */
  moe?: MoeSpec;
  /**
   * DeepSeek multi-head latent attention; absent: MHA/GQA. With it `headDim` is the q/k head
   * width (nope + rope) and `numKvHeads` equals `numHeads` (the config's value).
   */
  mla?: MlaSpec;
  /**
   * RoPE base θ (`rope_theta`) where the config states it. The timing simulation never reads
   * it; functional runs compute with it (their default where it is absent, as in the presets).
   */
  ropeTheta?: number;
  /** RMSNorm epsilon (`rms_norm_eps`) where the config states it; read as `ropeTheta` is. */
  rmsNormEps?: number;
}
