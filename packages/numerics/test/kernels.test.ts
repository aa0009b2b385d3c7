import { describe, expect, it } from 'vitest';
import {
  absorbedMla,
  argmax,
  attentionPartial,
  combinePartials,
  flashAttention2,
  flashDecodeAttention,
  gemv,
  linear,
  linearBox,
  naiveCausalAttention,
  naiveDecodeAttention,
  naiveMla,
  rmsnorm,
  ropeInPlace,
  Rng,
  softmax,
  type RequestAttentionShape,
} from '../src/index.js';

function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    d = Math.max(d, Math.abs(a[i]! - b[i]!));
    s = Math.max(s, Math.abs(b[i]!));
  }
  return d / s;
}

describe('decode attention: split-KV flash-decoding equals plain softmax attention', () => {
  const rng = new Rng(3);
  const cases: [string, RequestAttentionShape][] = [
    ['MHA', { heads: 4, kvHeads: 4, headDim: 16, kvLen: 300 }],
    ['GQA', { heads: 8, kvHeads: 2, headDim: 32, kvLen: 513 }],
    ['MQA', { heads: 6, kvHeads: 1, headDim: 8, kvLen: 97 }],
    ['one token', { heads: 2, kvHeads: 1, headDim: 4, kvLen: 1 }],
  ];
  for (const [name, s] of cases) {
    it(name, () => {
      const q = rng.normals(s.heads * s.headDim, 2);
      const k = rng.normals(s.kvHeads * s.kvLen * s.headDim, 2);
      const v = rng.normals(s.kvHeads * s.kvLen * s.headDim);
      const ref = naiveDecodeAttention(q, k, v, s);
      for (const chunk of [1, 7, 64, 256, 10_000]) expect(maxRel(flashDecodeAttention(q, k, v, s, chunk), ref), `chunk ${chunk}`).toBeLessThan(1e-12);
    });
  }

  it('combines partials in any order, and ignores empty ones (the cluster reduction)', () => {
    const s = { heads: 4, kvHeads: 2, headDim: 8, kvLen: 40 };
    const q = rng.normals(32, 3);
    const k = rng.normals(2 * 40 * 8, 3);
    const v = rng.normals(2 * 40 * 8);
    const parts = [attentionPartial(q, k, v, s, 1, 0, 13), attentionPartial(q, k, v, s, 1, 13, 13), attentionPartial(q, k, v, s, 1, 13, 40)];
    const a = combinePartials(parts);
    const b = combinePartials([parts[2]!, parts[1]!, parts[0]!]);
    expect(maxRel(a, b)).toBeLessThan(1e-14);
    expect(maxRel(a, naiveDecodeAttention(q, k, v, s).subarray(16, 32))).toBeLessThan(1e-12);
  });

  it('is a convex combination of the values (weights sum to one)', () => {
    const s = { heads: 2, kvHeads: 1, headDim: 3, kvLen: 5 };
    const v = new Float32Array(15).fill(0.25);
    const out = flashDecodeAttention(rng.normals(6), rng.normals(15), v, s, 2);
    for (const x of out) expect(x).toBeCloseTo(0.25, 12);
  });
});

describe('prefill: FlashAttention-2 tiling equals causal softmax attention', () => {
  const rng = new Rng(5);
  for (const [bq, bkv] of [
    [16, 16],
    [64, 32],
    [7, 13],
    [128, 128],
  ] as const) {
    it(`blocks ${bq}×${bkv}, GQA`, () => {
      const s = { seq: 70, heads: 4, kvHeads: 2, headDim: 8 };
      const q = rng.normals(70 * 4 * 8, 2);
      const k = rng.normals(70 * 2 * 8, 2);
      const v = rng.normals(70 * 2 * 8);
      expect(maxRel(flashAttention2(q, k, v, s, bq, bkv), naiveCausalAttention(q, k, v, s))).toBeLessThan(1e-12);
    });
  }

  it('lets the first token attend only to itself', () => {
    const s = { seq: 3, heads: 1, kvHeads: 1, headDim: 2 };
    const v = Float32Array.from([1, 2, 3, 4, 5, 6]);
    const out = flashAttention2(new Float32Array(6).fill(1), new Float32Array(6).fill(1), v, s, 2, 2);
    expect([out[0], out[1]]).toEqual([1, 2]);
  });
});

describe('DeepSeek MLA: weight absorption computes the same attention', () => {
  it('absorbed MQA over the latent equals decompressed multi-head attention', () => {
    const rng = new Rng(9);
    const s = { heads: 4, nopeDim: 16, ropeDim: 8, vDim: 12, kvLoraRank: 32, kvLen: 300 };
    const x = {
      qNope: rng.normals(4 * 16),
      qRope: rng.normals(4 * 8),
      latent: rng.normals(300 * 32),
      kRope: rng.normals(300 * 8),
      wUk: rng.normals(4 * 16 * 32, 0.2),
      wUv: rng.normals(4 * 12 * 32, 0.2),
    };
    const ref = naiveMla(x, s);
    for (const chunk of [64, 256, 1000]) expect(maxRel(absorbedMla(x, s, chunk), ref)).toBeLessThan(1e-10);
  });
});

describe('row ops and linear', () => {
  it('computes y = x Wᵀ in nn.Linear layout, and boxes with K ranges add up', () => {
    const x = Float32Array.from([1, 2, 3, 4, 5, 6]); // [2, 3]
    const w = Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1]); // [4, 3]
    expect(Array.from(linear(x, w, 2, 4, 3))).toEqual([1, 2, 3, 6, 4, 5, 6, 15]);
    expect(Array.from(gemv(w, [1, 2, 3], 4, 3))).toEqual([1, 2, 3, 6]);
    const a = linearBox(x, w, 3, { m0: 1, m1: 2, n0: 3, n1: 4, k0: 0, k1: 1 });
    const b = linearBox(x, w, 3, { m0: 1, m1: 2, n0: 3, n1: 4, k0: 1, k1: 3 });
    expect(a[0]! + b[0]!).toBe(15);
  });

  it('normalises to unit RMS before the weight', () => {
    const out = new Float64Array(4);
    rmsnorm([3, -3, 3, -3], 0, [1, 2, 1, 1], 4, 0, out, 0, (v) => v);
    expect(Array.from(out)).toEqual([1, -2, 1, -1]);
  });

  it('RoPE is the identity at position 0 and rotates pairs (i, i + d/2) preserving their norm', () => {
    const rng = new Rng(1);
    const v = rng.normals(8);
    const w = Float64Array.from(v);
    ropeInPlace(w, 0, 8, 0, 10000, (x) => x);
    expect(Array.from(w)).toEqual(Array.from(v, (x) => x));
    ropeInPlace(w, 0, 8, 37, 10000, (x) => x);
    for (let i = 0; i < 4; i++) expect(Math.hypot(w[i]!, w[i + 4]!)).toBeCloseTo(Math.hypot(v[i]!, v[i + 4]!), 12);
    // Pair 0 turns by `position` radians (θ^0 = 1); pair 1 by position·θ^(−2/8).
    expect(w[0]).toBeCloseTo(v[0]! * Math.cos(37) - v[4]! * Math.sin(37), 12);
    expect(w[4]).toBeCloseTo(v[4]! * Math.cos(37) + v[0]! * Math.sin(37), 12);
    const a1 = 37 * 10000 ** (-2 / 8);
    expect(w[1]).toBeCloseTo(v[1]! * Math.cos(a1) - v[5]! * Math.sin(a1), 12);
  });

  it('softmax sums to one and argmax takes the first maximum', () => {
    const p = softmax([1000, 1001, 1002]);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 15);
    expect(argmax([1, 5, 5, 2])).toBe(1);
  });
});
