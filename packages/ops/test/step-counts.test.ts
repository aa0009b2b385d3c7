import { describe, expect, it } from 'vitest';
import { loadModel } from '@fleet/core';
import { predictDecode } from '../src/index.js';
import { mi350Backend } from './helpers.js';
import { hopperLike } from './hopper-like.js';

/**
 * Launches, dispatches and fences per token are counted from the compiled schedule, so they do
 * not depend on how many layers are simulated (`--sample-layers`); only time and traffic are
 * extrapolated from the sampled layers.
 */
describe('per-token counters are the same at every layer sampling', () => {
  const counters = (r: ReturnType<typeof predictDecode>) => [r.launchesPerToken, r.dispatchesPerToken, r.fencesPerToken];

  for (const [backendName, backend, policy] of [
    ['mi350', mi350Backend(), 'mirage'],
    ['mi350', mi350Backend(), 'fleet-msplit'],
    ['mi350', mi350Backend(), 'kernel-per-op-graph'],
    ['hopper-like', hopperLike(), 'clusterfusion'],
  ] as const) {
    it(`${policy} on ${backendName}, Qwen3-8B batch 1: sampling 1, 2 or 5 layers`, () => {
      const model = loadModel('qwen3-8b');
      const at = (layers: number) => predictDecode(backend, model, { policy, batch: 1, prompt: 64, decode: 1024, positions: 1, layers });
      const [a, b, c] = [at(1), at(2), at(5)];
      expect(a.status).toBe('ok');
      expect(counters(b)).toEqual(counters(a));
      expect(counters(c)).toEqual(counters(a));
    });
  }

  it('MoE layers and a dense first layer (DeepSeek-V2-Lite): counted from their own schedules', () => {
    const model = loadModel('deepseek-v2-lite');
    const at = (layers: number) => predictDecode(mi350Backend(), model, { policy: 'mirage', batch: 1, prompt: 64, decode: 1024, positions: 1, layers });
    expect(counters(at(3))).toEqual(counters(at(4)));
  });

  it('a persistent megakernel is launched once for the run; kernel-per-op launches every kernel of every layer', () => {
    const model = loadModel('qwen3-8b');
    const opts = { batch: 1, prompt: 64, decode: 1024, positions: 1, layers: 2 };
    const mpk = predictDecode(mi350Backend(), model, { policy: 'mirage', ...opts });
    expect(mpk.launchesPerToken * 1024).toBeCloseTo(1, 9);
    const k1 = predictDecode(mi350Backend(), model, { policy: 'kernel-per-op-graph', ...opts, layers: 1 });
    const k2 = predictDecode(mi350Backend(), model, { policy: 'kernel-per-op-graph', ...opts, layers: 2 });
    // Launches = embedding and head kernels + 36 × a layer's kernels, at any sampling.
    expect(k1.launchesPerToken).toBe(k2.launchesPerToken);
    expect(Number.isInteger(k1.launchesPerToken)).toBe(true);
  });
});
