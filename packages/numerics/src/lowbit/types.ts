/**
 * Low-precision element types of 1 to 8 bits, as Tilus defines them: signed integers
 * `i2..i8` (two's complement), unsigned integers `u1..u8`, and floats `f{n}e{E}m{M}` for any
 * exponent/mantissa split with 3 ≤ n = 1+E+M ≤ 8.
 *
 * Floats: bias 2^(E−1) − 1 and subnormals. Sub-byte floats have no inf/NaN codes (the
 * all-ones exponent is an ordinary binade, so f4e2m1 reaches 6, f6e3m2 28, f6e2m3 7.5).
 * 8-bit floats follow the standards where there is one: f8e4m3 is OCP E4M3FN (max 448, one
 * NaN code per sign) and f8e5m2 is IEEE-like (±∞, NaNs); other 8-bit splits are all-finite
 * like the sub-byte ones. AMD CDNA3's FNUZ variants are their own types, `f8e4m3fnuz` and
 * `f8e5m2fnuz` (bias one higher, no ∞ or −0, NaN the negative-zero code).
 */
import { inputError } from '@fleet/core';
import { floatFormat, maxFinite, type FloatFormat } from '../float-format.js';

export interface IntType {
  kind: 'int' | 'uint';
  name: string;
  bits: number;
  /** Smallest and largest code value. */
  min: number;
  max: number;
}

export interface FloatType {
  kind: 'float';
  name: string;
  bits: number;
  format: FloatFormat;
  /** Largest finite value (the smallest is its negation). */
  max: number;
}

export type LowBitType = IntType | FloatType;

export function intType(bits: number): IntType {
  if (!Number.isInteger(bits) || bits < 1 || bits > 8) throw new RangeError(`signed integer width ${bits} must be 1..8`);
  return { kind: 'int', name: `i${bits}`, bits, min: -(2 ** (bits - 1)), max: 2 ** (bits - 1) - 1 };
}

export function uintType(bits: number): IntType {
  if (!Number.isInteger(bits) || bits < 1 || bits > 8) throw new RangeError(`unsigned integer width ${bits} must be 1..8`);
  return { kind: 'uint', name: `u${bits}`, bits, min: 0, max: 2 ** bits - 1 };
}

/** A float of `exponent` and `mantissa` bits; `fnuz` picks the FNUZ encoding of an 8-bit e4m3 or e5m2. */
export function floatType(exponent: number, mantissa: number, fnuz = false): FloatType {
  const bits = 1 + exponent + mantissa;
  if (!Number.isInteger(exponent) || !Number.isInteger(mantissa) || exponent < 1 || mantissa < 0 || bits < 3 || bits > 8) {
    throw new RangeError(`float e${exponent}m${mantissa}: need exponent ≥ 1, mantissa ≥ 0 and 3..8 bits in all`);
  }
  const standard = bits === 8 && (exponent === 4 || exponent === 5);
  if (fnuz && !standard) throw new RangeError(`float e${exponent}m${mantissa}: FNUZ encodings exist for 8-bit e4m3 and e5m2 only`);
  const special = fnuz ? 'fnuz' : bits === 8 && exponent === 4 ? 'fn' : bits === 8 && exponent === 5 ? 'ieee' : 'none';
  const format = floatFormat(exponent, mantissa, special);
  return { kind: 'float', name: `f${bits}e${exponent}m${mantissa}${fnuz ? 'fnuz' : ''}`, bits, format, max: maxFinite(format) };
}

/** The four FP8 element types of GPU matrix units: OCP e4m3 (FN) and e5m2, and CDNA3's FNUZ pair. */
export const FP8_TYPES: readonly FloatType[] = [floatType(4, 3), floatType(5, 2), floatType(4, 3, true), floatType(5, 2, true)];

/** Every type: i1..i8, u1..u8 and every float split of 3 to 8 bits. */
export function allLowBitTypes(): LowBitType[] {
  const out: LowBitType[] = [];
  for (let b = 1; b <= 8; b++) out.push(intType(b), uintType(b));
  for (let n = 3; n <= 8; n++) for (let e = 1; e <= n - 1; e++) out.push(floatType(e, n - 1 - e));
  return out;
}

const TYPE_SYNTAX = 'i1..i8 (int1..int8), u1..u8 (uint1..uint8), f{n}e{E}m{M} or e{E}m{M} with 3 ≤ 1+E+M ≤ 8 (e.g. f4e2m1, e4m3), and f8e4m3fnuz, f8e5m2fnuz';

/**
 * Parse a type name: `i4`, `int4`, `u3`, `uint3`, `f6e3m2`, `e3m2`, `float6_e3m2`, `fp8e4m3`,
 * `f8e4m3fn` (the OCP name of f8e4m3), `f8e4m3fnuz`, `float8_e5m2fnuz`.
 * Bad names are a one-line input error listing the syntax.
 */
export function parseLowBitType(text: string, field = 'type'): LowBitType {
  const s = text.trim().toLowerCase();
  let m = /^(?:i|int|s|sint)(\d)b?$/.exec(s);
  if (m) {
    const bits = Number(m[1]);
    if (bits >= 1 && bits <= 8) return intType(bits);
  }
  m = /^(?:u|uint)(\d)b?$/.exec(s);
  if (m) {
    const bits = Number(m[1]);
    if (bits >= 1 && bits <= 8) return uintType(bits);
  }
  m = /^(?:(?:f|fp|float)(\d)_?)?e(\d)m(\d)(fn|fnuz)?$/.exec(s);
  if (m) {
    const e = Number(m[2]);
    const mant = Number(m[3]);
    const n = 1 + e + mant;
    if (m[1] !== undefined && Number(m[1]) !== n) throw inputError(`${field}: '${text}' has ${m[1]} bits but 1 + ${e} + ${mant} = ${n}`);
    // `fn` is OCP's name for e4m3 (finite, NaN); FNUZ applies to the 8-bit e4m3 and e5m2.
    const suffixOk = m[4] === undefined || (n === 8 && (m[4] === 'fnuz' ? e === 4 || e === 5 : e === 4));
    if (e >= 1 && n >= 3 && n <= 8 && suffixOk) return floatType(e, mant, m[4] === 'fnuz');
  }
  throw inputError(`${field}: unknown low-precision type '${text}' (allowed: ${TYPE_SYNTAX})`);
}
