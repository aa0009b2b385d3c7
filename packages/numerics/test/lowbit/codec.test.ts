import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  allLowBitTypes,
  decode,
  decodeArray,
  decodeTable,
  encode,
  encodeArray,
  floatType,
  intType,
  packCodes,
  parseLowBitType,
  uintType,
  unpackCodes,
  type LowBitType,
} from '../../src/index.js';

/** An independent decoder, from the bit string and the definitions (Tilus / OCP / IEEE). */
function scalarDecode(t: LowBitType, code: number): number {
  const s = code.toString(2).padStart(t.bits, '0');
  if (t.kind === 'uint') return parseInt(s, 2);
  if (t.kind !== 'float') return s[0] === '1' ? parseInt(s, 2) - 2 ** t.bits : parseInt(s, 2);
  const e = t.format.exponentBits;
  const m = t.format.mantissaBits;
  const sign = s[0] === '1' ? -1 : 1;
  const E = parseInt(s.slice(1, 1 + e), 2);
  const M = m === 0 ? 0 : parseInt(s.slice(1 + e), 2);
  const bias = 2 ** (e - 1) - 1;
  const allOnesE = E === 2 ** e - 1;
  if (t.name === 'f8e5m2' && allOnesE) return M === 0 ? sign * Infinity : NaN;
  if (t.name === 'f8e4m3' && allOnesE && M === 2 ** m - 1) return NaN;
  if (E === 0) return sign * 2 ** (1 - bias) * (M / 2 ** m);
  return sign * 2 ** (E - bias) * (1 + M / 2 ** m);
}

const TYPES = allLowBitTypes();

describe('every low-precision type, every code', () => {
  it('covers i1..i8, u1..u8 and the 27 float splits of 3..8 bits', () => {
    expect(TYPES.filter((t) => t.kind === 'int')).toHaveLength(8);
    expect(TYPES.filter((t) => t.kind === 'uint')).toHaveLength(8);
    expect(TYPES.filter((t) => t.kind === 'float').map((t) => t.name)).toContain('f3e1m1');
    expect(TYPES.filter((t) => t.kind === 'float')).toHaveLength(2 + 3 + 4 + 5 + 6 + 7);
  });

  it('decodes bit-exactly like the independent scalar decoder', () => {
    const bad: string[] = [];
    for (const t of TYPES) {
      for (let c = 0; c < 2 ** t.bits; c++) {
        const want = scalarDecode(t, c);
        const got = decode(t, c);
        const table = decodeTable(t)[c]!;
        const same = (a: number) => Object.is(a, want) || (Number.isNaN(a) && Number.isNaN(want));
        if (!same(got) || !same(table)) bad.push(`${t.name}:${c}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('encodes every value back to its code (−0 keeps its sign bit)', () => {
    const bad: string[] = [];
    for (const t of TYPES) {
      for (let c = 0; c < 2 ** t.bits; c++) {
        const v = scalarDecode(t, c);
        if (Number.isNaN(v) || !Number.isFinite(v)) continue;
        if (encode(t, v) !== c) bad.push(`${t.name}:${c}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('rounds to nearest, ties to even, between neighbouring values, and saturates beyond the range', () => {
    const bad: string[] = [];
    for (const t of TYPES) {
      const values = [...new Set(Array.from(decodeTable(t)).filter((v) => Number.isFinite(v)))].sort((a, b) => a - b);
      for (let i = 0; i + 1 < values.length; i++) {
        const lo = values[i]!;
        const hi = values[i + 1]!;
        const mid = (lo + hi) / 2;
        const cLo = encode(t, lo);
        // Ties go to the even code (even mantissa / even integer); −0 and +0 are both even.
        const evenIsLo = t.kind === 'float' ? (cLo & 1) === 0 : lo % 2 === 0;
        const want = evenIsLo ? lo : hi;
        if (decode(t, encode(t, mid)) !== want && !(want === 0 && decode(t, encode(t, mid)) === 0)) bad.push(`${t.name} tie ${mid}`);
        const eps = (hi - lo) / 1000;
        if (decode(t, encode(t, mid - eps)) !== lo && !(lo === 0 && decode(t, encode(t, mid - eps)) === 0)) bad.push(`${t.name} below ${mid}`);
        if (decode(t, encode(t, mid + eps)) !== hi && !(hi === 0 && decode(t, encode(t, mid + eps)) === 0)) bad.push(`${t.name} above ${mid}`);
      }
      const max = values[values.length - 1]!;
      const min = values[0]!;
      if (decode(t, encode(t, max * 4 + 1e6)) !== max || decode(t, encode(t, min * 4 - 1e6)) !== min) bad.push(`${t.name} saturation`);
    }
    expect(bad).toEqual([]);
  });

  it('has the documented ranges', () => {
    const max = (n: string) => (parseLowBitType(n) as { max: number }).max;
    expect(max('f4e2m1')).toBe(6);
    expect(max('f6e3m2')).toBe(28);
    expect(max('f6e2m3')).toBe(7.5);
    expect(max('f3e1m1')).toBe(3);
    expect(max('f8e4m3')).toBe(448);
    expect(max('f8e5m2')).toBe(57344);
    expect(decode(floatType(2, 1), 1)).toBe(0.5);
    expect(decode(floatType(3, 2), 1)).toBe(0.0625);
    expect(decode(floatType(2, 3), 1)).toBe(0.125);
    expect([intType(4).min, intType(4).max, uintType(3).max]).toEqual([-8, 7, 7]);
    expect(encode(intType(4), 2.5)).toBe(2);
    expect(encode(intType(4), 3.5)).toBe(4);
    expect(decode(intType(4), encode(intType(4), -2.5))).toBe(-2);
  });

  it('maps NaN to the NaN code where the type has one and refuses it elsewhere', () => {
    expect(Number.isNaN(decode(floatType(4, 3), encode(floatType(4, 3), NaN)))).toBe(true);
    expect(Number.isNaN(decode(floatType(5, 2), encode(floatType(5, 2), NaN)))).toBe(true);
    expect(() => encode(floatType(2, 1), NaN)).toThrow(RangeError);
    expect(() => encode(intType(4), NaN)).toThrow(RangeError);
    expect(decode(floatType(2, 1), encode(floatType(2, 1), Infinity))).toBe(6);
  });
});

describe('compact storage, LSB first', () => {
  it('packs 3-bit codes across byte boundaries as the bit stream says', () => {
    // 5 = 101 at bits 0..2, 3 = 011 at 3..5, 7 = 111 at 6..8 (straddles into byte 1).
    expect(Array.from(packCodes([5, 3, 7], 3))).toEqual([5 | (3 << 3) | ((7 << 6) & 0xff), 7 >> 2]);
    expect(Array.from(unpackCodes(Uint8Array.from([221, 1]), 3, 3))).toEqual([5, 3, 7]);
  });

  it('round-trips any codes of any width, from any element offset', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.nat(255), { maxLength: 200 }), fc.nat(13), (bits, raw, start) => {
        const codes = raw.map((c) => c & ((1 << bits) - 1));
        const buf = new Uint8Array(Math.ceil(((codes.length + start) * bits) / 8) + 1).fill(0xa5);
        packCodes(codes, bits, buf, start);
        const back = unpackCodes(buf, bits, codes.length, start);
        // Bits outside the written range are left alone.
        const before = unpackCodes(buf, 1, start * bits);
        const fill = unpackCodes(Uint8Array.from([0xa5, 0xa5]), 1, 16);
        return Array.from(back).every((c, i) => c === codes[i]) && Array.from(before).every((b, i) => b === fill[i % 8]);
      }),
      { seed: 3, numRuns: 300 },
    );
  });

  it('stores values at bits·n / 8 bytes and decodes them exactly', () => {
    const t = parseLowBitType('f6e3m2');
    const values = Array.from({ length: 101 }, (_, i) => ((i % 57) - 28) / 2);
    const bytes = encodeArray(t, values);
    expect(bytes.length).toBe(Math.ceil((101 * 6) / 8));
    const back = decodeArray(t, bytes, 101);
    for (let i = 0; i < 101; i++) expect(back[i]).toBe(decode(t, encode(t, values[i]!)));
  });
});

describe('type names', () => {
  it('accepts the usual spellings', () => {
    expect(parseLowBitType('int6').name).toBe('i6');
    expect(parseLowBitType('uint4').name).toBe('u4');
    expect(parseLowBitType('e4m3').name).toBe('f8e4m3');
    expect(parseLowBitType('float6_e3m2').name).toBe('f6e3m2');
    expect(parseLowBitType('i3b').name).toBe('i3');
  });

  it('rejects impossible types with a one-line error', () => {
    for (const bad of ['i9', 'u0', 'f5e3m2', 'e0m3', 'e5m3', 'f2e1m0', 'bf16']) {
      expect(() => parseLowBitType(bad)).toThrow(/type|bits/);
    }
  });
});
