import { describe, expect, it } from 'vitest';
import { linear, parseLowBitType, Rng } from '@fleet/numerics';
import {
  dequantize,
  dequantOpsPerElement,
  linearWeightBytes,
  linearWeightRegions,
  parseWeightType,
  quantizedLinear,
  quantizeGroupwise,
  weightBufferBytes,
  weightSliceBytes,
} from '../../src/index.js';

describe('u1 and zero-point weight types', () => {
  it('parses u1g128 (always with zero points) and the z suffix on unsigned types', () => {
    expect(parseWeightType('u1g128')).toMatchObject({
      kind: 'quantized',
      name: 'u1g128z',
      bits: 1,
      group: 128,
      zeroPoint: true,
      type: { kind: 'uint', bits: 1 },
    });
    expect(parseWeightType('u4g128z')).toMatchObject({ name: 'u4g128z', bits: 4, zeroPoint: true });
    expect(parseWeightType('u4g128')).toMatchObject({ name: 'u4g128', zeroPoint: false });
    expect(parseWeightType('i4g128')).toMatchObject({ zeroPoint: false });
  });

  it('refuses zero points on signed and float types and a 1-bit signed type, naming the flag', () => {
    expect(() => parseWeightType('i4g128z')).toThrow(/`weights`: 'i4g128z': zero points \(z\) apply to unsigned types/);
    expect(() => parseWeightType('f6e3m2g128z')).toThrow(expect.objectContaining({ field: 'weights' }));
    expect(() => parseWeightType('i1g128')).toThrow(/at least 2 bits/);
  });

  it('counts zero points in the bytes: one packed code per (group, column) beside each bf16 scale', () => {
    const n = 4096;
    const k = 4096;
    const groups = k / 128;
    const sym = linearWeightBytes(parseWeightType('u4g128'), n, k);
    const asym = linearWeightBytes(parseWeightType('u4g128z'), n, k);
    expect(asym.weights).toBe(sym.weights);
    expect(asym.scales - sym.scales).toBe((groups * n * 4) / 8);
    const u1 = linearWeightBytes(parseWeightType('u1g128'), n, k);
    expect(u1.weights).toBe((n * k) / 8);
    expect(u1.scales).toBe(groups * n * 2 + (groups * n) / 8);
    expect(weightBufferBytes(parseWeightType('u1g128'), n, k).scales).toBe(u1.scales);
    expect(weightSliceBytes(parseWeightType('u4g128z'), 64, 256).scales).toBe(2 * 64 * 2 + (2 * 64 * 4) / 8);
    // and the tile reads them: a third region in the group-parameter buffer, past the scales
    const regions = linearWeightRegions(parseWeightType('u4g128z'), { n, k }, { w: 0, scales: 1 }, 64, 64, 0, 256, 'default');
    expect(regions).toHaveLength(3);
    expect(regions[2]).toMatchObject({ buffer: 1, offset: groups * n * 2 + (64 * 4) / 8, bytes: (64 * 4) / 8, rows: 2 });
    expect(dequantOpsPerElement(parseWeightType('u4g128z'))).toBe(dequantOpsPerElement(parseWeightType('u4g128')) + 1);
  });

  it('asymmetric quantization: every weight within half a level of its group range, zeros exact, and the linear matches the dequantized weight', () => {
    const rng = new Rng(7);
    const n = 8;
    const k = 256;
    const w = rng.normals(n * k).map((x, i) => x + (i % 3 === 0 ? 1.5 : 0)); // skewed groups
    w[10] = 0;
    for (const name of ['u1', 'u2', 'u4', 'u8']) {
      const t = parseLowBitType(name);
      const q = quantizeGroupwise(w, n, k, t, 128, 'fp32', true);
      expect(q.zeros).toBeDefined();
      const d = dequantize(q);
      for (let col = 0; col < n; col++)
        for (let kk = 0; kk < k; kk++) {
          const s = q.scales[Math.floor(kk / 128) * n + col]!;
          // half a level, plus the range the clamped zero point can shift by
          expect(Math.abs(d[col * k + kk]! - w[col * k + kk]!), `${name} ${col},${kk}`).toBeLessThanOrEqual(s * 1.0 + 1e-6);
        }
      expect(d[10]).toBe(0);
      const x = rng.normals(2 * k);
      const y = quantizedLinear(x, q, 2);
      const ref = linear(x, d, 2, n, k);
      for (let i = 0; i < y.length; i++) expect(y[i]!).toBeCloseTo(ref[i]!, 3);
    }
  });

  it('zero points cut the error of a skewed group below the symmetric form at the same width', () => {
    const rng = new Rng(3);
    const n = 4;
    const k = 128;
    const w = rng.normals(n * k).map((x) => Math.abs(x) + 0.5); // all positive: symmetric wastes half its levels
    const err = (d: Float32Array) => d.reduce((a, v, i) => a + (v - w[i]!) ** 2, 0);
    const sym = dequantize(quantizeGroupwise(w, n, k, parseLowBitType('u4'), 128, 'fp32'));
    const asym = dequantize(quantizeGroupwise(w, n, k, parseLowBitType('u4'), 128, 'fp32', true));
    expect(err(asym)).toBeLessThan(err(sym) / 2);
  });

  it('refuses zero points on a signed type', () => {
    expect(() => quantizeGroupwise([1, 2], 1, 2, parseLowBitType('i4'), 32, 'fp32', true)).toThrow(/unsigned/);
  });
});
