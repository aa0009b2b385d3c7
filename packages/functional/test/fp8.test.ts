import { describe, expect, it } from 'vitest';
import { buildDecodeGraph } from '@fleet/core';
import { floatType } from '@fleet/numerics';
import { parseWeightType } from '@fleet/ops';
import { allocateState, DEFAULT_SEMANTICS, dropDependency, randomWeights, referenceStep, TINY_MODEL, TINY_MOE_MODEL, verifyDecode } from '../src/index.js';
import { mi350Backend } from './helpers.js';

const backend = mi350Backend();

describe('W8A8 FP8 linears, functionally', () => {
  it('kernel-per-op reproduces the FP8 reference for per-tensor, per-channel and e5m2-activation scales', () => {
    for (const w of ['f8e4m3', 'f8e4m3c', 'f8e4m3ae5m2']) {
      const r = verifyDecode(backend, TINY_MODEL, { policy: 'kernel-per-op', steps: 2, weightType: parseWeightType(w) });
      expect(r.status, `${w}: ${r.reason}`).toBe('pass');
    }
  });

  it('a dropped dependency still shows as wrong numbers under FP8', () => {
    const r = verifyDecode(backend, TINY_MODEL, {
      policy: 'kernel-per-op',
      steps: 1,
      weightType: parseWeightType('f8e4m3'),
      transform: (tg) => dropDependency(tg, 'L1.o_proj'),
    });
    expect(r.status).toBe('fail');
  });

  it('the FP8 reference is close to the bf16 one but not equal: the codes are used', () => {
    const graph = buildDecodeGraph(TINY_MODEL, { batch: 2, contextLen: 16 });
    const weights = randomWeights(TINY_MODEL, 1);
    const run = (fp8?: Parameters<typeof referenceStep>[4]) => {
      const s = allocateState(graph);
      s.get('tokens')!.set([3, 5]);
      referenceStep(graph, weights, DEFAULT_SEMANTICS, s, fp8);
      return s.get('logits')!;
    };
    const bf16 = run();
    const e4m3 = run({ weights: floatType(4, 3), activations: floatType(4, 3), scaling: 'row', layers: TINY_MODEL.numLayers });
    let d = 0;
    let scale = 0;
    for (let i = 0; i < bf16.length; i++) {
      d = Math.max(d, Math.abs(e4m3[i]! - bf16[i]!));
      scale = Math.max(scale, Math.abs(bf16[i]!));
    }
    expect(d / scale).toBeGreaterThan(1e-3);
    expect(d / scale).toBeLessThan(0.2);
  });

  it('refuses what it cannot run: megakernels, FNUZ on a gfx950 part, group-quantized weights, MoE layers', () => {
    const ask = (policy: string, w: string, spec = TINY_MODEL) => verifyDecode(backend, spec, { policy, steps: 1, weightType: parseWeightType(w) });
    expect(ask('mirage', 'f8e4m3')).toMatchObject({ status: 'unsupported' });
    expect(ask('kernel-per-op', 'f8e4m3fnuz').reason).toMatch(/OCP/);
    expect(ask('kernel-per-op', 'u4g128').reason).toMatch(/timing only/);
    expect(ask('kernel-per-op', 'f8e4m3', TINY_MOE_MODEL).reason).toMatch(/dense layers only/);
  });
});
