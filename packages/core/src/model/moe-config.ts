import { lineError, showValue } from './messages.js';
import { bool, int, present, type Cfg } from './config-fields.js';
import { MAX_EXPERTS, type MlaSpec, type MoeSpec } from './moe.js';

/**
 * The Mixture-of-Experts and latent-attention fields of a Hugging Face `config.json`, per
 * architecture, with one-line errors naming the file, the field and what is allowed.
 * (Field names and defaults are those of the transformers configuration classes.)
 */

/** `model_type`s whose FFN is a Mixture of Experts. */
export const MOE_MODEL_TYPES = ['qwen2_moe', 'qwen3_moe', 'mixtral', 'deepseek_v2', 'deepseek_v3'] as const;

function positiveNumber(cfg: Cfg, f: string, origin: string, dflt: number): number {
  if (!present(cfg, f)) return dflt;
  const v = cfg[f];
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > 1e6) throw lineError(`${origin}: field '${f}' (${showValue(v)}) must be a positive number`);
  return v;
}

function layerList(cfg: Cfg, f: string, origin: string, layers: number): number[] {
  if (!present(cfg, f)) return [];
  const v = cfg[f];
  if (!Array.isArray(v) || v.length > layers) throw lineError(`${origin}: field '${f}' (${showValue(v)}) must be a list of layer indices in 0..${layers - 1}`);
  for (const x of v) {
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x >= layers) {
      throw lineError(`${origin}: field '${f}' holds ${showValue(x)}; layer indices must be integers in 0..${layers - 1}`);
    }
  }
  return [...new Set(v as number[])].sort((a, b) => a - b);
}

function topK(cfg: Cfg, origin: string, experts: number, expertsField: string): number {
  const k = int(cfg, 'num_experts_per_tok', origin, 1, MAX_EXPERTS);
  if (k > experts) throw lineError(`${origin}: field 'num_experts_per_tok' (${k}) must be at most '${expertsField}' (${experts})`);
  return k;
}

/**
 * The MoE FFN of a config, or `undefined` for a dense model (DeepSeek with
 * `n_routed_experts: null`, Qwen with `num_experts: 0`). `dim` is the loader's dimension
 * reader (positive integer, bounded).
 */
export function parseMoe(cfg: Cfg, modelType: string, origin: string, layers: number, dim: (field: string) => number): MoeSpec | undefined {
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  if (modelType === 'mixtral') {
    const E = int(cfg, 'num_local_experts', origin, 1, MAX_EXPERTS);
    // Mixtral's router: softmax over the top-k logits, i.e. renormalised top-k probabilities.
    return {
      numExperts: E,
      expertsPerToken: topK(cfg, origin, E, 'num_local_experts'),
      expertIntermediateSize: dim('intermediate_size'),
      sharedIntermediateSize: 0,
      sharedExpertGate: false,
      denseLayers: [],
      normTopkProb: true,
      routedScalingFactor: 1,
      scoring: 'softmax',
      module: 'block_sparse_moe',
    };
  }
  if (modelType === 'qwen2_moe' || modelType === 'qwen3_moe') {
    const E = int(cfg, 'num_experts', origin, 0, MAX_EXPERTS);
    if (E === 0) return undefined;
    const k = topK(cfg, origin, E, 'num_experts');
    const step = int(cfg, 'decoder_sparse_step', origin, 1, layers, 1);
    const mlpOnly = layerList(cfg, 'mlp_only_layers', origin, layers);
    // transformers: layer l is sparse iff it is not in mlp_only_layers and (l + 1) % step == 0.
    const dense = range(layers).filter((l) => mlpOnly.includes(l) || (l + 1) % step !== 0);
    const shared = modelType === 'qwen2_moe' ? int(cfg, 'shared_expert_intermediate_size', origin, 0, 1_000_000, 0) : 0;
    return {
      numExperts: E,
      expertsPerToken: k,
      expertIntermediateSize: dim('moe_intermediate_size'),
      sharedIntermediateSize: shared,
      sharedExpertGate: shared > 0,
      denseLayers: dense,
      normTopkProb: bool(cfg, 'norm_topk_prob', origin, false),
      routedScalingFactor: 1,
      scoring: 'softmax',
      module: 'mlp',
    };
  }
  // deepseek_v2 / deepseek_v3
  if (!present(cfg, 'n_routed_experts')) return undefined;
  const E = int(cfg, 'n_routed_experts', origin, 1, MAX_EXPERTS);
  const k = topK(cfg, origin, E, 'n_routed_experts');
  const firstDense = int(cfg, 'first_k_dense_replace', origin, 0, layers, 0);
  const freq = int(cfg, 'moe_layer_freq', origin, 1, layers, 1);
  const nShared = int(cfg, 'n_shared_experts', origin, 0, MAX_EXPERTS, 0);
  const inter = dim('moe_intermediate_size');
  const scoring = present(cfg, 'scoring_func') ? cfg.scoring_func : modelType === 'deepseek_v3' ? 'sigmoid' : 'softmax';
  if (scoring !== 'softmax' && scoring !== 'sigmoid')
    throw lineError(`${origin}: field 'scoring_func' (${showValue(scoring)}) is not supported (allowed: softmax, sigmoid)`);
  // Group-limited routing: the top `topk_group` of `n_group` expert groups, then top-k within them.
  const nGroup = int(cfg, 'n_group', origin, 1, E, 1);
  if (E % nGroup !== 0) throw lineError(`${origin}: field 'n_group' (${nGroup}) must divide 'n_routed_experts' (${E})`);
  const topkGroup = int(cfg, 'topk_group', origin, 1, nGroup, 1);
  if (topkGroup * (E / nGroup) < k) {
    throw lineError(`${origin}: fields 'topk_group' (${topkGroup}) × experts per group (${E / nGroup}) must be at least 'num_experts_per_tok' (${k})`);
  }
  return {
    numExperts: E,
    expertsPerToken: k,
    expertIntermediateSize: inter,
    sharedIntermediateSize: nShared * inter,
    sharedExpertGate: false,
    // transformers: layer l is MoE iff l >= first_k_dense_replace and l % moe_layer_freq == 0.
    denseLayers: range(layers).filter((l) => l < firstDense || l % freq !== 0),
    normTopkProb: bool(cfg, 'norm_topk_prob', origin, false),
    routedScalingFactor: positiveNumber(cfg, 'routed_scaling_factor', origin, 1),
    scoring,
    module: 'mlp',
  };
}

/** DeepSeek's MLA dimensions (`q_lora_rank` may be null: a plain q projection). */
export function parseMla(cfg: Cfg, origin: string, dim: (field: string) => number): MlaSpec {
  const qLoraRank = present(cfg, 'q_lora_rank') ? dim('q_lora_rank') : null;
  const ropeDim = dim('qk_rope_head_dim');
  if (ropeDim % 2 !== 0) throw lineError(`${origin}: field 'qk_rope_head_dim' (${ropeDim}) must be even (RoPE rotates pairs)`);
  return { qLoraRank, kvLoraRank: dim('kv_lora_rank'), ropeDim, nopeDim: dim('qk_nope_head_dim'), vDim: dim('v_head_dim') };
}
