import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDecodeGraph, checkTaskGraph, loadModel, readSafetensorsHeader, type TaskGraph } from '@fleet/core';
import { BUILTIN_POLICIES, compilePolicy } from '@fleet/ops';
import {
  allocateState,
  checkpointTensorsOf,
  DEFAULT_SEMANTICS,
  dropDependency,
  loadCheckpointWeights,
  loadFunctionalModel,
  randomWeights,
  referenceStep,
  SafetensorsFile,
  semanticsOf,
  stagesOf,
  TINY_MODEL,
  verifyDecode,
  writeSafetensors,
} from '../src/index.js';
import { mi350Backend } from './helpers.js';

const backend = mi350Backend();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-functional-'));
  dirs.push(d);
  return d;
}

describe('functional execution of every policy', () => {
  for (const p of BUILTIN_POLICIES.filter((x) => x.name !== 'clusterfusion' && x.functional(TINY_MODEL) === null)) {
    it(`${p.name} on ${backend.name} reproduces the straight-line logits`, () => {
      const r = verifyDecode(backend, TINY_MODEL, { policy: p.name, steps: 2 });
      expect(r.status, r.reason).toBe('pass');
      expect(r.steps).toHaveLength(2);
      expect(r.maxRelError).toBeLessThanOrEqual(r.tolerance);
      expect(r.steps.every((s) => s.tokenMismatches === 0)).toBe(true);
    });
  }

  it('covers several batch tiles, GQA without q/k-norm, Gemma-style norms and tied embeddings', () => {
    const gemmaish = { ...TINY_MODEL, qkNorm: false, numKvHeads: 1, normsPerLayer: 4 as const, activation: 'gelu-tanh' as const, tieWordEmbeddings: true };
    for (const policy of ['kernel-per-op', 'mirage', 'fleet-msplit']) {
      expect(verifyDecode(backend, TINY_MODEL, { policy, batch: 18, steps: 1, contextLen: 40 }).status).toBe('pass');
      expect(verifyDecode(backend, gemmaish, { policy, batch: 3, steps: 1, contextLen: 0 }).status).toBe('pass');
    }
  });

  it('exercises split-K partial sums and multi-chunk flash-decoding in the tiny model', () => {
    const graph = buildDecodeGraph(TINY_MODEL, { batch: 2, contextLen: 300 });
    const kpo = compilePolicy(graph, BUILTIN_POLICIES.find((p) => p.name === 'kernel-per-op')!, backend, { layers: [0, 1] });
    const down = kpo.tasks.filter((t) => t.opId === 'L0.down_proj');
    expect(down.length).toBe(2);
    expect(down.every((t) => t.tiles[0]!.reads.some((r) => r.rows !== undefined))).toBe(true);
    const att = kpo.tasks.filter((t) => t.kind === 'attention' && t.layer === 0);
    expect(att.every((t) => t.tiles.length === 2)).toBe(true);
  });
});

/** The tiny model's error with one dependency removed (the static checker still accepts the graph). */
function errorWithout(policy: string, opId: string): number {
  const r = verifyDecode(backend, TINY_MODEL, {
    policy,
    steps: 1,
    transform: (tg) => {
      const g = dropDependency(tg, opId);
      checkTaskGraph(g, backend.topology.partitions.computeUnits.length);
      return g;
    },
  });
  expect(r.status).toBe('fail');
  return r.maxRelError;
}

describe('a dropped dependency edge makes verification fail', () => {
  it('persistent graphs: tasks that stop waiting read stale activations', () => {
    for (const policy of ['mirage', 'fleet-mtile']) {
      expect(verifyDecode(backend, TINY_MODEL, { policy, steps: 1 }).maxRelError).toBeLessThan(1e-6);
      // The LM head runs before the final norm: it reads the zeros the buffer started with.
      expect(errorWithout(policy, 'lm_head')).toBeGreaterThan(0.5);
      // The FFN of layer 0 runs on the attention-norm output instead of the FFN norm's.
      expect(errorWithout(policy, 'L0.gate_up_proj')).toBeGreaterThan(0.1);
    }
  });

  it('removing one waits entry from one task is enough', () => {
    const r = verifyDecode(backend, TINY_MODEL, {
      policy: 'mirage',
      steps: 1,
      transform: (tg: TaskGraph) => {
        const t = tg.tasks.find((x) => x.opId === 'L1.o_proj' && x.tiles.length > 0)!;
        t.waits = [];
        return tg;
      },
    });
    expect(r.status).toBe('fail');
    expect(r.maxRelError).toBeGreaterThan(0.05);
  });

  it('kernel-per-op graphs: a kernel launched together with its producer reads stale data', () => {
    expect(errorWithout('kernel-per-op', 'L1.o_proj')).toBeGreaterThan(0.05);
    expect(errorWithout('kernel-per-op-graph', 'lm_head')).toBeGreaterThan(0.5);
  });

  it('a split-K tile summing the wrong K range is caught', () => {
    // 8 rows: hipBLASLt splits down_proj's K over two workgroups (wvSplitK, at 1–4 rows,
    // splits K only across the lanes of a wave).
    const r = verifyDecode(backend, TINY_MODEL, {
      policy: 'kernel-per-op',
      batch: 8,
      steps: 1,
      transform: (tg) => {
        const parts = tg.tasks.filter((t) => t.opId === 'L1.down_proj');
        // Both halves now read the first half of K.
        const first = parts[0]!.tiles[0]!.reads;
        parts[1]!.tiles[0]!.reads = first.map((x) => ({ ...x }));
        return tg;
      },
    });
    expect(r.status).toBe('fail');
  });

  it("Mirage's split-K residual linears (MPK's ROCm grid on MI350) sum every K-part before the residual; a lost part is caught", () => {
    // The tiny model's down_proj (K = 512) splits into two K-parts on MI350's 248 workers.
    const split = (tg: TaskGraph) => tg.tasks.filter((t) => t.opId === 'L1.down_proj');
    let parts = 0;
    const ok = verifyDecode(backend, TINY_MODEL, {
      policy: 'mirage',
      batch: 3,
      steps: 2,
      transform: (tg) => {
        parts = split(tg).length;
        return tg;
      },
    });
    expect(parts).toBe(2);
    expect(ok.status).toBe('pass');
    expect(ok.maxRelError).toBe(0);
    const lost = verifyDecode(backend, TINY_MODEL, {
      policy: 'mirage',
      steps: 1,
      transform: (tg) => {
        const first = split(tg)[0]!;
        first.tiles = first.tiles.map((t) => ({ ...t, writes: [] }));
        return tg;
      },
    });
    expect(lost.status).toBe('fail');
  });

  it('a greedy token computed from stale logits is caught even when the logits are right', () => {
    const r = verifyDecode(backend, TINY_MODEL, { policy: 'mirage', steps: 1, transform: (tg) => dropDependency(tg, 'argmax') });
    expect(r.status).toBe('fail');
    expect(r.maxRelError).toBe(0);
    expect(r.reason).toMatch(/greedy tokens/);
  });
});

describe('stages of compiled tasks', () => {
  it('fuse the attention prologue under persistent policies and residual + norm under kernel-per-op', () => {
    const graph = buildDecodeGraph(TINY_MODEL, { batch: 1, contextLen: 4 });
    const mirage = compilePolicy(graph, BUILTIN_POLICIES.find((p) => p.name === 'mirage')!, backend, { layers: [0, 1] });
    const st = stagesOf(graph, mirage);
    const att = mirage.tasks.findIndex((t) => t.kind === 'attention');
    expect(st[att]!.ops.map((o) => o.kind)).toEqual(['qk-norm', 'rope', 'kv-append', 'attention']);
    const o = mirage.tasks.findIndex((t) => t.opId === 'L0.o_proj');
    expect(st[o]!.ops.map((x) => x.kind)).toEqual(['linear', 'residual']);
    const kpo = compilePolicy(graph, BUILTIN_POLICIES.find((p) => p.name === 'kernel-per-op')!, backend, { layers: [0, 1] });
    const k = kpo.tasks.findIndex((t) => t.opId === 'L0.ffn_residual');
    expect(stagesOf(graph, kpo)[k]!.ops.map((x) => x.id)).toEqual(['L0.ffn_residual', 'L1.attn_norm']);
  });
});

describe('the straight-line reference', () => {
  it('keeps requests independent and is deterministic', () => {
    const w = randomWeights(TINY_MODEL, 4);
    const graph = buildDecodeGraph(TINY_MODEL, { batch: 2, contextLen: 0 });
    const run = (t0: number, t1: number) => {
      const s = allocateState(graph);
      s.get('tokens')!.set([t0, t1]);
      referenceStep(graph, w, DEFAULT_SEMANTICS, s);
      return s.get('logits')!;
    };
    const a = run(3, 9);
    const b = run(3, 200);
    expect(Array.from(a.subarray(0, 256))).toEqual(Array.from(b.subarray(0, 256)));
    expect(Array.from(a.subarray(256))).not.toEqual(Array.from(b.subarray(256)));
    expect(Array.from(run(3, 9))).toEqual(Array.from(a));
    expect(a.every((x) => Number.isFinite(x))).toBe(true);
  });
});

describe('checkpoints', () => {
  it('round-trips BF16, F16 and F32 tensors through a safetensors file core can read', () => {
    const dir = tempDir();
    const file = path.join(dir, 'x.safetensors');
    const data = Float32Array.from([1, -2.5, 3.140625, 1e-3, 65504, 0]);
    writeSafetensors(file, [
      { name: 'a', dtype: 'BF16', shape: [2, 3], data },
      { name: 'b', dtype: 'F16', shape: [6], data },
      { name: 'c', dtype: 'F32', shape: [3, 2], data },
    ]);
    expect(readSafetensorsHeader(file).tensors.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    const f = new SafetensorsFile(file);
    expect(Array.from(f.read('c').data)).toEqual(Array.from(data));
    expect(f.read('a').shape).toEqual([2, 3]);
    expect(f.read('a').data[2]).toBe(3.140625);
    expect(f.read('b').data[3]).toBeCloseTo(1e-3, 6);
    expect(f.read('a').data[3]).not.toBe(f.read('c').data[3]); // bf16 rounded
    expect(() => f.read('zz')).toThrow(/no tensor 'zz'/);
  });

  it('loads a config.json + safetensors checkpoint and verifies with its weights and RoPE base', () => {
    const dir = tempDir();
    const cfg = {
      model_type: 'qwen3',
      hidden_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      head_dim: 16,
      intermediate_size: 128,
      vocab_size: 256,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      rope_theta: 1000000,
      rms_norm_eps: 1e-5,
    };
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(cfg));
    const spec = loadModel(path.join(dir, 'config.json'));
    const w = randomWeights(spec, 9);
    const tensors = checkpointTensorsOf(spec, w);
    // Two shards, as large checkpoints come.
    writeSafetensors(path.join(dir, 'model-00001-of-00002.safetensors'), tensors.slice(0, 10));
    writeSafetensors(path.join(dir, 'model-00002-of-00002.safetensors'), tensors.slice(10));
    const m = loadFunctionalModel(dir);
    expect(m.weightsFrom).toBe('checkpoint');
    expect(m.semantics).toEqual({ ropeTheta: 1000000, eps: 1e-5 });
    const back = loadCheckpointWeights(dir, m.spec);
    for (const [name, data] of w) expect(Array.from(back.get(name)!), name).toEqual(Array.from(data));
    const r = verifyDecode(backend, m.spec, { policy: 'fleet-mtile', weights: m.weights, semantics: m.semantics, steps: 1 });
    expect(r.status).toBe('pass');
  });

  it('takes the RoPE base and RMSNorm epsilon from the model loader; a config.json alone runs on random weights', () => {
    const cfg = { model_type: 'llama', hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 4, intermediate_size: 128, vocab_size: 256 };
    const file = path.join(tempDir(), 'config.json');
    fs.writeFileSync(file, JSON.stringify({ ...cfg, rope_theta: 500000 }));
    const m = loadFunctionalModel(file);
    expect(m.weightsFrom).toBe('random');
    expect(m.semantics).toEqual({ ropeTheta: 500000 });
    expect(semanticsOf(m.spec)).toEqual(m.semantics);
    fs.writeFileSync(file, JSON.stringify({ ...cfg, rms_norm_eps: -1 }));
    expect(() => loadFunctionalModel(file)).toThrow(`${file}: field 'rms_norm_eps' (-1) must be a positive number`);
    expect(loadFunctionalModel('tiny').semantics).toEqual({});
  });

  it('refuses models too large to hold in memory, in one line', () => {
    expect(() => loadFunctionalModel('qwen3-8b')).toThrow(/too large to run functionally/);
  });
});
