import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  activeParameterCount,
  buildDecodeGraph,
  expectedActiveExperts,
  expectedTensors,
  expertLoads,
  loadModel,
  MODEL_PRESETS,
  parameterCount,
  parseHfConfig,
  parseRouting,
  selectionProbabilities,
  type ModelSpec,
} from '../../src/model/index.js';
import { activeExpertsOf, type GroupedLinearOp } from '../../src/graph/op-graph.js';
import { fleetErrorOf, removeTempDirs, tempDir, writeSafetensors } from './fixtures.js';

afterAll(removeTempDirs);

/** The published config.json fields of the MoE presets (those the loader reads). */
const CONFIGS: Record<string, Record<string, unknown>> = {
  'qwen3-30b-a3b': {
    model_type: 'qwen3_moe',
    hidden_size: 2048,
    num_hidden_layers: 48,
    num_attention_heads: 32,
    num_key_value_heads: 4,
    head_dim: 128,
    intermediate_size: 6144,
    moe_intermediate_size: 768,
    num_experts: 128,
    num_experts_per_tok: 8,
    norm_topk_prob: true,
    decoder_sparse_step: 1,
    mlp_only_layers: [],
    vocab_size: 151936,
    tie_word_embeddings: false,
    hidden_act: 'silu',
    torch_dtype: 'bfloat16',
    attention_bias: false,
  },
  'deepseek-v2-lite': {
    model_type: 'deepseek_v2',
    hidden_size: 2048,
    num_hidden_layers: 27,
    num_attention_heads: 16,
    num_key_value_heads: 16,
    intermediate_size: 10944,
    moe_intermediate_size: 1408,
    n_routed_experts: 64,
    n_shared_experts: 2,
    num_experts_per_tok: 6,
    first_k_dense_replace: 1,
    moe_layer_freq: 1,
    norm_topk_prob: false,
    routed_scaling_factor: 1.0,
    scoring_func: 'softmax',
    topk_method: 'greedy',
    n_group: 1,
    topk_group: 1,
    q_lora_rank: null,
    kv_lora_rank: 512,
    qk_rope_head_dim: 64,
    qk_nope_head_dim: 128,
    v_head_dim: 128,
    vocab_size: 102400,
    tie_word_embeddings: false,
    hidden_act: 'silu',
    torch_dtype: 'bfloat16',
    attention_bias: false,
  },
  'deepseek-v3': {
    model_type: 'deepseek_v3',
    hidden_size: 7168,
    num_hidden_layers: 61,
    num_attention_heads: 128,
    num_key_value_heads: 128,
    intermediate_size: 18432,
    moe_intermediate_size: 2048,
    n_routed_experts: 256,
    n_shared_experts: 1,
    num_experts_per_tok: 8,
    first_k_dense_replace: 3,
    moe_layer_freq: 1,
    norm_topk_prob: true,
    routed_scaling_factor: 2.5,
    scoring_func: 'sigmoid',
    topk_method: 'noaux_tc',
    n_group: 8,
    topk_group: 4,
    q_lora_rank: 1536,
    kv_lora_rank: 512,
    qk_rope_head_dim: 64,
    qk_nope_head_dim: 128,
    v_head_dim: 128,
    vocab_size: 129280,
    tie_word_embeddings: false,
    hidden_act: 'silu',
    torch_dtype: 'bfloat16',
    attention_bias: false,
  },
  'mixtral-8x7b': {
    model_type: 'mixtral',
    hidden_size: 4096,
    num_hidden_layers: 32,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    intermediate_size: 14336,
    num_local_experts: 8,
    num_experts_per_tok: 2,
    vocab_size: 32000,
    tie_word_embeddings: false,
    hidden_act: 'silu',
    torch_dtype: 'bfloat16',
  },
};

describe('MoE and MLA configs', () => {
  it('each MoE preset is what its published config.json loads to', () => {
    for (const [name, cfg] of Object.entries(CONFIGS)) {
      expect({ ...parseHfConfig(cfg, name), name }).toEqual(MODEL_PRESETS[name]);
    }
  });

  it('counts total and active parameters as published (30.5B/3.3B, 15.7B, 671B/37B, 46.7B/12.9B)', () => {
    const b = (m: string) => [parameterCount(loadModel(m)) / 1e9, activeParameterCount(loadModel(m)) / 1e9];
    expect(b('qwen3-30b-a3b')[0]).toBeCloseTo(30.5, 0);
    expect(b('qwen3-30b-a3b')[1]).toBeCloseTo(3.3, 0);
    expect(b('deepseek-v2-lite')[0]).toBeCloseTo(15.7, 0);
    expect(b('deepseek-v3')[0]).toBeGreaterThan(670);
    expect(b('deepseek-v3')[1]).toBeCloseTo(37.5, 0);
    expect(b('mixtral-8x7b')[0]).toBeCloseTo(46.7, 0);
    expect(b('mixtral-8x7b')[1]).toBeCloseTo(12.9, 0);
  });

  it('reads dense layers from first_k_dense_replace, decoder_sparse_step and mlp_only_layers', () => {
    const q = { ...CONFIGS['qwen3-30b-a3b']!, num_hidden_layers: 6, decoder_sparse_step: 2, mlp_only_layers: [3] };
    // sparse iff (l + 1) % 2 == 0 and not in mlp_only_layers: 1 and 5
    expect(parseHfConfig(q, 'q').moe!.denseLayers).toEqual([0, 2, 3, 4]);
    const d = { ...CONFIGS['deepseek-v2-lite']!, num_hidden_layers: 5, first_k_dense_replace: 2 };
    expect(parseHfConfig(d, 'd').moe!.denseLayers).toEqual([0, 1]);
    const g = buildDecodeGraph(parseHfConfig(d, 'd'), { batch: 1, contextLen: 0 });
    expect(g.ops.some((o) => o.id === 'L1.down_proj')).toBe(true);
    expect(g.ops.some((o) => o.id === 'L2.experts_down')).toBe(true);
  });

  it('qwen2_moe: a gated shared expert; deepseek: q_lora_rank optional', () => {
    const q2 = parseHfConfig(
      { ...CONFIGS['qwen3-30b-a3b']!, model_type: 'qwen2_moe', num_experts: 60, num_experts_per_tok: 4, shared_expert_intermediate_size: 5632 },
      'q2',
    );
    expect(q2.moe).toMatchObject({ sharedIntermediateSize: 5632, sharedExpertGate: true });
    expect(q2.qkvBias).toBe(true);
    const ops = buildDecodeGraph(q2, { batch: 2, contextLen: 0 }).ops.map((o) => o.id);
    expect(ops).toContain('L0.shared_expert_gate');
    expect(loadModel('deepseek-v3').mla!.qLoraRank).toBe(1536);
    expect(buildDecodeGraph(loadModel('deepseek-v3'), { batch: 1, contextLen: 0 }).ops.map((o) => o.id)).toContain('L0.q_a_norm');
  });

  it('refuses inconsistent configs with one line naming the file, the field and the allowed values', () => {
    const q = CONFIGS['qwen3-30b-a3b']!;
    const d = CONFIGS['deepseek-v2-lite']!;
    expect(fleetErrorOf(() => parseHfConfig({ ...q, num_experts_per_tok: 129 }, 'c.json'))).toBe(
      "c.json: field 'num_experts_per_tok' (129) must be at most 'num_experts' (128)",
    );
    expect(fleetErrorOf(() => parseHfConfig({ ...CONFIGS['mixtral-8x7b']!, num_experts_per_tok: 9 }, 'c.json'))).toContain("'num_local_experts' (8)");
    expect(fleetErrorOf(() => parseHfConfig({ ...d, first_k_dense_replace: 28 }, 'c.json'))).toContain(
      "'first_k_dense_replace' (28) must be an integer in 0..27",
    );
    expect(fleetErrorOf(() => parseHfConfig({ ...q, mlp_only_layers: [48] }, 'c.json'))).toContain("'mlp_only_layers' holds 48");
    expect(fleetErrorOf(() => parseHfConfig({ ...q, decoder_sparse_step: 0 }, 'c.json'))).toContain("'decoder_sparse_step'");
    expect(fleetErrorOf(() => parseHfConfig({ ...d, scoring_func: 'relu' }, 'c.json'))).toContain('allowed: softmax, sigmoid');
    expect(fleetErrorOf(() => parseHfConfig({ ...d, kv_lora_rank: 0 }, 'c.json'))).toContain("'kv_lora_rank'");
    expect(fleetErrorOf(() => parseHfConfig({ ...d, qk_rope_head_dim: 63 }, 'c.json'))).toContain('must be even');
    expect(fleetErrorOf(() => parseHfConfig({ ...d, n_group: 3 }, 'c.json'))).toContain("'n_group' (3) must divide 'n_routed_experts' (64)");
    expect(fleetErrorOf(() => parseHfConfig({ ...d, routed_scaling_factor: -1 }, 'c.json'))).toContain("'routed_scaling_factor'");
    expect(fleetErrorOf(() => parseHfConfig({ ...q, moe_intermediate_size: undefined }, 'c.json'))).toContain("missing field 'moe_intermediate_size'");
  });

  it('cross-checks expert tensors against the checkpoint', () => {
    const cfg = {
      ...CONFIGS['mixtral-8x7b']!,
      hidden_size: 64,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      intermediate_size: 32,
      num_hidden_layers: 1,
      vocab_size: 128,
      num_local_experts: 4,
    };
    const spec = parseHfConfig(cfg, 'c');
    const tensors = expectedTensors(spec).map((t) => ({ ...t, dtype: 'BF16' }));
    expect(tensors.map((t) => t.name)).toContain('model.layers.0.block_sparse_moe.experts.3.w2.weight');
    const write = (ts: typeof tensors) => {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(cfg));
      writeSafetensors(path.join(dir, 'model.safetensors'), ts);
      return dir;
    };
    expect(loadModel(write(tensors)).moe!.numExperts).toBe(4);
    const missing = tensors.filter((t) => t.name !== 'model.layers.0.block_sparse_moe.experts.2.w1.weight');
    expect(fleetErrorOf(() => loadModel(write(missing)))).toContain("missing tensor 'model.layers.0.block_sparse_moe.experts.2.w1.weight'");
    const wrong = tensors.map((t) => (t.name.endsWith('experts.1.w3.weight') ? { ...t, shape: [16, 64] } : t));
    expect(fleetErrorOf(() => loadModel(write(wrong)))).toContain('expects [32, 64]');
  });
});

describe('routing', () => {
  const moe = { numExperts: 128, expertsPerToken: 8 };
  const active = (r: ReturnType<typeof parseRouting>, b: number) => expertLoads(r, moe, b, 0).length;

  it('uniform: E·(1 − (1 − k/E)^batch) distinct experts, batch·k token slots, at most batch per expert', () => {
    for (const b of [1, 2, 4, 16, 64, 128]) {
      const loads = expertLoads(parseRouting('uniform'), moe, b, 3);
      expect(loads.length).toBe(Math.round(128 * (1 - (1 - 8 / 128) ** b)));
      expect(loads.reduce((a, l) => a + l.tokens, 0)).toBe(8 * b);
      expect(Math.max(...loads.map((l) => l.tokens))).toBeLessThanOrEqual(b);
    }
  });

  it('active experts grow with batch; skew reaches fewer of them', () => {
    let prev = 0;
    for (const b of [1, 4, 16, 64]) {
      const u = active(parseRouting('uniform'), b);
      expect(u).toBeGreaterThanOrEqual(prev);
      prev = u;
      if (b > 1) expect(active(parseRouting('zipf:1.5'), b)).toBeLessThan(u);
    }
    expect(active(parseRouting('zipf:0'), 16)).toBe(active(parseRouting('uniform'), 16));
  });

  it('selection probabilities sum to k and never exceed 1', () => {
    const q = selectionProbabilities([0.9, 0.05, 0.03, 0.02], 2);
    expect(q[0]).toBe(1);
    expect(q.reduce((a, b) => a + b, 0)).toBeCloseTo(2, 12);
    expect(expectedActiveExperts(q, 1)).toBeCloseTo(2, 12);
  });

  it('is deterministic, and a histogram file sets the popularity', () => {
    expect(expertLoads(parseRouting('zipf:1.2'), moe, 16, 5)).toEqual(expertLoads(parseRouting('zipf:1.2'), moe, 16, 5));
    const f = path.join(tempDir(), 'counts.json');
    fs.writeFileSync(f, JSON.stringify({ counts: [10, 0, 5, 0] }));
    const loads = expertLoads(parseRouting(f), { numExperts: 4, expertsPerToken: 1 }, 8, 0);
    expect(loads.map((l) => l.expert)).toEqual([0, 2]);
    expect(fleetErrorOf(() => expertLoads(parseRouting(f), moe, 8, 0))).toContain('has 4 per-expert counts, the model has 128 experts');
  });

  it('refuses bad --routing values in one line', () => {
    expect(fleetErrorOf(() => parseRouting('zipf:x'))).toContain('zipf exponent');
    expect(fleetErrorOf(() => parseRouting('zipf:-1'))).toContain('0..8');
    expect(fleetErrorOf(() => parseRouting('/no/such/file.json'))).toContain('not uniform, zipf:<s>');
    const f = path.join(tempDir(), 'bad.json');
    fs.writeFileSync(f, JSON.stringify([1, -2]));
    expect(fleetErrorOf(() => parseRouting(f))).toContain('counts[1] (-2)');
  });

  it('the graph reads only the experts that received tokens', () => {
    const spec: ModelSpec = loadModel('qwen3-30b-a3b');
    const at = (b: number, r = 'uniform') => buildDecodeGraph(spec, { batch: b, contextLen: 10, routing: parseRouting(r) });
    const op = (g: ReturnType<typeof at>) => g.ops.find((o) => o.id === 'L0.experts_gate_up') as GroupedLinearOp;
    expect(op(at(1)).groups.length).toBe(8);
    expect(op(at(64)).groups.length).toBe(126);
    expect(activeExpertsOf(at(16)).total).toBeGreaterThan(activeExpertsOf(at(16, 'zipf:2')).total);
    expect(at(4).routing).toBe('uniform');
  });
});
