import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bf16Bits, bf16BitsFromFp32, bf16FromBits, fp16Bits, fp16FromBits, roundBf16, roundFp16, Rng } from '../src/index.js';

/** Independent decoders written from the IEEE definitions (no shared code with the library). */
function fp16Ref(b: number): number {
  const s = b >> 15 ? -1 : 1;
  const e = (b >> 10) & 31;
  const m = b & 1023;
  if (e === 31) return m ? NaN : s * Infinity;
  if (e === 0) return s * m * 2 ** -24;
  return s * (1024 + m) * 2 ** (e - 25);
}

function bf16Ref(b: number): number {
  const s = b >> 15 ? -1 : 1;
  const e = (b >> 7) & 255;
  const m = b & 127;
  if (e === 255) return m ? NaN : s * Infinity;
  if (e === 0) return s * m * 2 ** -133;
  return s * (128 + m) * 2 ** (e - 134);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

describe('fp16', () => {
  it('decodes every code as the IEEE definition says', () => {
    const bad: number[] = [];
    for (let b = 0; b < 65536; b++) {
      const want = fp16Ref(b);
      const got = fp16FromBits(b);
      if (!(Object.is(got, want) || (Number.isNaN(want) && Number.isNaN(got)))) bad.push(b);
    }
    expect(bad).toEqual([]);
  });

  it('encodes every non-NaN value back to its own code (±0 included)', () => {
    const bad: number[] = [];
    for (let b = 0; b < 65536; b++) {
      const v = fp16Ref(b);
      if (!Number.isNaN(v) && fp16Bits(v) !== b) bad.push(b);
    }
    expect(bad).toEqual([]);
  });

  it('rounds to nearest, ties to even, between every pair of neighbours', () => {
    const bad: number[] = [];
    for (let b = 0; b < 0x7bff; b++) {
      const lo = fp16Ref(b);
      const hi = fp16Ref(b + 1);
      const mid = (lo + hi) / 2;
      const even = b % 2 === 0 ? lo : hi;
      const eps = (hi - lo) / 1024;
      if (roundFp16(mid) !== even || roundFp16(-mid) !== -even || roundFp16(mid - eps) !== lo || roundFp16(mid + eps) !== hi) bad.push(b);
    }
    expect(bad).toEqual([]);
  });

  it('keeps subnormals, underflows halfway to zero by the even rule, overflows to infinity past max + ulp/2', () => {
    expect(roundFp16(2 ** -24)).toBe(2 ** -24);
    expect(roundFp16(2 ** -25)).toBe(0);
    expect(roundFp16(0.75 * 2 ** -24)).toBe(2 ** -24);
    expect(roundFp16(1.5 * 2 ** -24)).toBe(2 * 2 ** -24);
    expect(Object.is(roundFp16(-(2 ** -26)), -0)).toBe(true);
    expect(roundFp16(65504)).toBe(65504);
    expect(roundFp16(65519.99)).toBe(65504);
    expect(roundFp16(65520)).toBe(Infinity);
    expect(roundFp16(-1e9)).toBe(-Infinity);
    expect(Number.isNaN(roundFp16(NaN))).toBe(true);
  });
});

describe('bf16', () => {
  it('decodes and re-encodes every code', () => {
    const bad: number[] = [];
    for (let b = 0; b < 65536; b++) {
      const v = bf16Ref(b);
      if (Number.isNaN(v)) {
        if (!Number.isNaN(bf16FromBits(b))) bad.push(b);
      } else if (!Object.is(bf16FromBits(b), v) || bf16Bits(v) !== b) bad.push(b);
    }
    expect(bad).toEqual([]);
  });

  it('rounds to nearest, ties to even, including subnormals and the overflow edge', () => {
    const bad: number[] = [];
    for (let b = 0; b < 0x7f7f; b++) {
      const lo = bf16Ref(b);
      const hi = bf16Ref(b + 1);
      const mid = (lo + hi) / 2;
      if (roundBf16(mid) !== (b % 2 === 0 ? lo : hi) || roundBf16(mid + (hi - lo) / 1e3) !== hi || roundBf16(mid - (hi - lo) / 1e3) !== lo) bad.push(b);
    }
    expect(bad).toEqual([]);
    const max = bf16Ref(0x7f7f);
    const ulp = max - bf16Ref(0x7f7e);
    expect(roundBf16(max + ulp / 2 - ulp / 1e3)).toBe(max);
    expect(roundBf16(max + ulp / 2)).toBe(Infinity);
    expect(roundBf16(2 ** -133)).toBe(2 ** -133);
    expect(roundBf16(2 ** -134)).toBe(0);
    expect(roundBf16(3 * 2 ** -135)).toBe(2 ** -133);
  });

  it('agrees with the GPU conversion trick on random fp32 values', () => {
    const rng = new Rng(7);
    const bad: number[] = [];
    for (let i = 0; i < 200_000; i++) {
      u32[0] = rng.nextU32();
      const x = f32[0]!;
      if (!Number.isNaN(x) && bf16BitsFromFp32(x) !== bf16Bits(x)) bad.push(u32[0]!);
    }
    expect(bad).toEqual([]);
  });

  it('returns the nearer of the two bf16 neighbours of any double (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e30, max: 1e30, noNaN: true }), (x) => {
        const r = roundBf16(x);
        // Neighbours: r and the next bf16 value on the other side of x.
        const b = bf16Bits(r);
        const other = x > r ? bf16Ref(r >= 0 ? b + 1 : b - 1) : x < r ? bf16Ref(r > 0 ? b - 1 : r === 0 ? 0x8001 : b + 1) : r;
        return Math.abs(x - r) <= Math.abs(x - other);
      }),
      { seed: 11, numRuns: 2000 },
    );
  });
});
