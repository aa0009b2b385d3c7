import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadModel } from '@fleet/core';
import {
  BUILTIN_POLICIES,
  compilePolicy,
  decoderLinearBytes,
  fp8RefusalOn,
  gemmShape,
  linearWeightBytes,
  parseWeightType,
  predictDecode,
  type Fp8Weights,
} from '../../src/index.js';
import { mi350Backend } from '../helpers.js';

const qwen = loadModel('qwen3-8b');
const backend = mi350Backend();

describe('W8A8 FP8 weight types', () => {
  it('parse: the FP8 type, an activation type after a, c for per-channel scales', () => {
    expect(parseWeightType('f8e4m3')).toMatchObject({
      kind: 'fp8',
      name: 'f8e4m3',
      bits: 8,
      scales: 'tensor',
      type: { name: 'f8e4m3' },
      activation: { name: 'f8e4m3' },
    });
    expect(parseWeightType('fp8e4m3')).toMatchObject({ kind: 'fp8', name: 'f8e4m3' });
    expect(parseWeightType('F8E4M3C')).toMatchObject({ kind: 'fp8', name: 'f8e4m3c', scales: 'channel' });
    expect(parseWeightType('f8e4m3ae5m2')).toMatchObject({ name: 'f8e4m3ae5m2', type: { name: 'f8e4m3' }, activation: { name: 'f8e5m2' } });
    expect(parseWeightType('f8e4m3ae4m3')).toMatchObject({ name: 'f8e4m3' });
    expect(parseWeightType('f8e4m3fnuz')).toMatchObject({ name: 'f8e4m3fnuz', type: { name: 'f8e4m3fnuz', max: 240 } });
    expect(parseWeightType('f8e4m3fnuzae5m2fnuzc')).toMatchObject({ name: 'f8e4m3fnuzae5m2fnuzc', scales: 'channel' });
    // A group still means weight-only FP8, dequantised to bf16 in the kernel.
    expect(parseWeightType('f8e4m3g128')).toMatchObject({ kind: 'quantized', name: 'f8e4m3g128' });
  });

  it('bad names: one line naming the field and the syntax', () => {
    expect(() => parseWeightType('f8e4m3ae5m2fnuz')).toThrow(/mixes OCP and FNUZ/);
    expect(() => parseWeightType('f8e3m4')).toThrow(expect.objectContaining({ field: 'weights' }));
    expect(() => parseWeightType('f8e4m3x')).toThrow(/W8A8 FP8 f8e4m3/);
  });

  it('bytes: one per weight, plus one fp32 scale per tensor or per output channel', () => {
    const t = parseWeightType('f8e4m3');
    const c = parseWeightType('f8e4m3c');
    expect(linearWeightBytes(t, 6144, 4096)).toEqual({ weights: 6144 * 4096, scales: 4, total: 6144 * 4096 + 4 });
    expect(linearWeightBytes(c, 6144, 4096)).toEqual({ weights: 6144 * 4096, scales: 6144 * 4, total: 6144 * 4096 + 6144 * 4 });
    const bf16 = decoderLinearBytes(qwen, parseWeightType('bf16')).total;
    expect(decoderLinearBytes(qwen, t).weights).toBe(bf16 / 2);
  });

  it('a kernel library sees the FP8 operands', () => {
    expect(gemmShape({ m: 1, n: 64, k: 128 }, parseWeightType('f8e4m3ae5m2c'))).toEqual({
      m: 1,
      n: 64,
      k: 128,
      weightBytes: 1,
      fp8: { weights: 'f8e4m3', activations: 'f8e5m2', scales: 'channel' },
    });
  });

  it('a compiled layer reads each FP8 weight byte once, its scales, and FP8 activations', () => {
    const graph = buildDecodeGraph(qwen, { batch: 1, contextLen: 64 });
    const policy = BUILTIN_POLICIES.find((p) => p.name === 'kernel-per-op')!;
    const wt = parseWeightType('f8e4m3c') as Fp8Weights;
    const g = compilePolicy(graph, policy, backend, { layers: [0], weights: wt, library: backend.kernelLibrary });
    const ids = new Set(g.buffers.filter((b) => /^L0\.w_(qkv|o|gate_up|down)(\.scales)?$/.test(b.name)).map((b) => b.id));
    let bytes = 0;
    for (const t of g.tasks) for (const tile of t.tiles) for (const r of tile.reads) if (ids.has(r.buffer)) bytes += r.bytes * (r.rows ?? 1);
    const layer = decoderLinearBytes({ ...qwen, numLayers: 1 }, wt);
    // Split-K parts each read their columns' scales: codes exactly once, scales at least once.
    expect(bytes).toBeGreaterThanOrEqual(layer.total);
    expect(bytes - layer.weights).toBeLessThan(layer.scales * 8);
  });

  it('refusals: megakernels and ClusterFusion have no FP8 tiles; a library names the encodings its device takes', () => {
    const f8 = parseWeightType('f8e4m3');
    for (const policy of ['mirage', 'fleet-mtile', 'clusterfusion']) {
      const p = predictDecode(backend, qwen, { policy, batch: 1, prompt: 64, decode: 1, weights: f8 });
      expect(p.status, policy).toBe('unsupported');
    }
    expect(predictDecode(backend, qwen, { policy: 'mirage', batch: 1, prompt: 64, decode: 1, weights: f8 }).reason).toMatch(/Blackwell-only/);
    // MI350 (gfx950) takes OCP FP8, not FNUZ.
    expect(fp8RefusalOn(backend, f8)).toBeNull();
    expect(fp8RefusalOn(backend, parseWeightType('f8e4m3fnuz'))).toMatch(/CDNA4.*OCP/);
    expect(fp8RefusalOn(backend, parseWeightType('bf16'))).toBeNull();
    const fnuz = predictDecode(backend, qwen, { policy: 'kernel-per-op-graph', batch: 1, prompt: 64, decode: 1, weights: parseWeightType('f8e4m3fnuz') });
    expect(fnuz).toMatchObject({ status: 'unsupported' });
    expect(fnuz.reason).toMatch(/`weights` f8e4m3fnuz/);
    // No FP8 model in a library: refused.
    const bare = { ...backend, kernelLibrary: { ...backend.kernelLibrary!, fp8Refusal: undefined } };
    expect(fp8RefusalOn(bare, f8)).toMatch(/no FP8 GEMM/);
  });

  it('an FP8 decode step is faster than bf16 and reads about half the weight bytes', () => {
    const opts = { policy: 'kernel-per-op-graph', batch: 1, prompt: 64, decode: 1, positions: 1, layers: 2 };
    const bf16 = predictDecode(backend, qwen, opts);
    const fp8 = predictDecode(backend, qwen, { ...opts, weights: parseWeightType('f8e4m3') });
    expect(fp8.status).toBe('ok');
    expect(fp8.tpotMs).toBeLessThan(bf16.tpotMs * 0.8);
    expect(fp8.hbmReadBytes).toBeLessThan(bf16.hbmReadBytes * 0.7);
  });
});
