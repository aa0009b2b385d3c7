import type { DType } from '../graph/op-graph.js';
import type { ModelSpec } from './model-spec.js';
import { readBoundedText } from './files.js';
import { lineError, oneLine, showValue } from './messages.js';
import { parameterCount } from './parameters.js';
import { MOE_MODEL_TYPES, parseMla, parseMoe } from './moe-config.js';
import { parseNumerics } from './hf-numerics.js';
import { parseSlidingWindow } from './window-config.js';

/**
 * Reading a Hugging Face `config.json` into a `ModelSpec`: the one reader of config files in
 * Fleet (shapes, MoE and latent attention, and the RoPE base and RMSNorm epsilon functional
 * runs compute with). Only decoder-only architectures whose decode step `buildDecodeGraph`
 * models faithfully are accepted; anything else is rejected rather than silently simulated
 * as something it is not.
 */

/** `model_type` values whose layers match the op graph of `buildDecodeGraph`. */
export const SUPPORTED_MODEL_TYPES = ['llama', 'mistral', 'qwen2', 'qwen3', 'gemma2', 'gemma3_text', 'phi3', 'granite', ...MOE_MODEL_TYPES] as const;

/** `torch_dtype` / `dtype` values and the Fleet dtype they map to. */
const HF_DTYPES: Record<string, DType> = { float32: 'fp32', bfloat16: 'bf16', float16: 'fp16' };

/** `hidden_act` / `hidden_activation` values and the activation they are. */
const HF_ACTIVATIONS: Record<string, ModelSpec['activation']> = {
  silu: 'silu',
  swish: 'silu',
  gelu_pytorch_tanh: 'gelu-tanh',
  gelu_tanh: 'gelu-tanh',
  gelu_new: 'gelu-tanh',
};

/** Any single dimension above this is a corrupt file, not a model. */
export const MAX_DIMENSION = 1_000_000;
export const MAX_LAYERS = 1000;
export const MAX_PARAMETERS = 1e13;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `null` in a config means "not set" (e.g. Mistral's `head_dim: null`). */
function present(cfg: Record<string, unknown>, field: string): boolean {
  return cfg[field] !== undefined && cfg[field] !== null;
}

function dimension(cfg: Record<string, unknown>, field: string, origin: string, max: number): number {
  if (!present(cfg, field)) throw lineError(`${origin}: missing field '${field}' (a positive integer)`);
  const v = cfg[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
    throw lineError(`${origin}: field '${field}' (${showValue(v)}) must be a positive integer`);
  }
  if (v > max) throw lineError(`${origin}: field '${field}' (${v}) is absurdly large (at most ${max})`);
  return v;
}

function optionalBoolean(cfg: Record<string, unknown>, field: string, origin: string, dflt: boolean): boolean {
  if (!present(cfg, field)) return dflt;
  const v = cfg[field];
  if (typeof v !== 'boolean') throw lineError(`${origin}: field '${field}' (${showValue(v)}) must be true or false`);
  return v;
}

function optionalChoice<T>(cfg: Record<string, unknown>, fields: readonly string[], table: Record<string, T>, origin: string, dflt: T): T {
  const field = fields.find((f) => present(cfg, f));
  if (field === undefined) return dflt;
  const v = cfg[field];
  if (typeof v !== 'string' || !Object.hasOwn(table, v)) {
    throw lineError(`${origin}: field '${field}' (${showValue(v)}) is not supported (allowed: ${Object.keys(table).join(', ')})`);
  }
  return table[v];
}

/**
 * Normalise a parsed Hugging Face `config.json`. `origin` names the file in error messages;
 * it is also the spec's `name`.
 */
export function parseHfConfig(json: unknown, origin: string): ModelSpec {
  if (!isObject(json)) throw lineError(`${origin}: must be a JSON object, found ${showValue(json)}`);
  const cfg = json;
  // Gemma 3's multimodal checkpoints wrap their language model's config in `text_config`
  // (written sparsely, on Gemma3TextConfig's defaults): a decode step is that model's.
  if (cfg.model_type === 'gemma3' && isObject(cfg.text_config)) {
    return parseHfConfig({ torch_dtype: cfg.torch_dtype, ...cfg.text_config, model_type: 'gemma3_text' }, origin);
  }
  const supported = SUPPORTED_MODEL_TYPES.join(', ');
  if (!present(cfg, 'model_type')) throw lineError(`${origin}: missing field 'model_type' (supported: ${supported})`);
  const modelType = cfg.model_type;
  if (typeof modelType !== 'string' || !(SUPPORTED_MODEL_TYPES as readonly string[]).includes(modelType)) {
    throw lineError(`${origin}: field 'model_type' (${showValue(modelType)}) is not supported (supported: ${supported})`);
  }

  const hiddenSize = dimension(cfg, 'hidden_size', origin, MAX_DIMENSION);
  const numLayers = dimension(cfg, 'num_hidden_layers', origin, MAX_LAYERS);
  const isDeepSeek = modelType === 'deepseek_v2' || modelType === 'deepseek_v3';
  const dim = (field: string) => dimension(cfg, field, origin, MAX_DIMENSION);
  const mla = isDeepSeek ? parseMla(cfg, origin, dim) : undefined;
  const numHeads = dimension(cfg, 'num_attention_heads', origin, MAX_DIMENSION);
  const numKvHeads = present(cfg, 'num_key_value_heads') ? dimension(cfg, 'num_key_value_heads', origin, MAX_DIMENSION) : numHeads;
  let headDim: number;
  if (mla) {
    // MLA: q and k heads are nope + rope wide; `head_dim` (if any) is not used by the model.
    headDim = mla.nopeDim + mla.ropeDim;
  } else if (present(cfg, 'head_dim')) {
    headDim = dimension(cfg, 'head_dim', origin, MAX_DIMENSION);
  } else if (modelType === 'gemma3_text') {
    // Gemma3TextConfig's default: heads 256 wide whatever the hidden size.
    headDim = 256;
  } else {
    if (hiddenSize % numHeads !== 0) {
      throw lineError(`${origin}: field 'num_attention_heads' (${numHeads}) must divide 'hidden_size' (${hiddenSize}) when 'head_dim' is absent`);
    }
    headDim = hiddenSize / numHeads;
  }
  if (numHeads % numKvHeads !== 0) {
    throw lineError(`${origin}: field 'num_key_value_heads' (${numKvHeads}) must divide 'num_attention_heads' (${numHeads})`);
  }
  const intermediateSize = dimension(cfg, 'intermediate_size', origin, MAX_DIMENSION);
  // Gemma3TextConfig's default vocabulary, which Gemma 3's multimodal configs leave out.
  const vocabSize = modelType === 'gemma3_text' && !present(cfg, 'vocab_size') ? 262_208 : dimension(cfg, 'vocab_size', origin, MAX_DIMENSION);
  const moe = (MOE_MODEL_TYPES as readonly string[]).includes(modelType) ? parseMoe(cfg, modelType, origin, numLayers, dim) : undefined;

  const isGemma = modelType === 'gemma2' || modelType === 'gemma3_text';
  // Gemma ties embeddings by default and its MLP reads `hidden_activation`.
  const tieWordEmbeddings = optionalBoolean(cfg, 'tie_word_embeddings', origin, isGemma);
  const attentionBias = optionalBoolean(cfg, 'attention_bias', origin, false);
  if (mla && attentionBias) throw lineError(`${origin}: field 'attention_bias' (true) is not supported with latent attention (allowed: false)`);
  const activation = optionalChoice(
    cfg,
    isGemma ? ['hidden_activation', 'hidden_act'] : ['hidden_act'],
    HF_ACTIVATIONS,
    origin,
    isGemma ? 'gelu-tanh' : 'silu',
  );
  // Newer transformers write `dtype`, older ones `torch_dtype`; absent means the usual bf16.
  const dtype = optionalChoice(cfg, ['torch_dtype', 'dtype'], HF_DTYPES, origin, 'bf16');

  const spec: ModelSpec = {
    name: origin,
    hiddenSize,
    numLayers,
    numHeads,
    numKvHeads,
    headDim,
    intermediateSize,
    vocabSize,
    qkNorm: modelType === 'qwen3' || modelType === 'qwen3_moe' || modelType === 'gemma3_text',
    qkvBias: modelType === 'qwen2' || modelType === 'qwen2_moe' || attentionBias,
    tieWordEmbeddings,
    activation,
    normsPerLayer: isGemma ? 4 : 2,
    dtype,
    ...(moe ? { moe } : {}),
    ...(mla ? { mla } : {}),
  };
  const window = parseSlidingWindow(cfg, modelType, origin, numLayers);
  if (window) spec.slidingWindow = window;
  if (modelType === 'phi3') spec.fusedCheckpoint = true;
  const params = parameterCount(spec);
  if (params > MAX_PARAMETERS) {
    throw lineError(`${origin}: total parameter count (${params.toExponential(2)}) is absurdly large (at most 1e13)`);
  }
  return { ...spec, ...parseNumerics(cfg, origin) };
}

/** A `config.json` is a few kilobytes: a larger file is something else (a shard, a dump) and is not read whole. */
export const MAX_CONFIG_BYTES = 16 * 2 ** 20;

/** Read and parse a `config.json` file; I/O and JSON errors become one-line `FleetError`s. */
export function readHfConfig(path: string): ModelSpec {
  const text = readBoundedText(path, MAX_CONFIG_BYTES, 'a config.json');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw lineError(`${path}: invalid JSON: ${oneLine(e)}`);
  }
  return parseHfConfig(json, path);
}
