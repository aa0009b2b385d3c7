/**
 * Encoding values into low-precision codes and back. Encoding rounds to nearest, ties to
 * even, and saturates at the type's range (integers clamp, floats saturate to ±max); NaN
 * becomes the NaN code where the type has one and is a `RangeError` otherwise. Decoding a
 * code is exact (every code's value is a double, and an fp32).
 */
import { decodeFloat, encodeFloat, roundHalfEven } from '../float-format.js';
import type { LowBitType } from './types.js';

/** Round to the nearest integer, ties to even, for either sign. */
function roundIntegerHalfEven(x: number): number {
  return x < 0 ? -roundHalfEven(-x) : roundHalfEven(x);
}

/** The code of `x` in `type` (an unsigned integer < 2^bits). */
export function encode(type: LowBitType, x: number): number {
  if (type.kind === 'float') return encodeFloat(x, type.format, 'saturate');
  if (Number.isNaN(x)) throw new RangeError(`NaN has no code in ${type.name}`);
  const v = Math.min(type.max, Math.max(type.min, roundIntegerHalfEven(x)));
  return type.kind === 'int' && v < 0 ? v + 2 ** type.bits : v;
}

/** The value of `code` in `type`. */
export function decode(type: LowBitType, code: number): number {
  if (type.kind === 'float') return decodeFloat(code, type.format);
  if (type.kind === 'int' && code >= 2 ** (type.bits - 1)) return code - 2 ** type.bits;
  return code;
}

const tables = new Map<string, Float64Array>();

/** Every code's value, indexed by code (2^bits entries), cached per type. */
export function decodeTable(type: LowBitType): Float64Array {
  let t = tables.get(type.name);
  if (!t) {
    t = new Float64Array(2 ** type.bits);
    for (let c = 0; c < t.length; c++) t[c] = decode(type, c);
    tables.set(type.name, t);
  }
  return t;
}

/** The value `x` becomes when stored in `type` (encode then decode). */
export function quantizeValue(type: LowBitType, x: number): number {
  return decode(type, encode(type, x));
}
