import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decode,
  decodeTable,
  dequantizeFp8,
  encode,
  FP8_TYPES,
  floatType,
  isNanCode,
  parseLowBitType,
  quantizeFp8,
  Rng,
  roundBf16,
  scaledMatmulFp8,
} from '../../src/index.js';

const e4m3 = floatType(4, 3);
const e5m2 = floatType(5, 2);
const e4m3fnuz = floatType(4, 3, true);
const e5m2fnuz = floatType(5, 2, true);

describe('FP8 element types', () => {
  it('have the ranges of the OCP and FNUZ definitions', () => {
    expect(e4m3.max).toBe(448);
    expect(e5m2.max).toBe(57344);
    expect(e4m3fnuz.max).toBe(240);
    expect(e5m2fnuz.max).toBe(57344);
    expect(e4m3fnuz.format.bias).toBe(8);
    expect(e5m2fnuz.format.bias).toBe(16);
    expect(FP8_TYPES.map((t) => t.name)).toEqual(['f8e4m3', 'f8e5m2', 'f8e4m3fnuz', 'f8e5m2fnuz']);
  });

  it('FNUZ: 0x80 is the one NaN, −0 encodes as +0, no infinities', () => {
    for (const t of [e4m3fnuz, e5m2fnuz]) {
      const table = decodeTable(t);
      const nans = [...table.keys()].filter((c) => Number.isNaN(table[c]!));
      expect(nans).toEqual([0x80]);
      expect(isNanCode(0x80, t.format)).toBe(true);
      expect(encode(t, -0)).toBe(0);
      expect(encode(t, -1e-30)).toBe(0);
      expect(encode(t, NaN)).toBe(0x80);
      expect(encode(t, Infinity)).toBe(encode(t, t.max));
      expect([...table].every((v) => Number.isNaN(v) || Number.isFinite(v))).toBe(true);
    }
    // The smallest subnormals: 2^(1−8−3) for e4m3fnuz, 2^(1−16−2) for e5m2fnuz.
    expect(decode(e4m3fnuz, 1)).toBe(2 ** -10);
    expect(decode(e5m2fnuz, 1)).toBe(2 ** -17);
    // The same bits mean half the value of OCP e4m3's (the bias is one higher), below the top binade.
    for (let c = 0; c < 0x78; c++) expect(decode(e4m3fnuz, c)).toBe(decode(e4m3, c) / 2);
  });

  it('parses the FNUZ and OCP spellings', () => {
    expect(parseLowBitType('f8e4m3fnuz').name).toBe('f8e4m3fnuz');
    expect(parseLowBitType('float8_e5m2fnuz').name).toBe('f8e5m2fnuz');
    expect(parseLowBitType('e4m3fn').name).toBe('f8e4m3');
    expect(() => parseLowBitType('f6e3m2fnuz')).toThrow(/unknown low-precision type/);
    expect(() => parseLowBitType('f8e5m2fn')).toThrow(/unknown low-precision type/);
  });

  it('every code of every FP8 type survives decode → encode', () => {
    for (const t of FP8_TYPES) {
      const table = decodeTable(t);
      for (let c = 0; c < 256; c++) {
        const v = table[c]!;
        // +0 and −0 share a value (FNUZ has no −0 code at all); encoding saturates, so ±∞ has no code of its own.
        if (!Number.isFinite(v) || v === 0) continue;
        expect(encode(t, v)).toBe(c);
      }
    }
  });
});

describe('scaled FP8 tensors', () => {
  it('round trip: every element within half a step of its binade, relative to the scale', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.constantFrom(...FP8_TYPES),
        fc.constantFrom('tensor' as const, 'row' as const),
        (seed, t, scaling) => {
          const rng = new Rng(seed);
          const rows = 1 + rng.int(6);
          const cols = 1 + rng.int(40);
          const x = Array.from({ length: rows * cols }, () => rng.normal() * 2 ** (rng.int(20) - 10));
          const q = quantizeFp8(x, rows, cols, t, scaling);
          const y = dequantizeFp8(q);
          const ulp = 2 ** -t.format.mantissaBits;
          for (let r = 0; r < rows; r++) {
            const s = scaling === 'tensor' ? q.scales[0]! : q.scales[r]!;
            for (let c = 0; c < cols; c++) {
              const i = r * cols + c;
              // Normal range: relative error ≤ half an ulp; below it, absolute ≤ half the subnormal step.
              const bound = Math.max(Math.abs(x[i]!) * ulp * 0.5 * (1 + 1e-6), 2 ** (1 - t.format.bias - t.format.mantissaBits) * s * 0.5 * (1 + 1e-6));
              expect(Math.abs(y[i]! - x[i]!)).toBeLessThanOrEqual(bound);
            }
          }
        },
      ),
      { seed: 8, numRuns: 60 },
    );
  });

  it('the largest magnitude lands on the type maximum (nothing saturates)', () => {
    const x = [0.5, -3, 2, 1e-3, 0, 7];
    for (const t of FP8_TYPES) {
      const q = quantizeFp8(x, 2, 3, t, 'row');
      const y = dequantizeFp8(q);
      // The scale is an fp32: the maximum comes back within its rounding.
      expect(y[1]).toBeCloseTo(-3, 6);
      expect(y[5]).toBeCloseTo(7, 6);
      expect(decode(t, q.codes[5]!)).toBe(t.max);
    }
    // An all-zero block keeps scale 1 and zero codes.
    const z = quantizeFp8([0, 0, 0], 1, 3, e4m3, 'tensor');
    expect([...z.scales]).toEqual([1]);
    expect([...dequantizeFp8(z)]).toEqual([0, 0, 0]);
  });

  it('per-row scales follow an outlier row; a per-tensor scale spends the range on it', () => {
    const rng = new Rng(3);
    const rows = 4;
    const cols = 64;
    const x = Array.from({ length: rows * cols }, (_, i) => rng.normal() * (i < cols ? 1000 : 0.01));
    // Worst error of the small rows, relative to their own largest magnitude.
    let amax = 0;
    for (let i = cols; i < rows * cols; i++) amax = Math.max(amax, Math.abs(x[i]!));
    const err = (scaling: 'tensor' | 'row') => {
      const y = dequantizeFp8(quantizeFp8(x, rows, cols, e4m3, scaling));
      let e = 0;
      for (let i = cols; i < rows * cols; i++) e = Math.max(e, Math.abs(y[i]! - x[i]!) / amax);
      return e;
    };
    expect(err('row')).toBeLessThanOrEqual(2 ** -4);
    expect(err('tensor')).toBeGreaterThan(err('row') * 4);
  });

  it('the scaled GEMM equals the GEMM of the dequantised operands, rounded once to bf16', () => {
    const rng = new Rng(11);
    const [m, n, k] = [3, 5, 48];
    const a = quantizeFp8(rng.normals(m * k), m, k, e4m3, 'row');
    const b = quantizeFp8(rng.normals(n * k, 0.05), n, k, e4m3, 'row');
    const y = scaledMatmulFp8(a, b);
    const da = dequantizeFp8(a);
    const db = dequantizeFp8(b);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let ref = 0;
        for (let t = 0; t < k; t++) ref += da[i * k + t]! * db[j * k + t]!;
        expect(y[i * n + j]).toBe(roundBf16(ref));
      }
    // e5m2 activations × e4m3 weights: the same product, coarser activations.
    const a5 = quantizeFp8(rng.normals(m * k), m, k, e5m2, 'tensor');
    expect(scaledMatmulFp8(a5, b).length).toBe(m * n);
    expect(() => scaledMatmulFp8(quantizeFp8([1, 2], 1, 2, e4m3, 'tensor'), b)).toThrow(/K of the activation/);
  });
});
