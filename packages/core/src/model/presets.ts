import type { ModelSpec } from './model-spec.js';

/**
 * Built-in models, so that a simulation can be run without downloading anything. Values are
 * those of the official Hugging Face `config.json` of each model (repo id in a comment), so
 * a preset and the loaded `config.json` of the same model give the same `ModelSpec`.
 */
export const MODEL_PRESETS: Readonly<Record<string, Readonly<ModelSpec>>> = {
  // Qwen/Qwen3-8B
  'qwen3-8b': {
    name: 'qwen3-8b',
    hiddenSize: 4096,
    numLayers: 36,
    numHeads: 32,
    numKvHeads: 8,
    headDim: 128,
    intermediateSize: 12288,
    vocabSize: 151936,
    qkNorm: true,
    qkvBias: false,
    tieWordEmbeddings: false,
    activation: 'silu',
    normsPerLayer: 2,
    dtype: 'bf16',
  },
  // meta-llama/Llama-2-7b-hf
  'llama2-7b': {
    name: 'llama2-7b',
    hiddenSize: 4096,
    numLayers: 32,
    numHeads: 32,
    numKvHeads: 32,
    headDim: 128,
    intermediateSize: 11008,
    vocabSize: 32000,
    qkNorm: false,
    qkvBias: false,
    tieWordEmbeddings: false,
    activation: 'silu',
    normsPerLayer: 2,
    dtype: 'fp16',
  },
  // meta-llama/Meta-Llama-3-8B
  'llama3-8b': {
    name: 'llama3-8b',
    hiddenSize: 4096,
    numLayers: 32,
    numHeads: 32,
    numKvHeads: 8,
    headDim: 128,
    intermediateSize: 14336,
    vocabSize: 128256,
    qkNorm: false,
    qkvBias: false,
    tieWordEmbeddings: false,
    activation: 'silu',
    normsPerLayer: 2,
    dtype: 'bf16',
  },
  // meta-llama/Meta-Llama-3-70B
  'llama3-70b': {
    name: 'llama3-70b',
    hiddenSize: 8192,
    numLayers: 80,
    numHeads: 64,
    numKvHeads: 8,
    headDim: 128,
    intermediateSize: 28672,
    vocabSize: 128256,
    qkNorm: false,
    qkvBias: false,
    tieWordEmbeddings: false,
    activation: 'silu',
    normsPerLayer: 2,
    dtype: 'bf16',
  },
  // Qwen/Qwen2.5-32B
  'qwen2.5-32b': {
    name: 'qwen2.5-32b',
    hiddenSize: 5120,
    numLayers: 64,
    numHeads: 40,
    numKvHeads: 8,
    headDim: 128,
    intermediateSize: 27648,
    vocabSize: 152064,
    qkNorm: false,
    qkvBias: true,
    tieWordEmbeddings: false,
    activation: 'silu',
    normsPerLayer: 2,
    dtype: 'bf16',
  },
  // google/gemma-2-9b (its config.json says float32; served in bf16, as the other presets)
  'gemma2-9b': {
    name: 'gemma2-9b',
    hiddenSize: 3584,
    numLayers: 42,
    numHeads: 16,
    numKvHeads: 8,
    headDim: 256,
    intermediateSize: 14336,
    vocabSize: 256000,
    qkNorm: false,
    qkvBias: false,
    tieWordEmbeddings: true,
    activation: 'gelu-tanh',
    normsPerLayer: 4,
    dtype: 'bf16',
  },
};

/** Preset names, in declaration order (for help texts and "unknown model" errors). */
export function listPresets(): string[] {
  return Object.keys(MODEL_PRESETS);
}
