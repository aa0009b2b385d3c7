import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, it, expect } from 'vitest';
import { MODEL_PRESETS, loadModel, parseHfConfig } from '../../src/model/index.js';
import { fleetErrorOf, removeTempDirs, tempDir } from './fixtures.js';

/** The official config.json of Qwen/Qwen3-8B (fields Fleet reads, plus some it ignores). */
const QWEN3_8B = {
  architectures: ['Qwen3ForCausalLM'],
  attention_bias: false,
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151645,
  head_dim: 128,
  hidden_act: 'silu',
  hidden_size: 4096,
  initializer_range: 0.02,
  intermediate_size: 12288,
  max_position_embeddings: 40960,
  max_window_layers: 36,
  model_type: 'qwen3',
  num_attention_heads: 32,
  num_hidden_layers: 36,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-6,
  rope_scaling: null,
  rope_theta: 1000000,
  sliding_window: null,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  transformers_version: '4.51.0',
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
};

/** The official config.json of meta-llama/Llama-2-7b-hf (it has no head_dim). */
const LLAMA2_7B = {
  architectures: ['LlamaForCausalLM'],
  bos_token_id: 1,
  eos_token_id: 2,
  hidden_act: 'silu',
  hidden_size: 4096,
  initializer_range: 0.02,
  intermediate_size: 11008,
  max_position_embeddings: 4096,
  model_type: 'llama',
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 32,
  pretraining_tp: 1,
  rms_norm_eps: 1e-5,
  rope_scaling: null,
  tie_word_embeddings: false,
  torch_dtype: 'float16',
  transformers_version: '4.31.0.dev0',
  use_cache: true,
  vocab_size: 32000,
};

function writeConfig(config: unknown): string {
  const file = path.join(tempDir(), 'config.json');
  fs.writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}

afterAll(removeTempDirs);

describe('config.json parsing', () => {
  it('reads the Qwen3-8B config as the qwen3-8b preset', () => {
    const file = writeConfig(QWEN3_8B);
    // The preset leaves out the RoPE base and RMSNorm epsilon (only functional runs read them).
    expect(loadModel(file)).toEqual({ ...MODEL_PRESETS['qwen3-8b'], name: file, ropeTheta: 1000000, rmsNormEps: 1e-6 });
  });

  it('reads the Llama-2-7B config (file or directory) as the llama2-7b preset', () => {
    const file = writeConfig(LLAMA2_7B);
    expect(loadModel(file)).toEqual({ ...MODEL_PRESETS['llama2-7b'], name: file, rmsNormEps: 1e-5 });
    const dir = path.dirname(file);
    expect(loadModel(dir)).toEqual({ ...MODEL_PRESETS['llama2-7b'], name: dir, rmsNormEps: 1e-5 });
  });

  it('reads the RoPE base and RMSNorm epsilon only where the config states them (null: not stated)', () => {
    const stated = parseHfConfig({ ...LLAMA2_7B, rope_theta: 500000, rms_norm_eps: 1e-6 }, 'c');
    expect(stated).toMatchObject({ ropeTheta: 500000, rmsNormEps: 1e-6 });
    const { rms_norm_eps: _eps, ...none } = LLAMA2_7B;
    const spec = parseHfConfig({ ...none, rope_theta: null }, 'c');
    expect('ropeTheta' in spec || 'rmsNormEps' in spec).toBe(false);
  });

  it('applies defaults: kv heads = heads, head_dim = hidden / heads, newer `dtype` key', () => {
    const { num_key_value_heads: _kv, torch_dtype: _dt, ...rest } = LLAMA2_7B;
    const spec = parseHfConfig({ ...rest, dtype: 'bfloat16' }, 'config.json');
    expect(spec).toMatchObject({ numKvHeads: 32, headDim: 128, dtype: 'bf16', qkNorm: false, qkvBias: false });
  });

  it('derives qkvBias, qkNorm, Gemma 2 norms and activation from the model type', () => {
    const qwen2 = parseHfConfig({ ...LLAMA2_7B, model_type: 'qwen2' }, 'config.json');
    expect(qwen2).toMatchObject({ qkvBias: true, qkNorm: false });
    expect(parseHfConfig({ ...LLAMA2_7B, attention_bias: true }, 'c').qkvBias).toBe(true);
    const gemma = parseHfConfig(
      {
        model_type: 'gemma2',
        hidden_size: 3584,
        num_hidden_layers: 42,
        num_attention_heads: 16,
        num_key_value_heads: 8,
        head_dim: 256,
        intermediate_size: 14336,
        vocab_size: 256000,
        hidden_act: 'gelu_pytorch_tanh',
        hidden_activation: 'gelu_pytorch_tanh',
        torch_dtype: 'bfloat16',
      },
      'gemma2-9b',
    );
    expect(gemma).toEqual({ ...MODEL_PRESETS['gemma2-9b'], name: 'gemma2-9b' });
  });

  const bad: Array<[string, Record<string, unknown>, string[]]> = [
    ['missing field', { hidden_size: undefined }, ["missing field 'hidden_size'"]],
    ['non-integer dimension', { intermediate_size: 11008.5 }, ["'intermediate_size' (11008.5)", 'positive integer']],
    ['string dimension', { vocab_size: '32000' }, ["'vocab_size'", 'positive integer']],
    ['zero dimension', { num_hidden_layers: 0 }, ["'num_hidden_layers' (0)", 'positive integer']],
    ['negative dimension', { hidden_size: -4096 }, ["'hidden_size' (-4096)"]],
    ['heads not dividing hidden', { num_attention_heads: 30, num_key_value_heads: 30 }, ["'num_attention_heads' (30)", "must divide 'hidden_size' (4096)"]],
    ['kv heads not dividing heads', { num_key_value_heads: 12 }, ["config.json: field 'num_key_value_heads' (12) must divide 'num_attention_heads' (32)"]],
    ['unknown dtype', { torch_dtype: 'float8' }, ['\'torch_dtype\' ("float8")', 'float32, bfloat16, float16']],
    ['unsupported model_type', { model_type: 'gpt2' }, ['\'model_type\' ("gpt2")', 'llama, mistral, qwen2, qwen3, gemma2']],
    ['missing model_type', { model_type: undefined }, ["missing field 'model_type'", 'qwen3']],
    ['unknown activation', { hidden_act: 'relu' }, ['\'hidden_act\' ("relu")', 'silu']],
    ['non-boolean tie_word_embeddings', { tie_word_embeddings: 'no' }, ["'tie_word_embeddings'", 'true or false']],
    ['absurd dimension', { vocab_size: 2_000_000 }, ["'vocab_size' (2000000)", 'at most 1000000']],
    ['absurd layer count', { num_hidden_layers: 1001 }, ["'num_hidden_layers' (1001)", 'at most 1000']],
    ['negative RoPE base', { rope_theta: -5 }, ["config.json: field 'rope_theta' (-5) must be a positive number"]],
    ['zero RMSNorm epsilon', { rms_norm_eps: 0 }, ["config.json: field 'rms_norm_eps' (0) must be a positive number"]],
    ['string RMSNorm epsilon', { rms_norm_eps: 'small' }, ['config.json: field \'rms_norm_eps\' ("small") must be a positive number']],
    ['boolean RoPE base', { rope_theta: true }, ["config.json: field 'rope_theta' (true) must be a positive number"]],
    [
      'absurd parameter count',
      { hidden_size: 900_000, num_attention_heads: 1000, num_key_value_heads: 1000, intermediate_size: 900_000, num_hidden_layers: 1000 },
      ['total parameter count', 'at most 1e13'],
    ],
  ];
  for (const [what, patch, expected] of bad) {
    it(`rejects ${what}`, () => {
      const file = writeConfig({ ...LLAMA2_7B, ...patch });
      const msg = fleetErrorOf(() => loadModel(file));
      expect(msg.startsWith(`${file}: `)).toBe(true);
      for (const e of expected) expect(msg).toContain(e.replace(/^config\.json/, file));
    });
  }

  it('wraps invalid JSON and non-object configs', () => {
    const file = writeConfig('{ "model_type": "llama", ');
    expect(fleetErrorOf(() => loadModel(file))).toMatch(/config\.json: invalid JSON: /);
    expect(fleetErrorOf(() => parseHfConfig([1, 2], 'config.json'))).toContain('config.json: must be a JSON object');
  });

  it('rejects a directory without config.json', () => {
    const dir = tempDir();
    expect(fleetErrorOf(() => loadModel(dir))).toContain('no config.json');
  });
});
