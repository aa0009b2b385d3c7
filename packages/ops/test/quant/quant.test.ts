import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadModel } from '@fleet/core';
import { linear, parseLowBitType, Rng, unpackCodes, type LowBitType } from '@fleet/numerics';
import {
  decoderLinearBytes,
  dequantFlops,
  dequantize,
  dequantOpsPerElement,
  linearTile,
  linearWeightBytes,
  linearWeightRegions,
  quantizesLinear,
  splitKBoundary,
  tileDequantFlops,
  weightBufferBytes,
  parseWeightType,
  prelayout,
  prelayoutBytes,
  quantizedLinear,
  quantizeGroupwise,
  quantMax,
  unprelayout,
  weightSliceBytes,
} from '../../src/index.js';

describe('weight types', () => {
  it('parses dense and Tilus-style quantized types', () => {
    expect(parseWeightType('bf16')).toMatchObject({ kind: 'dense', dtype: 'bf16', bits: 16 });
    expect(parseWeightType('u4g128')).toMatchObject({ kind: 'quantized', name: 'u4g128', bits: 4, group: 128, type: { kind: 'uint', bits: 4 } });
    expect(parseWeightType('i6g128')).toMatchObject({ bits: 6, group: 128, type: { kind: 'int' } });
    expect(parseWeightType('f6e3m2g128')).toMatchObject({ bits: 6, type: { name: 'f6e3m2' } });
    expect(parseWeightType('e4m3g64')).toMatchObject({ name: 'f8e4m3g64', bits: 8, group: 64 });
  });

  it('rejects bad types in one line naming the flag', () => {
    expect(() => parseWeightType('u4g100')).toThrow(/`weights`: group 100 .*allowed: 32, 64, 128, 256/);
    expect(() => parseWeightType('x4g128')).toThrow(/`weights`: unknown weight type 'x4g128'/);
    expect(() => parseWeightType('u4')).toThrow(expect.objectContaining({ field: 'weights' }));
    expect(() => parseWeightType('i1g128')).toThrow(/at least 2 bits/);
  });
});

/** Error bound of group-wise quantization: half a level, plus what rounding the scale can push past the top level. */
function bound(t: LowBitType, s: number, w: number, amax: number): number {
  const half =
    t.kind === 'float' ? Math.max(Math.abs(w) * 2 ** -(t.format.mantissaBits + 1), (s * 2 ** (1 - t.format.bias - t.format.mantissaBits)) / 2) : s / 2;
  return half + amax * 2 ** -8 + 1e-12;
}

describe('group-wise symmetric quantization', () => {
  const types = ['i2', 'i3', 'i4', 'i6', 'i8', 'u2', 'u4', 'u5', 'u8', 'f3e1m1', 'f4e2m1', 'f5e2m2', 'f6e3m2', 'f6e2m3', 'f8e4m3', 'f8e5m2'].map((n) =>
    parseLowBitType(n),
  );
  const rng = new Rng(21);
  const n = 24;
  const k = 256;
  const w = rng.normals(n * k);
  w[5] = 0; // zeros stay zero
  for (let i = 128; i < 256; i++) w[3 * k + i] = 0; // an all-zero group

  for (const t of types) {
    it(`${t.name}: dequantized weights stay within half a level of the originals`, () => {
      for (const group of [32, 128]) {
        const q = quantizeGroupwise(w, n, k, t, group);
        const d = dequantize(q);
        let worst = 0;
        const bad: string[] = [];
        for (let col = 0; col < n; col++) {
          for (let g = 0; g < k / group; g++) {
            let amax = 0;
            for (let i = g * group; i < (g + 1) * group; i++) amax = Math.max(amax, Math.abs(w[col * k + i]!));
            const s = q.scales[g * n + col]!;
            if (Math.abs(s - amax / quantMax(t)) / (amax / quantMax(t) || 1) > 2 ** -8) bad.push(`scale ${col},${g}`);
            for (let i = g * group; i < (g + 1) * group; i++) {
              const e = Math.abs(d[col * k + i]! - w[col * k + i]!);
              if (e > bound(t, s, w[col * k + i]!, amax)) bad.push(`w[${col},${i}] error ${e}`);
              worst = Math.max(worst, e / (amax || 1));
            }
          }
        }
        expect(bad).toEqual([]);
        expect(d[5]).toBe(0);
        for (let i = 128; i < 256; i++) expect(d[3 * k + i]).toBe(0);
        // More bits, smaller error: a loose sanity bound on the relative error.
        expect(worst).toBeLessThan(t.bits >= 6 ? 0.08 : 0.6);
      }
    });
  }

  it('stores codes compactly: n·k·bits/8 bytes, scales [K/group, N]', () => {
    const q = quantizeGroupwise(w, n, k, parseLowBitType('i3'), 64);
    expect(q.packed.length).toBe((n * k * 3) / 8);
    expect(q.scales.length).toBe((k / 64) * n);
  });

  it('W4A16 / W6A16 linear equals the plain linear on the dequantized weights', () => {
    const x = rng.normals(3 * k);
    for (const name of ['u4', 'i6', 'f6e3m2']) {
      const q = quantizeGroupwise(w, n, k, parseLowBitType(name), 128);
      const y = quantizedLinear(x, q, 3);
      const r = linear(x, dequantize(q), 3, n, k);
      for (let i = 0; i < y.length; i++) expect(Math.abs(y[i]! - r[i]!)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(r[i]!)));
    }
  });
});

describe('weight pre-layout', () => {
  it('round-trips any shape, bit width and tile (edge tiles padded)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }),
        fc.integer({ min: 1, max: 70 }),
        fc.constantFrom('i2', 'u3', 'i4', 'f5e2m2', 'i6', 'u7', 'f8e4m3'),
        fc.constantFrom([8, 8], [16, 8], [32, 16], [64, 64]),
        fc.nat(1000),
        (n, k, type, [bk, bn], seed) => {
          const t = parseLowBitType(type);
          const q = quantizeGroupwise(new Rng(seed).normals(n * k), n, k, t, 32);
          const tiles = { bk: bk!, bn: bn! };
          const laid = prelayout(q, tiles);
          expect(laid.length).toBe(prelayoutBytes(n, k, t.bits, tiles));
          expect(Array.from(unprelayout(laid, n, k, t.bits, tiles))).toEqual(Array.from(q.packed));
        },
      ),
      { seed: 5, numRuns: 60 },
    );
  });

  it('lays tile (kb, nb) out as one contiguous BK·BN·bits/8-byte run, k-major inside', () => {
    const t = parseLowBitType('i4');
    const n = 128;
    const k = 192;
    const q = quantizeGroupwise(new Rng(2).normals(n * k), n, k, t, 64);
    const laid = prelayout(q, { bk: 64, bn: 64 });
    const tileBytes = (64 * 64 * 4) / 8;
    expect(laid.length).toBe((192 / 64) * (128 / 64) * tileBytes);
    const codes = unpackCodes(q.packed, 4, n * k);
    const kb = 2;
    const nb = 1;
    const tile = unpackCodes(laid.subarray((kb * 2 + nb) * tileBytes), 4, 64 * 64);
    for (const [kk, nn] of [
      [0, 0],
      [5, 63],
      [63, 17],
    ] as const)
      expect(tile[kk * 64 + nn]).toBe(codes[(nb * 64 + nn) * k + kb * 64 + kk]);
  });
});

describe('what weight types cost', () => {
  it('counts packed weights plus scales', () => {
    expect(linearWeightBytes(parseWeightType('bf16'), 4096, 4096)).toEqual({ weights: 4096 * 4096 * 2, scales: 0, total: 4096 * 4096 * 2 });
    expect(linearWeightBytes(parseWeightType('u4g128'), 4096, 4096)).toEqual({
      weights: 4096 * 2048,
      scales: 32 * 4096 * 2,
      total: 4096 * 2048 + 32 * 4096 * 2,
    });
    expect(linearWeightBytes(parseWeightType('i6g64'), 4096, 4096).weights).toBe((4096 * 4096 * 6) / 8);
    expect(weightSliceBytes(parseWeightType('f6e3m2g128'), 64, 4096)).toEqual({
      weights: (64 * 4096 * 6) / 8,
      scales: 32 * 64 * 2,
      total: (64 * 4096 * 6) / 8 + 32 * 64 * 2,
    });
  });

  it('makes a Qwen3-8B decode step read a quarter of the bf16 linear-weight bytes, plus scales, with u4g128', () => {
    const spec = loadModel('qwen3-8b');
    const perLayer = (6144 + 4096 + 24576) * 4096 + 4096 * 12288; // qkv, o, gate_up, down elements
    const bf16 = decoderLinearBytes(spec, parseWeightType('bf16'));
    const u4 = decoderLinearBytes(spec, parseWeightType('u4g128'));
    expect(bf16.total).toBe(perLayer * 36 * 2);
    expect(u4.weights).toBe(bf16.total / 4);
    expect(u4.scales).toBe((perLayer / 128) * 2 * 36);
    expect(u4.total / bf16.total).toBeCloseTo(0.25 + 1 / 128, 10);
  });

  it('charges dequantization per weight element: nothing for dense, more when codes straddle bytes', () => {
    expect(dequantOpsPerElement(parseWeightType('bf16'))).toBe(0);
    expect(dequantOpsPerElement(parseWeightType('u4g128'))).toBe(3);
    expect(dequantOpsPerElement(parseWeightType('i6g128'))).toBe(4);
    expect(dequantFlops(parseWeightType('i8g32'), 1000)).toBe(3000);
  });
});

describe('linear tile weight regions under a weight type', () => {
  const regionBytes = (rs: { bytes: number; rows?: number }[]) => rs.reduce((s, r) => s + r.bytes * (r.rows ?? 1), 0);
  const op = { id: 'L0.proj', kind: 'linear' as const, layer: 0, m: 1, n: 4096, k: 12288, weight: 'L0.w', inputs: ['x', 'L0.w'], outputs: ['y'] };

  it('dense: the same regions the decomposition reads today', () => {
    const pol = { weight: 'streaming' as const, store: 'default' as const };
    const bf16 = parseWeightType('bf16');
    for (const [k0, kLen] of [
      [0, 12288],
      [4096, 4096],
    ] as const) {
      const t = linearTile(op, { x: 0, w: 1, y: 2 }, pol, 0, 128, 64, k0, kLen);
      expect(linearWeightRegions(bf16, op, { w: 1 }, 128, 64, k0, kLen, 'streaming')).toEqual([t.reads[0]]);
    }
  });

  it('quantized: a whole tiling reads every pre-laid-out byte and every scale exactly once', () => {
    for (const name of ['u4g128', 'i6g64', 'f6e3m2g128', 'i3g32']) {
      const wt = parseWeightType(name);
      const bytes = weightBufferBytes(wt, op.n, op.k);
      let w = 0;
      let s = 0;
      const ks = 3;
      for (let n0 = 0; n0 < op.n; n0 += 64) {
        for (let part = 0; part < ks; part++) {
          const k0 = splitKBoundary(wt, op.k, part, ks);
          const k1 = splitKBoundary(wt, op.k, part + 1, ks);
          const [codes, scales] = linearWeightRegions(wt, op, { w: 1, scales: 2 }, n0, 64, k0, k1 - k0, 'default');
          w += regionBytes([codes!]);
          s += regionBytes([scales!]);
        }
      }
      expect(w, name).toBe(bytes.weights);
      expect(s, name).toBe(bytes.scales);
      expect(bytes.weights).toBe((op.n * op.k * wt.bits) / 8);
    }
  });

  it('snaps split-K boundaries to whole groups and pre-layout steps; charges dequantization', () => {
    const wt = parseWeightType('u4g128');
    expect([0, 1, 2, 3].map((s) => splitKBoundary(wt, 4096, s, 3))).toEqual([0, 1280, 2688, 4096]);
    expect(splitKBoundary(parseWeightType('bf16'), 4096, 1, 3)).toBe(1365);
    expect(tileDequantFlops(wt, 64, 4096)).toBe(3 * 64 * 4096);
    expect(quantizesLinear({ layer: 0 }, 36)).toBe(true);
    expect(quantizesLinear({ layer: 36 }, 36)).toBe(false);
  });
});

describe('narrow tiles over quantized weights', () => {
  it('load the whole pre-laid-out blocks they touch', () => {
    const wt = parseWeightType('i4g128');
    const op = { n: 256, k: 512 };
    const [codes] = linearWeightRegions(wt, op, { w: 0, scales: 1 }, 40, 48, 0, 512, 'default');
    // Columns 40..87 touch blocks 0 and 1 of 64 columns: two tiles per K step, 8 steps.
    expect([codes!.bytes, codes!.rows]).toEqual([(2 * (64 * 64 * 4)) / 8, 8]);
  });
});
