import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadModel } from '@fleet/core';
import { dropDependency, referenceStep, allocateState, randomWeights, DEFAULT_SEMANTICS, TINY_MOE_MODEL, verifyDecode, checkRunnable } from '../../src/index.js';
import { mi350Backend } from '../helpers.js';
import { hopperLike } from '../hopper-like.js';

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

  it('latent attention is refused for functional runs, in one line', () => {
    const tinyMla = { ...TINY_MOE_MODEL, headDim: 24, mla: { qLoraRank: null, kvLoraRank: 32, ropeDim: 8, nopeDim: 16, vDim: 16 } };
    expect(() => checkRunnable(tinyMla)).toThrow(/latent-attention layers are simulated for timing only/);
    expect(() => checkRunnable(loadModel('deepseek-v2-lite'))).toThrow(/too large/);
  });
});
