import { afterAll, describe, expect, it } from 'vitest';
import { loadModel, parseHfConfig } from '../../src/model/index.js';
import { fleetErrorOf, removeTempDirs, writeTinyModel, type FakeTensor } from './fixtures.js';

afterAll(removeTempDirs);

/** microsoft/Phi-3-mini-4k-instruct's config.json (the fields Fleet reads). */
const PHI3_MINI = {
  model_type: 'phi3',
  hidden_size: 3072,
  intermediate_size: 8192,
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 32,
  hidden_act: 'silu',
  sliding_window: 2047,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 32064,
};

describe('Phi-3 and Granite configs', () => {
  it('reads Phi-3: Llama-shaped layers, head dim from the hidden size, its window on every layer', () => {
    const spec = parseHfConfig(PHI3_MINI, 'phi-3-mini');
    expect(spec).toMatchObject({
      hiddenSize: 3072,
      headDim: 96,
      numKvHeads: 32,
      intermediateSize: 8192,
      vocabSize: 32064,
      fusedCheckpoint: true,
      qkNorm: false,
    });
    expect(spec.slidingWindow).toEqual({ tokens: 2047, layers: Array.from({ length: 32 }, (_, l) => l) });
    // Phi-3.5 and Phi-4 write no window.
    expect(parseHfConfig({ ...PHI3_MINI, sliding_window: null }, 'c').slidingWindow).toBeUndefined();
  });

  it("checks a Phi-3 checkpoint's fused qkv_proj and gate_up_proj tensors", () => {
    const config = {
      ...PHI3_MINI,
      hidden_size: 64,
      intermediate_size: 96,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      num_hidden_layers: 1,
      vocab_size: 128,
    };
    const t = (name: string, shape: number[]): FakeTensor => ({ name, dtype: 'BF16', shape });
    const tensors = [
      t('model.embed_tokens.weight', [128, 64]),
      t('model.layers.0.self_attn.qkv_proj.weight', [(4 + 2 * 2) * 16, 64]),
      t('model.layers.0.self_attn.o_proj.weight', [64, 64]),
      t('model.layers.0.mlp.gate_up_proj.weight', [192, 64]),
      t('model.layers.0.mlp.down_proj.weight', [64, 96]),
      t('model.layers.0.input_layernorm.weight', [64]),
      t('model.layers.0.post_attention_layernorm.weight', [64]),
      t('model.norm.weight', [64]),
      t('lm_head.weight', [128, 64]),
    ];
    expect(loadModel(writeTinyModel(config, tensors)).numLayers).toBe(1);
    const wrong = tensors.map((x) => (x.name.endsWith('gate_up_proj.weight') ? { ...x, shape: [96, 64] } : x));
    expect(fleetErrorOf(() => loadModel(writeTinyModel(config, wrong)))).toContain("'model.layers.0.mlp.gate_up_proj.weight'");
  });

  it('reads Granite as Llama-shaped layers (its multipliers scale values, not work)', () => {
    const spec = parseHfConfig(
      { ...PHI3_MINI, model_type: 'granite', sliding_window: undefined, embedding_multiplier: 12, residual_multiplier: 0.22 },
      'granite',
    );
    expect(spec).toMatchObject({ headDim: 96, qkvBias: false });
    expect(spec.fusedCheckpoint).toBeUndefined();
    expect(spec.slidingWindow).toBeUndefined();
  });
});
