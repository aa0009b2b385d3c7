import { describe, it, expect } from 'vitest';
import { DTYPE_BYTES, type LinearOp } from '../../src/graph/op-graph.js';
import { MODEL_PRESETS, buildDecodeGraph, describeModel, listPresets, loadModel, parameterCount } from '../../src/model/index.js';
import { fleetErrorOf } from './fixtures.js';

describe('model presets', () => {
  it('lists the presets: seven dense, four MoE', () => {
    expect(listPresets()).toEqual([
      'qwen3-8b',
      'llama2-7b',
      'llama3-8b',
      'llama3-70b',
      'qwen2.5-32b',
      'gemma2-9b',
      'mistral-7b',
      'qwen3-30b-a3b',
      'deepseek-v2-lite',
      'deepseek-v3',
      'mixtral-8x7b',
    ]);
    for (const name of listPresets()) expect(MODEL_PRESETS[name].name).toBe(name);
  });

  it('has the Hugging Face values of Qwen3-8B', () => {
    expect(MODEL_PRESETS['qwen3-8b']).toMatchObject({
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
    });
    expect(MODEL_PRESETS['qwen2.5-32b'].qkvBias).toBe(true);
    expect(MODEL_PRESETS['gemma2-9b']).toMatchObject({ tieWordEmbeddings: true, activation: 'gelu-tanh', normsPerLayer: 4, headDim: 256 });
    expect(MODEL_PRESETS['llama2-7b'].dtype).toBe('fp16');
  });

  it('counts parameters in the published ranges', () => {
    const b = (name: string): number => parameterCount(MODEL_PRESETS[name]) / 1e9;
    expect(b('qwen3-8b')).toBeGreaterThan(8.0);
    expect(b('qwen3-8b')).toBeLessThan(8.4);
    expect(b('llama2-7b')).toBeGreaterThan(6.6);
    expect(b('llama2-7b')).toBeLessThan(6.9);
    expect(b('llama3-8b')).toBeGreaterThan(7.9);
    expect(b('llama3-8b')).toBeLessThan(8.1);
    expect(b('llama3-70b')).toBeGreaterThan(70.0);
    expect(b('llama3-70b')).toBeLessThan(71.0);
    expect(b('qwen2.5-32b')).toBeGreaterThan(32.5);
    expect(b('qwen2.5-32b')).toBeLessThan(33.0);
    expect(b('gemma2-9b')).toBeGreaterThan(9.1);
    expect(b('gemma2-9b')).toBeLessThan(9.3);
  });

  it('loads presets case-insensitively, as copies', () => {
    const spec = loadModel('Qwen3-8B');
    expect(spec).toEqual(MODEL_PRESETS['qwen3-8b']);
    spec.numLayers = 1;
    expect(MODEL_PRESETS['qwen3-8b'].numLayers).toBe(36);
  });

  it('rejects an unknown model, listing the presets', () => {
    const msg = fleetErrorOf(() => loadModel('gpt-9'));
    expect(msg).toContain("'gpt-9'");
    expect(msg).toContain('no such file or directory');
    for (const name of listPresets()) expect(msg).toContain(name);
  });

  it('describes a model on one line', () => {
    const line = describeModel(MODEL_PRESETS['qwen3-8b']);
    expect(line).not.toContain('\n');
    expect(line).toContain('qwen3-8b');
    expect(line).toContain('8.19B params');
    expect(line).toContain('36 layers');
    expect(line).toContain('32 heads / 8 KV heads');
  });
});

describe('decode graph', () => {
  const QWEN3_LAYER_OPS = [
    'attn_norm',
    'qkv_proj',
    'qk_norm',
    'rope',
    'kv_append',
    'attention',
    'o_proj',
    'attn_residual',
    'ffn_norm',
    'gate_up_proj',
    'act_mul',
    'down_proj',
    'ffn_residual',
  ];

  it('has the expected op ids, in order, for Qwen3-8B', () => {
    const g = buildDecodeGraph(MODEL_PRESETS['qwen3-8b'], { batch: 4, contextLen: 1024 });
    expect(g).toMatchObject({ model: 'qwen3-8b', batch: 4, contextLen: 1024, layers: 36 });
    expect(g.ops.length).toBe(1 + 36 * QWEN3_LAYER_OPS.length + 3);
    expect(g.ops[0].id).toBe('embed');
    for (let l = 0; l < 36; l++) {
      const layerOps = g.ops.filter((o) => o.layer === l);
      expect(layerOps.map((o) => o.id)).toEqual(QWEN3_LAYER_OPS.map((id) => `L${l}.${id}`));
    }
    expect(g.ops.slice(-3).map((o) => [o.id, o.layer])).toEqual([
      ['final_norm', 36],
      ['lm_head', 36],
      ['argmax', 36],
    ]);
    expect(new Set(g.ops.map((o) => o.id)).size).toBe(g.ops.length);
  });

  it('has the linear weight bytes of Qwen3-8B per layer', () => {
    const g = buildDecodeGraph(MODEL_PRESETS['qwen3-8b'], { batch: 1, contextLen: 0 });
    const linears = g.ops.filter((o): o is LinearOp => o.kind === 'linear' && o.layer === 0);
    expect(linears.map((o) => [o.id, o.n, o.k])).toEqual([
      ['L0.qkv_proj', 6144, 4096],
      ['L0.o_proj', 4096, 4096],
      ['L0.gate_up_proj', 24576, 4096],
      ['L0.down_proj', 4096, 12288],
    ]);
    const byName = new Map(g.tensors.map((t) => [t.name, t]));
    const bytes = linears.reduce((sum, o) => {
      const w = byName.get(o.weight)!;
      expect(w.shape).toEqual([o.n, o.k]);
      return sum + w.shape[0] * w.shape[1] * DTYPE_BYTES[w.dtype];
    }, 0);
    expect(bytes).toBe(4096 * 6144 * 2 + 4096 * 4096 * 2 + 4096 * 24576 * 2 + 12288 * 4096 * 2);
  });

  it('declares every tensor it uses exactly once, with the right shapes', () => {
    const g = buildDecodeGraph(MODEL_PRESETS['qwen3-8b'], { batch: 2, contextLen: 99 });
    const names = g.tensors.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    const used = new Set(g.ops.flatMap((o) => [...o.inputs, ...o.outputs]));
    expect([...used].sort()).toEqual([...names].sort());
    const t = (name: string) => g.tensors.find((x) => x.name === name);
    expect(t('tokens')).toEqual({ name: 'tokens', kind: 'activation', shape: [2], dtype: 'fp32' });
    expect(t('qkv')).toMatchObject({ kind: 'activation', shape: [2, 6144], dtype: 'bf16' });
    expect(t('gate_up')?.shape).toEqual([2, 24576]);
    expect(t('logits')?.shape).toEqual([2, 151936]);
    expect(t('L5.k_cache')).toEqual({ name: 'L5.k_cache', kind: 'kv-cache', shape: [2, 8, 100, 128], dtype: 'bf16' });
    expect(t('L0.w_attn_norm')).toMatchObject({ kind: 'weight', shape: [4096] });
    expect(t('w_lm_head')?.shape).toEqual([151936, 4096]);
    const attn = g.ops.find((o) => o.id === 'L3.attention');
    expect(attn).toMatchObject({ kind: 'attention', batch: 2, heads: 32, kvHeads: 8, headDim: 128, kvLen: 100 });
    expect(g.ops.find((o) => o.id === 'L0.gate_up_proj')).toMatchObject({ gatedActivation: 'silu', weight: 'L0.w_gate_up' });
    expect(g.ops.find((o) => o.id === 'L0.qk_norm')).toMatchObject({ rows: 2 * 40, cols: 128 });
  });

  it('ties the LM head and adds post-norms for Gemma 2; no qk_norm for Llama', () => {
    const g = buildDecodeGraph(MODEL_PRESETS['gemma2-9b'], { batch: 1, contextLen: 10 });
    const ids = g.ops.filter((o) => o.layer === 0).map((o) => o.id.slice(3));
    expect(ids).toEqual([
      'attn_norm',
      'qkv_proj',
      'rope',
      'kv_append',
      'attention',
      'o_proj',
      'post_attn_norm',
      'attn_residual',
      'ffn_norm',
      'gate_up_proj',
      'act_mul',
      'down_proj',
      'post_ffn_norm',
      'ffn_residual',
    ]);
    expect(g.ops.find((o) => o.id === 'lm_head')).toMatchObject({ weight: 'w_embed', inputs: ['x', 'w_embed'] });
    expect(g.tensors.some((t) => t.name === 'w_lm_head')).toBe(false);
    expect(g.ops.find((o) => o.id === 'L0.act_mul')).toMatchObject({ activation: 'gelu-tanh', cols: 14336 });
    const llama = buildDecodeGraph(MODEL_PRESETS['llama2-7b'], { batch: 1, contextLen: 0 });
    expect(llama.ops.some((o) => o.kind === 'qk-norm')).toBe(false);
    expect(llama.tensors.find((t) => t.name === 'L0.v_cache')).toMatchObject({ shape: [1, 32, 1, 128], dtype: 'fp16' });
  });

  it('validates batch and contextLen', () => {
    const spec = MODEL_PRESETS['llama3-8b'];
    expect(fleetErrorOf(() => buildDecodeGraph(spec, { batch: 0, contextLen: 1 }))).toContain("'batch' (0)");
    expect(fleetErrorOf(() => buildDecodeGraph(spec, { batch: 4097, contextLen: 1 }))).toContain('1..4096');
    expect(fleetErrorOf(() => buildDecodeGraph(spec, { batch: 1.5, contextLen: 1 }))).toContain("'batch'");
    expect(fleetErrorOf(() => buildDecodeGraph(spec, { batch: 1, contextLen: -1 }))).toContain("'contextLen' (-1)");
    expect(fleetErrorOf(() => buildDecodeGraph(spec, { batch: 1, contextLen: 10_000_001 }))).toContain('0..10000000');
    expect(buildDecodeGraph(spec, { batch: 4096, contextLen: 10_000_000 }).ops.length).toBe(1 + 32 * 12 + 3);
  });
});
