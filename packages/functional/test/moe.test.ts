import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadModel } from '@fleet/core';
import {
  dropDependency,
  referenceStep,
  allocateState,
  randomWeights,
  DEFAULT_SEMANTICS,
  TINY_MOE_MODEL,
  TINY_MLA_MODEL,
  verifyDecode,
  checkRunnable,
} from '../src/index.js';
import { hopperLike, mi350Backend } from './helpers.js';

describe('functional execution of a Mixture-of-Experts layer (tiny-moe)', () => {
  const mi350 = mi350Backend();

  it('every policy reproduces the reference logits: routing, dispatch, grouped GEMMs, shared expert, combine', { timeout: 60_000 }, () => {
    for (const policy of ['kernel-per-op', 'kernel-per-op-graph', 'mirage', 'fleet-mtile', 'fleet-msplit']) {
      const r = verifyDecode(mi350, TINY_MOE_MODEL, { policy, batch: 5, steps: 2 });
      expect(r.status, `${policy}: ${r.reason}`).toBe('pass');
    }
    expect(verifyDecode(hopperLike(), TINY_MOE_MODEL, { policy: 'clusterfusion', batch: 3, steps: 1 }).status).toBe('pass');
  });

  it('the MoE layer changes the numbers: the combine adds the weighted expert rows', () => {
    const g = buildDecodeGraph(TINY_MOE_MODEL, { batch: 2, contextLen: 4 });
    const w = randomWeights(TINY_MOE_MODEL, 3);
    const run = (weights: typeof w) => {
      const s = allocateState(g);
      s.get('tokens')!.set([1, 2]);
      referenceStep(g, weights, DEFAULT_SEMANTICS, s);
      return s.get('logits')!.slice();
    };
    const base = run(w);
    const zeroExperts = new Map(w);
    zeroExperts.set('L1.w_experts_down', new Float32Array(w.get('L1.w_experts_down')!.length));
    const other = run(zeroExperts);
    expect(base.some((x, i) => Math.abs(x - other[i]!) > 1e-3)).toBe(true);
    // each token's gating weights sum to 1 (renormalised top-k)
    const s = allocateState(g);
    s.get('tokens')!.set([1, 2]);
    referenceStep(g, w, DEFAULT_SEMANTICS, s);
    const topk = s.get('topk')!;
    for (let t = 0; t < 2; t++) expect(topk[t * 4 + 1]! + topk[t * 4 + 3]!).toBeCloseTo(1, 5);
  });

  it('a dropped dependency before the expert GEMM is caught', { timeout: 60_000 }, () => {
    const r = verifyDecode(mi350, TINY_MOE_MODEL, { policy: 'mirage', batch: 5, steps: 1, transform: (tg) => dropDependency(tg, 'L1.experts_gate_up') });
    expect(r.status).toBe('fail');
  });

  it('full-size MoE/MLA models are refused for functional runs, in one line', () => {
    expect(() => checkRunnable(loadModel('deepseek-v2-lite'))).toThrow(/too large/);
  });
});

describe('functional execution of latent attention (tiny-mla: q LoRA, absorbed W_UK/W_UV, latent cache)', () => {
  const mi350 = mi350Backend();

  it('kernel-per-op and megakernel schedules reproduce the reference logits and latent cache', { timeout: 60_000 }, () => {
    for (const policy of ['kernel-per-op-graph', 'mirage', 'fleet-mtile']) {
      const r = verifyDecode(mi350, TINY_MLA_MODEL, { policy, batch: 3, steps: 2 });
      expect(r.status, `${policy}: ${r.reason}`).toBe('pass');
    }
  });

  it('the reference is MLA: the absorbed form equals decompressing keys and values per head', () => {
    const g = buildDecodeGraph(TINY_MLA_MODEL, { batch: 1, contextLen: 5 });
    expect(g.tensors.find((t) => t.name === 'L0.kv_latent')!.shape).toEqual([1, 6, 40]);
    expect(g.ops.find((o) => o.id === 'L0.attention')).toMatchObject({ kvHeads: 1, headDim: 40, latent: { rank: 32, ropeDim: 8 } });
  });

  it('a dropped dependency before the latent norm, the RoPE/append prologue or the W_UV absorption is caught', { timeout: 60_000 }, () => {
    for (const [policy, op] of [
      ['kernel-per-op-graph', 'L1.kv_a_norm'],
      ['kernel-per-op-graph', 'L1.v_absorb'],
      ['mirage', 'L1.rope'],
    ] as const) {
      const r = verifyDecode(mi350, TINY_MLA_MODEL, { policy, batch: 3, steps: 1, contextLen: 3, transform: (tg) => dropDependency(tg, op) });
      expect(r.status, `${policy} ${op}`).toBe('fail');
    }
  });
});
