/**
 * Binary floating-point formats of any exponent/mantissa split, and exact rounding into
 * them. One implementation serves fp32, fp16, bf16, the 8-bit floats and the sub-byte floats
 * (e2m1, e3m2, …), so every type rounds by the same rule: round to nearest, ties to even,
 * computed on the exact double value (no double rounding through fp32).
 */

/**
 * How the all-ones exponent is used:
 * - `ieee`: infinities and NaNs (fp32, fp16, bf16, f8e5m2);
 * - `fn`: finite, except the all-ones code S.1…1.1…1 which is NaN (OCP f8e4m3, "FN");
 * - `fnuz`: every code finite except the negative-zero code 1.0…0.0…0, the one NaN; no −0,
 *   and the bias is one more than IEEE's (AMD CDNA3's e4m3fnuz and e5m2fnuz, "FNUZ": max
 *   240 and 57344);
 * - `none`: every code is a finite number (sub-byte floats, as in Tilus).
 */
export type SpecialValues = 'ieee' | 'fn' | 'fnuz' | 'none';

export interface FloatFormat {
  exponentBits: number;
  mantissaBits: number;
  /** Exponent bias: 2^(e−1) − 1, or 2^(e−1) for `fnuz` formats. */
  bias: number;
  special: SpecialValues;
}

export function floatFormat(exponentBits: number, mantissaBits: number, special: SpecialValues): FloatFormat {
  if (!Number.isInteger(exponentBits) || exponentBits < 1 || exponentBits > 11) throw new RangeError(`exponent bits ${exponentBits} must be 1..11`);
  if (!Number.isInteger(mantissaBits) || mantissaBits < 0 || mantissaBits > 52) throw new RangeError(`mantissa bits ${mantissaBits} must be 0..52`);
  return { exponentBits, mantissaBits, bias: 2 ** (exponentBits - 1) - (special === 'fnuz' ? 0 : 1), special };
}

export const FP32_FORMAT = floatFormat(8, 23, 'ieee');
export const FP16_FORMAT = floatFormat(5, 10, 'ieee');
export const BF16_FORMAT = floatFormat(8, 7, 'ieee');

/** Total bits of a code: sign + exponent + mantissa. */
export function formatBits(f: FloatFormat): number {
  return 1 + f.exponentBits + f.mantissaBits;
}

/** Exponent of the smallest normal number (subnormals share it). */
export function minNormalExponent(f: FloatFormat): number {
  return 1 - f.bias;
}

/** Largest finite value. */
export function maxFinite(f: FloatFormat): number {
  const m = f.mantissaBits;
  const topField = 2 ** f.exponentBits - 1;
  switch (f.special) {
    case 'ieee':
      return 2 ** (topField - 1 - f.bias) * (2 - 2 ** -m);
    case 'fn':
      // The all-ones mantissa of the top binade is NaN; the next one down is the maximum.
      return m === 0 ? 2 ** (topField - 1 - f.bias) : 2 ** (topField - f.bias) * (1 + (2 ** m - 2) / 2 ** m);
    case 'fnuz':
    case 'none':
      return 2 ** (topField - f.bias) * (2 - 2 ** -m);
  }
}

/** Smallest positive (subnormal) value. */
export function minSubnormal(f: FloatFormat): number {
  return 2 ** (minNormalExponent(f) - f.mantissaBits);
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** floor(log2(a)) for a finite a > 0, exact (read from the double's exponent field). */
export function exponentOf(a: number): number {
  f64[0] = a;
  const e = ((u32[HI]! >>> 20) & 0x7ff) - 1023;
  if (e > -1023) return e;
  // Double subnormal: fall back to an exact search.
  let k = Math.floor(Math.log2(a));
  while (2 ** k > a) k--;
  while (2 ** (k + 1) <= a) k++;
  return k;
}

/** Round a non-negative real to the nearest integer, ties to even. */
export function roundHalfEven(r: number): number {
  const f = Math.floor(r);
  const d = r - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** What to do with a finite value beyond the largest finite one. */
export type Overflow = 'infinity' | 'saturate';

/** 2^k for integer k in the double range, exact. */
const POW2 = new Float64Array(2 * 1100 + 1).map((_, i) => 2 ** (i - 1100));

/**
 * A function rounding a double to the nearest value of format `f`, ties to even,
 * subnormals kept. Overflow follows IEEE (to ±∞, for formats that have it) or saturates to
 * ±max. NaN stays NaN (callers decide whether the format can hold it); −0 stays −0.
 */
export function formatRounder(f: FloatFormat, overflow: Overflow = f.special === 'ieee' ? 'infinity' : 'saturate'): (x: number) => number {
  const max = maxFinite(f);
  const emin = minNormalExponent(f);
  const m = f.mantissaBits;
  const sat = overflow === 'saturate' || f.special !== 'ieee';
  const over = sat ? max : Infinity;
  return (x) => {
    if (Number.isNaN(x)) return NaN;
    if (x === 0) return x;
    const a = x < 0 ? -x : x;
    if (a === Infinity) return sat ? (x < 0 ? -max : max) : x;
    let e = exponentOf(a);
    if (e < emin) e = emin;
    const q = POW2[e - m + 1100]!;
    const r = a / q;
    let n = Math.floor(r);
    const d = r - n;
    // Ties go to the even code. With mantissa bits that is the even integer n; without any
    // (e2m0…) the two candidates 2^e and 2^(e+1) differ in the exponent field's last bit.
    if (d > 0.5 || (d === 0.5 && (m === 0 && n === 1 ? (e + f.bias) % 2 === 1 : n % 2 === 1))) n += 1;
    let y = n * q;
    if (y > max) y = over;
    return x < 0 ? -y : y;
  };
}

const rounders = new WeakMap<FloatFormat, Map<string, (x: number) => number>>();

/** Round `x` to format `f` (see `formatRounder`). */
export function roundToFormat(x: number, f: FloatFormat, overflow?: Overflow): number {
  let byMode = rounders.get(f);
  if (!byMode) rounders.set(f, (byMode = new Map()));
  const key = overflow ?? 'default';
  let r = byMode.get(key);
  if (!r) byMode.set(key, (r = formatRounder(f, overflow)));
  return r(x);
}

/** Whether `code` is a NaN code of `f`. */
export function isNanCode(code: number, f: FloatFormat): boolean {
  const m = f.mantissaBits;
  const eField = (code >>> m) & (2 ** f.exponentBits - 1);
  const mField = code & (2 ** m - 1);
  const top = eField === 2 ** f.exponentBits - 1;
  if (f.special === 'ieee') return top && mField !== 0;
  if (f.special === 'fn') return top && mField === 2 ** m - 1;
  if (f.special === 'fnuz') return code === 2 ** (f.exponentBits + m);
  return false;
}

/** The value of a code (sign | exponent | mantissa, mantissa in the low bits). */
export function decodeFloat(code: number, f: FloatFormat): number {
  const m = f.mantissaBits;
  const e = f.exponentBits;
  const sign = Math.floor(code / 2 ** (e + m)) % 2 === 1 ? -1 : 1;
  const eField = Math.floor(code / 2 ** m) % 2 ** e;
  const mField = code % 2 ** m;
  if (f.special === 'fnuz' && sign < 0 && eField === 0 && mField === 0) return NaN;
  if (eField === 2 ** e - 1) {
    if (f.special === 'ieee') return mField === 0 ? sign * Infinity : NaN;
    if (f.special === 'fn' && mField === 2 ** m - 1) return NaN;
  }
  if (eField === 0) return sign * 2 ** minNormalExponent(f) * (mField / 2 ** m);
  return sign * 2 ** (eField - f.bias) * (1 + mField / 2 ** m);
}

/**
 * The code of `x` after rounding (see `roundToFormat`). NaN maps to the canonical NaN code
 * (quiet, positive) and is a `RangeError` for formats without one.
 */
export function encodeFloat(x: number, f: FloatFormat, overflow?: Overflow): number {
  const m = f.mantissaBits;
  const e = f.exponentBits;
  const signBit = 2 ** (e + m);
  if (Number.isNaN(x)) {
    if (f.special === 'ieee') return (2 ** e - 1) * 2 ** m + 2 ** Math.max(0, m - 1);
    if (f.special === 'fn') return (2 ** e - 1) * 2 ** m + (2 ** m - 1);
    if (f.special === 'fnuz') return signBit;
    throw new RangeError(`NaN has no code in a format without NaNs (e${e}m${m})`);
  }
  const y = roundToFormat(x, f, overflow);
  // A fnuz format has no −0: its code is the NaN.
  const neg = y < 0 || (Object.is(y, -0) && f.special !== 'fnuz');
  const a = Math.abs(y);
  let mag: number;
  if (a === Infinity) mag = (2 ** e - 1) * 2 ** m;
  else if (a === 0) mag = 0;
  else if (a < 2 ** minNormalExponent(f)) mag = a / minSubnormal(f);
  else {
    const ex = exponentOf(a);
    mag = (ex + f.bias) * 2 ** m + (a / 2 ** ex - 1) * 2 ** m;
  }
  return neg ? mag + signBit : mag;
}
