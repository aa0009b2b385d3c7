/**
 * Property-based fuzzing of Hugging Face `config.json` handling: `parseHfConfig` on values,
 * `loadModel` on files. Every input is either a model whose invariants hold (and whose decode
 * graph can be built) or a one-line `FleetError` naming the file, the field and the rule.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  buildDecodeGraph,
  loadModel,
  MAX_CONFIG_BYTES,
  MAX_DIMENSION,
  MAX_LAYERS,
  MAX_PARAMETERS,
  parameterCount,
  parseHfConfig,
  SUPPORTED_MODEL_TYPES,
  MAX_EXPERTS,
  type ModelSpec,
} from '../../src/model/index.js';
import { removeTempDirs, tempDir, TINY_CONFIG } from '../model/fixtures.js';
import { FUZZ_TIMEOUT_MS, fuzz, outcome, rejected, rejects } from './oracle.js';

vi.setConfig({ testTimeout: FUZZ_TIMEOUT_MS });
afterAll(removeTempDirs);

const ORIGIN = 'fuzz/config.json';

/** `TINY_CONFIG` without `architectures` (the fuzzed configs name only `model_type`). */
function tinyConfigFields(): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...TINY_CONFIG };
  delete fields.architectures;
  return fields;
}

/** A valid config of each supported architecture (Gemma 2 reads `hidden_activation`). */
const BASES: Record<string, Record<string, unknown>> = {
  llama: {
    model_type: 'llama',
    hidden_size: 256,
    num_hidden_layers: 2,
    num_attention_heads: 8,
    num_key_value_heads: 2,
    intermediate_size: 512,
    vocab_size: 1000,
    hidden_act: 'silu',
    torch_dtype: 'bfloat16',
    tie_word_embeddings: false,
    attention_bias: false,
  },
  // The fixtures' tiny Qwen3, in float16 with tied embeddings.
  qwen3: { ...tinyConfigFields(), torch_dtype: 'float16', tie_word_embeddings: true },
  gemma2: {
    model_type: 'gemma2',
    hidden_size: 96,
    num_hidden_layers: 3,
    num_attention_heads: 4,
    num_key_value_heads: 4,
    head_dim: 32,
    intermediate_size: 192,
    vocab_size: 512,
    hidden_activation: 'gelu_pytorch_tanh',
    torch_dtype: 'float32',
  },
};
const base = fc.constantFrom(...Object.keys(BASES)).map((k) => ({ ...BASES[k]! }));

const DIMENSIONS = ['hidden_size', 'num_hidden_layers', 'num_attention_heads', 'num_key_value_heads', 'head_dim', 'intermediate_size', 'vocab_size'];
const REQUIRED = ['model_type', 'hidden_size', 'num_hidden_layers', 'num_attention_heads', 'intermediate_size', 'vocab_size'];

/** Anything that is not a positive integer within `max` (null aside: it means "absent"). */
const badDimension = (max: number) =>
  fc.oneof(
    fc.integer({ min: -(2 ** 40), max: 0 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((x) => !Number.isInteger(x)),
    fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 0.5, 1e300, Number.MAX_VALUE, 2 ** 53, 2 ** 64),
    fc.integer({ min: max + 1, max: Number.MAX_SAFE_INTEGER }),
    fc.nat().map(String),
    fc.string(),
    fc.boolean(),
    fc.array(fc.nat({ max: 64 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.nat(), { maxKeys: 2 }),
  );

/** Checks a spec the loader accepted: it must be a model Fleet can simulate faithfully. */
function checkSpec(spec: ModelSpec, cfg: Record<string, unknown>): void {
  for (const k of ['hiddenSize', 'numHeads', 'numKvHeads', 'headDim', 'intermediateSize', 'vocabSize'] as const) {
    expect(Number.isSafeInteger(spec[k]) && spec[k] > 0 && spec[k] <= MAX_DIMENSION).toBe(true);
  }
  expect(Number.isInteger(spec.numLayers) && spec.numLayers >= 1 && spec.numLayers <= MAX_LAYERS).toBe(true);
  expect(spec.numHeads % spec.numKvHeads).toBe(0);
  if (spec.mla) expect(spec.headDim).toBe(spec.mla.nopeDim + spec.mla.ropeDim);
  else if (cfg.head_dim === undefined || cfg.head_dim === null) expect(spec.headDim * spec.numHeads).toBe(spec.hiddenSize);
  if (spec.moe) {
    const m = spec.moe;
    expect(m.expertsPerToken >= 1 && m.expertsPerToken <= m.numExperts && m.numExperts <= MAX_EXPERTS).toBe(true);
    expect(m.denseLayers.every((l) => Number.isInteger(l) && l >= 0 && l < spec.numLayers)).toBe(true);
    expect(Number.isFinite(m.routedScalingFactor) && m.routedScalingFactor > 0).toBe(true);
  }
  expect(parameterCount(spec)).toBeLessThanOrEqual(MAX_PARAMETERS);
  expect(['bf16', 'fp16', 'fp32']).toContain(spec.dtype);
  expect(['silu', 'gelu-tanh']).toContain(spec.activation);
  // The decode graph of any accepted model is cheap to build (1000 layers × ~15 ops at most).
  const g = outcome(() => buildDecodeGraph(spec, { batch: 1, contextLen: 0 }));
  expect(g.ok).toBe(true);
}

describe('config.json fuzzing: parseHfConfig', () => {
  it('an invalid dimension is refused, naming the file and the field', () => {
    const fieldAndValue = fc
      .constantFrom(...DIMENSIONS)
      .chain((field) => fc.tuple(fc.constant(field), badDimension(field === 'num_hidden_layers' ? MAX_LAYERS : MAX_DIMENSION)));
    fc.assert(
      fc.property(base, fieldAndValue, (cfg, [field, v]) => {
        rejects(() => parseHfConfig({ ...cfg, [field]: v }, ORIGIN), ORIGIN, `'${field}'`);
      }),
      fuzz(300),
    );
  });

  it('a missing required field is refused, naming it', () => {
    fc.assert(
      fc.property(base, fc.constantFrom(...REQUIRED), fc.constantFrom(undefined, null), (cfg, field, absent) => {
        const mutated: Record<string, unknown> = { ...cfg, [field]: absent };
        if (absent === undefined) delete mutated[field];
        const msg = rejects(() => parseHfConfig(mutated, ORIGIN), ORIGIN, `'${field}'`);
        expect(msg).toContain('missing');
      }),
      fuzz(60),
    );
  });

  it('a wrong type or unsupported value in any other field is refused, naming it', () => {
    const allowed: Record<string, (v: unknown) => boolean> = {
      model_type: (v) => (SUPPORTED_MODEL_TYPES as readonly unknown[]).includes(v),
      tie_word_embeddings: (v) => typeof v === 'boolean',
      attention_bias: (v) => typeof v === 'boolean',
      hidden_act: (v) => typeof v === 'string' && ['silu', 'swish', 'gelu_pytorch_tanh', 'gelu_tanh', 'gelu_new'].includes(v),
      torch_dtype: (v) => typeof v === 'string' && ['float32', 'bfloat16', 'float16'].includes(v),
      dtype: (v) => typeof v === 'string' && ['float32', 'bfloat16', 'float16'].includes(v),
    };
    const value = fc.oneof(fc.anything(), fc.constantFrom('float64', 'int8', 'relu', 'gelu', 'mixtral', 'BFloat16', '', 'true', 0, 1));
    fc.assert(
      fc.property(fc.constantFrom('llama', 'qwen3'), fc.constantFrom(...Object.keys(allowed)), value, (arch, field, v) => {
        fc.pre(v !== undefined && v !== null && !allowed[field]!(v));
        const cfg: Record<string, unknown> = { ...BASES[arch]!, [field]: v };
        // `dtype` is read only when the older `torch_dtype` is absent.
        if (field === 'dtype') delete cfg.torch_dtype;
        rejects(() => parseHfConfig(cfg, ORIGIN), ORIGIN, `'${field}'`);
      }),
      fuzz(200),
    );
  });

  it('head and KV-head counts must divide: refused with the rule, or a consistent model', () => {
    fc.assert(
      fc.property(base, fc.integer({ min: 1, max: 8192 }), fc.integer({ min: 1, max: 128 }), fc.integer({ min: 1, max: 128 }), (cfg, hidden, heads, kv) => {
        const c: Record<string, unknown> = { ...cfg, hidden_size: hidden, num_attention_heads: heads, num_key_value_heads: kv };
        delete c.head_dim;
        const o = outcome(() => parseHfConfig(c, ORIGIN));
        if (hidden % heads !== 0) expect(rejected(o, "'num_attention_heads'", "'hidden_size'")).toContain('must divide');
        else if (heads % kv !== 0) expect(rejected(o, "'num_key_value_heads'", "'num_attention_heads'")).toContain('must divide');
        else {
          expect(o.ok).toBe(true);
          if (o.ok) checkSpec(o.value, c);
        }
      }),
      fuzz(200),
    );
  });

  it('absurd sizes are refused before anything is allocated; what is accepted stays cheap', () => {
    const big = fc.oneof(fc.integer({ min: 1, max: 2 * MAX_DIMENSION }), fc.constantFrom(1, 65536, 262144, MAX_DIMENSION, MAX_DIMENSION + 1));
    fc.assert(
      fc.property(big, fc.integer({ min: 1, max: 2 * MAX_LAYERS }), fc.integer({ min: 1, max: 64 }), big, big, (hidden, layers, heads, inter, vocab) => {
        const c = {
          model_type: 'llama',
          hidden_size: hidden * heads,
          num_hidden_layers: layers,
          num_attention_heads: heads,
          intermediate_size: inter,
          vocab_size: vocab,
        };
        const o = outcome(() => parseHfConfig(c, ORIGIN));
        if (o.ok) checkSpec(o.value, c);
        else expect(rejected(o, ORIGIN)).toMatch(/absurdly large/);
      }),
      fuzz(150),
    );
  });

  it('random JSON values and random objects are refused or give a consistent model', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.object(), fc.anything()), (v) => {
        const o = outcome(() => parseHfConfig(v, ORIGIN));
        if (o.ok) checkSpec(o.value, v as Record<string, unknown>);
        else rejected(o, ORIGIN);
      }),
      fuzz(200),
    );
  });

  it('config-shaped objects with fuzzed fields are refused or give a consistent model', () => {
    const dim = fc.oneof(fc.integer({ min: 1, max: 4096 }), badDimension(MAX_DIMENSION), fc.constant(null));
    const cfg = fc.record(
      {
        model_type: fc.oneof(fc.constantFrom(...SUPPORTED_MODEL_TYPES), fc.anything()),
        hidden_size: dim,
        num_hidden_layers: fc.oneof(fc.integer({ min: 1, max: 40 }), dim),
        num_attention_heads: fc.oneof(fc.integer({ min: 1, max: 64 }), dim),
        num_key_value_heads: fc.oneof(fc.integer({ min: 1, max: 64 }), dim),
        head_dim: fc.oneof(fc.integer({ min: 1, max: 256 }), dim),
        intermediate_size: dim,
        vocab_size: dim,
        hidden_act: fc.oneof(fc.constantFrom('silu', 'gelu_pytorch_tanh'), fc.anything()),
        torch_dtype: fc.oneof(fc.constantFrom('bfloat16', 'float16', 'float32'), fc.anything()),
        tie_word_embeddings: fc.oneof(fc.boolean(), fc.anything()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(cfg, (c) => {
        const o = outcome(() => parseHfConfig(c, ORIGIN));
        if (o.ok) checkSpec(o.value, c);
        else rejected(o, ORIGIN);
      }),
      fuzz(300),
    );
  });
});

/** Tiny valid configs of the MoE / MLA architectures. */
const MOE_BASES: Record<string, Record<string, unknown>> = {
  qwen3_moe: {
    model_type: 'qwen3_moe',
    hidden_size: 64,
    num_hidden_layers: 4,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    head_dim: 16,
    intermediate_size: 128,
    moe_intermediate_size: 32,
    num_experts: 8,
    num_experts_per_tok: 2,
    norm_topk_prob: true,
    decoder_sparse_step: 1,
    mlp_only_layers: [],
    vocab_size: 256,
  },
  qwen2_moe: {
    model_type: 'qwen2_moe',
    hidden_size: 64,
    num_hidden_layers: 3,
    num_attention_heads: 4,
    num_key_value_heads: 4,
    intermediate_size: 128,
    moe_intermediate_size: 32,
    shared_expert_intermediate_size: 64,
    num_experts: 6,
    num_experts_per_tok: 2,
    vocab_size: 256,
  },
  mixtral: {
    model_type: 'mixtral',
    hidden_size: 64,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    intermediate_size: 96,
    num_local_experts: 4,
    num_experts_per_tok: 2,
    vocab_size: 256,
  },
  deepseek_v2: {
    model_type: 'deepseek_v2',
    hidden_size: 64,
    num_hidden_layers: 3,
    num_attention_heads: 4,
    num_key_value_heads: 4,
    intermediate_size: 128,
    moe_intermediate_size: 32,
    n_routed_experts: 8,
    n_shared_experts: 1,
    num_experts_per_tok: 2,
    first_k_dense_replace: 1,
    q_lora_rank: null,
    kv_lora_rank: 32,
    qk_rope_head_dim: 8,
    qk_nope_head_dim: 16,
    v_head_dim: 16,
    vocab_size: 256,
  },
  deepseek_v3: {
    model_type: 'deepseek_v3',
    hidden_size: 64,
    num_hidden_layers: 3,
    num_attention_heads: 4,
    num_key_value_heads: 4,
    intermediate_size: 128,
    moe_intermediate_size: 32,
    n_routed_experts: 16,
    n_shared_experts: 1,
    num_experts_per_tok: 4,
    first_k_dense_replace: 1,
    n_group: 4,
    topk_group: 2,
    routed_scaling_factor: 2.5,
    q_lora_rank: 24,
    kv_lora_rank: 32,
    qk_rope_head_dim: 8,
    qk_nope_head_dim: 16,
    v_head_dim: 16,
    vocab_size: 256,
  },
};
const moeBase = fc.constantFrom(...Object.keys(MOE_BASES)).map((k) => ({ ...MOE_BASES[k]! }));
/** The MoE / MLA fields, by architecture. */
const MOE_FIELDS = [
  'num_experts',
  'num_local_experts',
  'n_routed_experts',
  'num_experts_per_tok',
  'moe_intermediate_size',
  'shared_expert_intermediate_size',
  'n_shared_experts',
  'first_k_dense_replace',
  'decoder_sparse_step',
  'mlp_only_layers',
  'norm_topk_prob',
  'routed_scaling_factor',
  'scoring_func',
  'n_group',
  'topk_group',
  'q_lora_rank',
  'kv_lora_rank',
  'qk_rope_head_dim',
  'qk_nope_head_dim',
  'v_head_dim',
];

describe('config.json fuzzing: MoE and latent-attention fields', () => {
  it('every base config loads and builds a graph', () => {
    for (const [k, cfg] of Object.entries(MOE_BASES)) {
      const spec = parseHfConfig(cfg, k);
      checkSpec(spec, cfg);
      expect(spec.moe).toBeDefined();
    }
  });

  it('any value in a MoE/MLA field is refused naming the file and the field, or gives a consistent model', () => {
    const value = fc.oneof(
      fc.integer({ min: -4, max: 300 }),
      badDimension(MAX_DIMENSION),
      fc.constantFrom(null, true, 'softmax', 'sigmoid', 'relu', [0], [1, 1], [99], 0.5, 2.5),
      fc.array(fc.integer({ min: -2, max: 6 }), { maxLength: 4 }),
    );
    fc.assert(
      fc.property(moeBase, fc.constantFrom(...MOE_FIELDS), value, (cfg, field, v) => {
        const c = { ...cfg, [field]: v };
        const o = outcome(() => parseHfConfig(c, ORIGIN));
        if (o.ok) checkSpec(o.value, c);
        else rejected(o, ORIGIN);
      }),
      fuzz(400),
    );
  });

  it('top-k above the expert count is refused with both fields named', () => {
    fc.assert(
      fc.property(moeBase, fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 64 }), (cfg, experts, k) => {
        const field =
          cfg.model_type === 'mixtral'
            ? 'num_local_experts'
            : cfg.model_type === 'qwen3_moe' || cfg.model_type === 'qwen2_moe'
              ? 'num_experts'
              : 'n_routed_experts';
        const c: Record<string, unknown> = { ...cfg, [field]: experts, num_experts_per_tok: k, n_group: 1, topk_group: 1 };
        const o = outcome(() => parseHfConfig(c, ORIGIN));
        if (k > experts) expect(rejected(o, "'num_experts_per_tok'", `'${field}'`)).toContain('must be at most');
        else {
          expect(o.ok).toBe(true);
          if (o.ok) checkSpec(o.value, c);
        }
      }),
      fuzz(200),
    );
  });
});

describe('config.json fuzzing: loadModel on files', () => {
  const dir = tempDir();
  let n = 0;
  const write = (text: string): string => {
    const f = path.join(dir, `config-${n++}.json`);
    fs.writeFileSync(f, text);
    return f;
  };

  it('truncated JSON text is refused as invalid JSON, naming the file', () => {
    fc.assert(
      fc.property(base, fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), (cfg, at) => {
        const text = JSON.stringify(cfg);
        const f = write(text.slice(0, Math.floor(at * text.length)));
        expect(rejects(() => loadModel(f), f)).toContain('invalid JSON');
      }),
      fuzz(100),
    );
  });

  it('random text and random JSON in config.json are refused or give a consistent model', () => {
    const text = fc.oneof(
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v) ?? ''),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1')),
    );
    fc.assert(
      fc.property(text, (t) => {
        const f = write(t);
        const o = outcome(() => loadModel(f));
        if (o.ok) checkSpec(o.value, JSON.parse(t) as Record<string, unknown>);
        else rejected(o, f);
      }),
      fuzz(100),
    );
  });

  it('a checkpoint directory with a broken config.json is refused, naming the file', () => {
    fc.assert(
      fc.property(base, fc.constantFrom(...DIMENSIONS), badDimension(MAX_DIMENSION), (cfg, field, v) => {
        const d = path.join(dir, `ckpt-${n++}`);
        fs.mkdirSync(d);
        fs.writeFileSync(path.join(d, 'config.json'), JSON.stringify({ ...cfg, [field]: v }));
        // JSON has no NaN or Infinity: they are written as null, which means "absent".
        const o = outcome(() => loadModel(d));
        if (o.ok) expect(JSON.parse(JSON.stringify(v ?? null))).toBeNull();
        else rejected(o, path.join(d, 'config.json'));
      }),
      fuzz(60),
    );
  });
});

describe('config.json regressions', () => {
  it('a model name or path with a newline still gives a one-line error', () => {
    expect(rejects(() => loadModel('no\nsuch model'), 'no\\nsuch model')).toContain('not a preset');
    const d = path.join(tempDir(), 'two\nlines');
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, 'config.json'), '{"model_type": "llama"');
    expect(rejects(() => loadModel(d), 'two\\nlines')).toContain('invalid JSON');
  });

  it('a non-finite dimension is shown as such, not as null', () => {
    for (const v of [Number.NaN, Infinity, -Infinity]) {
      expect(rejects(() => parseHfConfig({ ...BASES.llama, hidden_size: v }, ORIGIN), "'hidden_size'")).toContain(`(${String(v)})`);
    }
  });

  it('special files are refused without being opened: /dev/zero used to exhaust memory, a FIFO to hang', () => {
    expect(rejects(() => loadModel('/dev/zero'), '/dev/zero')).toContain('must be a regular file');
    const d = tempDir();
    const fifo = path.join(d, 'config.json');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here: nothing more to check
    }
    expect(rejects(() => loadModel(fifo), fifo)).toContain('named pipe');
    expect(rejects(() => loadModel(d), fifo)).toContain('named pipe');
  });

  it('a config.json larger than any config is refused without reading it', () => {
    const f = path.join(tempDir(), 'config.json');
    fs.writeFileSync(f, '');
    fs.truncateSync(f, MAX_CONFIG_BYTES + 1); // sparse: costs no disk
    expect(rejects(() => loadModel(f), f)).toContain('too large for a config.json');
  });
});
