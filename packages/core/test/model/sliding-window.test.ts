import { describe, expect, it } from 'vitest';
import type { AttentionOp } from '../../src/graph/op-graph.js';
import { attentionWindow } from '../../src/model/model-spec.js';
import { MODEL_PRESETS, buildDecodeGraph, buildPrefillGraph, parseHfConfig } from '../../src/model/index.js';
import { fleetErrorOf } from './fixtures.js';

/** mistralai/Mistral-7B-v0.1's config.json (the fields Fleet reads). */
const MISTRAL_7B = {
  model_type: 'mistral',
  hidden_size: 4096,
  intermediate_size: 14336,
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  hidden_act: 'silu',
  sliding_window: 4096,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 32000,
};

const windowed = (cfg: Record<string, unknown>) => parseHfConfig(cfg, 'config.json').slidingWindow;
const attention = (g: ReturnType<typeof buildDecodeGraph>, layer: number) => g.ops.find((o) => o.kind === 'attention' && o.layer === layer) as AttentionOp;

describe('sliding-window attention in config.json', () => {
  it('reads Mistral-7B-v0.1 as the mistral-7b preset: every layer within 4096 tokens', () => {
    expect(parseHfConfig(MISTRAL_7B, 'mistral-7b')).toEqual(MODEL_PRESETS['mistral-7b']);
  });

  it("follows each architecture's rule and defaults", () => {
    // Mistral: absent means MistralConfig's 4096; null means full attention.
    const { sliding_window: _w, ...noWindow } = MISTRAL_7B;
    expect(windowed(noWindow)?.tokens).toBe(4096);
    expect(windowed({ ...MISTRAL_7B, sliding_window: null })).toBeUndefined();
    // Qwen2/3: only with use_sliding_window, from max_window_layers on.
    const qwen = { ...MISTRAL_7B, model_type: 'qwen2', sliding_window: 32768, max_window_layers: 28 };
    expect(windowed(qwen)).toBeUndefined();
    expect(windowed({ ...qwen, use_sliding_window: true })).toEqual({ tokens: 32768, layers: [28, 29, 30, 31] });
    // Gemma 2: the even layers; Gemma 3: all but every sixth.
    expect(windowed({ ...MISTRAL_7B, model_type: 'gemma2', num_hidden_layers: 6 })).toEqual({ tokens: 4096, layers: [0, 2, 4] });
    const { hidden_act: _act, tie_word_embeddings: _tie, ...bare } = MISTRAL_7B;
    const gemma3 = parseHfConfig({ ...bare, model_type: 'gemma3_text', num_hidden_layers: 12, sliding_window: 1024 }, 'c');
    expect(gemma3.slidingWindow).toEqual({ tokens: 1024, layers: [0, 1, 2, 3, 4, 6, 7, 8, 9, 10] });
    expect(gemma3).toMatchObject({ headDim: 256, qkNorm: true, normsPerLayer: 4, tieWordEmbeddings: true, activation: 'gelu-tanh' });
    // Llama has no window whatever the field says.
    expect(windowed({ ...MISTRAL_7B, model_type: 'llama' })).toBeUndefined();
  });

  it("reads a Gemma 3 multimodal config's language model (google/gemma-3-12b-it)", () => {
    const spec = parseHfConfig(
      {
        architectures: ['Gemma3ForConditionalGeneration'],
        model_type: 'gemma3',
        torch_dtype: 'bfloat16',
        text_config: {
          hidden_size: 3840,
          intermediate_size: 15360,
          model_type: 'gemma3_text',
          num_attention_heads: 16,
          num_hidden_layers: 48,
          num_key_value_heads: 8,
          rope_scaling: { factor: 8.0, rope_type: 'linear' },
          sliding_window: 1024,
        },
        vision_config: { model_type: 'siglip_vision_model' },
      },
      'gemma-3-12b-it',
    );
    expect(spec).toMatchObject({
      hiddenSize: 3840,
      numLayers: 48,
      headDim: 256,
      vocabSize: 262208,
      qkNorm: true,
      normsPerLayer: 4,
      tieWordEmbeddings: true,
      dtype: 'bf16',
    });
    expect(spec.slidingWindow?.tokens).toBe(1024);
    expect(spec.slidingWindow?.layers).toHaveLength(40);
  });

  it('takes an explicit layer_types list over the rule', () => {
    const types = Array.from({ length: 32 }, (_, l) => (l % 4 === 3 ? 'full_attention' : 'sliding_attention'));
    expect(windowed({ ...MISTRAL_7B, layer_types: types })?.layers).toHaveLength(24);
    expect(windowed({ ...MISTRAL_7B, layer_types: types.map(() => 'full_attention') })).toBeUndefined();
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['a zero window', { sliding_window: 0 }, "config.json: field 'sliding_window' (0) must be an integer in 1..1073741824"],
    [
      'an unknown layer type',
      { layer_types: Array(32).fill('chunked_attention') },
      'config.json: field \'layer_types\' holds "chunked_attention" (allowed: full_attention, sliding_attention)',
    ],
    [
      'a layer_types list of the wrong length',
      { layer_types: ['full_attention'] },
      'config.json: field \'layer_types\' (["full_attention"]) must list one attention type per layer (32)',
    ],
    [
      'sliding layers without a window',
      { sliding_window: null, layer_types: Array(32).fill('sliding_attention') },
      "config.json: field 'layer_types' names sliding-attention layers but 'sliding_window' is unset (a positive integer)",
    ],
  ];
  for (const [what, patch, message] of bad) {
    it(`rejects ${what}`, () => {
      expect(fleetErrorOf(() => parseHfConfig({ ...MISTRAL_7B, ...patch }, 'config.json'))).toBe(message);
    });
  }
});

describe('sliding-window attention in the step graph', () => {
  const gemma = MODEL_PRESETS['gemma2-9b'];

  it('a decode token attends to the window alone in a windowed layer, the whole context in a global one', () => {
    const g = buildDecodeGraph(gemma, { batch: 2, contextLen: 9999 });
    expect(attentionWindow(gemma, 0)).toBe(4096);
    expect(attentionWindow(gemma, 1)).toBeNull();
    expect(attention(g, 0).kvLen).toBe(4096);
    expect(attention(g, 1).kvLen).toBe(10000);
    expect(g.tensors.find((t) => t.name === 'L0.k_cache')?.shape).toEqual([2, 8, 4096, 256]);
  });

  it('leaves a context within the window untouched: every layer the same attention', () => {
    const g = buildDecodeGraph(gemma, { batch: 1, contextLen: 4095 });
    expect(attention(g, 0)).toEqual({
      ...attention(g, 1),
      id: 'L0.attention',
      layer: 0,
      kCache: 'L0.k_cache',
      vCache: 'L0.v_cache',
      inputs: ['qkv', 'L0.k_cache', 'L0.v_cache'],
    });
    expect(attention(g, 0).window).toBeUndefined();
  });

  it('a prefill attention carries the window where it cuts the causal span', () => {
    const long = buildPrefillGraph(MODEL_PRESETS['mistral-7b'], { batch: 1, promptLen: 8192 });
    expect(attention(long, 0)).toMatchObject({ kvLen: 8192, queryLen: 8192, window: 4096 });
    const short = buildPrefillGraph(MODEL_PRESETS['mistral-7b'], { batch: 1, promptLen: 4096 });
    expect(attention(short, 0).window).toBeUndefined();
  });
});
