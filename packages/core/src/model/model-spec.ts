import type { DType } from '../graph/op-graph.js';

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
  /**
   * Sliding-window attention: the listed layers' queries see only the last `tokens` positions
   * (Mistral: every layer; Gemma 2: every other; Gemma 3: five of six; Qwen2/3 with
   * `use_sliding_window`: those from `max_window_layers` on). Absent: every layer attends to the
   * whole context.
   */
  slidingWindow?: SlidingWindow;
  /**
   * The checkpoint stores q, k and v as one `qkv_proj` and gate and up as one `gate_up_proj`
   * (Phi-3). The step is the same; only the names a checkpoint is checked against differ.
   */
  fusedCheckpoint?: boolean;
}

/** Layers that attend within a window of recent tokens (see `ModelSpec.slidingWindow`). */
export interface SlidingWindow {
  /** Positions a query sees, itself included. */
  tokens: number;
  /** Decoder layers (0-based, ascending) that use the window; the others attend to the whole context. */
  layers: number[];
}

/** The window decoder layer `layer` attends within, tokens, or null where it sees the whole context. */
export function attentionWindow(spec: Pick<ModelSpec, 'slidingWindow'>, layer: number): number | null {
  const w = spec.slidingWindow;
  return w?.layers.includes(layer) ? w.tokens : null;
}

/**
 * Token slots the KV cache holds over all decoder layers for a request of `tokens` tokens: a
 * windowed layer keeps its window's (a ring buffer, or a hybrid allocator's pages), the others
 * every token.
 */
export function cachedTokenLayers(spec: Pick<ModelSpec, 'slidingWindow' | 'numLayers'>, tokens: number): number {
  const w = spec.slidingWindow;
  if (!w) return spec.numLayers * tokens;
  return (spec.numLayers - w.layers.length) * tokens + w.layers.length * Math.min(tokens, w.tokens);
}

/** A Mixture-of-Experts FFN (Qwen2/3-MoE, Mixtral, DeepSeek-V2/V3). */
export interface MoeSpec {
  /** Routed experts per MoE layer. */
  numExperts: number;
  /** Experts each token is routed to (top-k). */
  expertsPerToken: number;
  /** FFN width of one routed expert (`moe_intermediate_size`; Mixtral: `intermediate_size`). */
  expertIntermediateSize: number;
  /**
   * Total FFN width of the always-active shared experts: DeepSeek `n_shared_experts` ×
   * `moe_intermediate_size`, Qwen2-MoE `shared_expert_intermediate_size`; 0 = none.
   */
  sharedIntermediateSize: number;
  /** Qwen2-MoE scales the shared expert by sigmoid(Linear(hidden → 1)). */
  sharedExpertGate: boolean;
  /** Layers whose FFN is dense (`intermediate_size`): `first_k_dense_replace`, `decoder_sparse_step`, `mlp_only_layers`. */
  denseLayers: number[];
  /** Top-k weights renormalised to sum to 1. */
  normTopkProb: boolean;
  /** Routed experts' output scale (DeepSeek `routed_scaling_factor`; 1 elsewhere). */
  routedScalingFactor: number;
  /** Router score function: softmax (Qwen, Mixtral, DeepSeek-V2) or sigmoid (DeepSeek-V3). */
  scoring: 'softmax' | 'sigmoid';
  /** Checkpoint module holding the router and experts: `mlp` (Qwen, DeepSeek) or `block_sparse_moe` (Mixtral, experts' w1/w3/w2). */
  module: 'mlp' | 'block_sparse_moe';
}

/** DeepSeek's multi-head latent attention: a compressed KV cache shared by all heads. */
export interface MlaSpec {
  /** Low-rank query compression (`q_lora_rank`); null = a plain q projection (DeepSeek-V2-Lite). */
  qLoraRank: number | null;
  /** Latent width cached per token (`kv_lora_rank`). */
  kvLoraRank: number;
  /** Rotary part of q/k per head, and of the cached token (`qk_rope_head_dim`). */
  ropeDim: number;
  /** Non-rotary part of q/k per head (`qk_nope_head_dim`). */
  nopeDim: number;
  /** Value width per head (`v_head_dim`). */
  vDim: number;
}
