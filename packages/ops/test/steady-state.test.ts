import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadModel } from '@fleet/core';
import { predictDecode, sameLayerOps } from '../src/index.js';
import { mi350Backend } from './helpers.js';

const backend = mi350Backend();
const model = loadModel('qwen3-8b');

describe('whole-model decode with a proven steady layer', () => {
  it('kernel-per-op: stops once a layer provably repeats, and matches simulating all 36 layers', () => {
    const opts = { policy: 'kernel-per-op-graph', batch: 8, prompt: 1023, decode: 1, positions: 1, layers: model.numLayers };
    const memo = predictDecode(backend, model, opts);
    // An observer sees every event, so every layer is simulated.
    const full = predictDecode(backend, model, { ...opts, observers: [() => {}] });
    expect(memo.sampling.layersExtrapolated).toBe('proven');
    expect(memo.sampling.layersSimulated).toBeLessThan(model.numLayers);
    expect(full.sampling).toMatchObject({ layersSimulated: model.numLayers, layersExtrapolated: 'none' });
    expect(memo.tpotMs).toBeCloseTo(full.tpotMs, 9);
    expect(memo.hbmReadBytes / full.hbmReadBytes).toBeCloseTo(1, 12);
    expect(memo.l2HitRate).toBeCloseTo(full.l2HitRate, 12);
  });

  it('a FLEET megakernel starts each layer on different workers (its schedulers rotate): its repetition stays assumed', () => {
    const r = predictDecode(backend, model, { policy: 'fleet-mtile', batch: 1, prompt: 64, decode: 1, positions: 1, layers: 3 });
    expect(r.sampling.layersExtrapolated).toBe('assumed');
  });

  it('layers with different ops are not taken for repeats', () => {
    const g = buildDecodeGraph(model, { batch: 4, contextLen: 100 });
    expect(sameLayerOps(g, 1, 2)).toBe(true);
    expect(sameLayerOps(g, 1, 35)).toBe(true);
    const op = g.ops.find((o) => o.layer === 5 && o.kind === 'linear')!;
    (op as { n: number }).n += 128;
    expect(sameLayerOps({ ...g }, 1, 5)).toBe(false);
  });
});
