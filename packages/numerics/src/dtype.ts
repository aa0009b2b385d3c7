/**
 * The storage types of activations and dense weights: fp32, fp16 and bf16, with correct
 * rounding (nearest, ties to even, subnormals kept, IEEE overflow to ±∞). Reference kernels
 * compute in double and round once when they store, as a kernel accumulating in fp32 and
 * converting on store does (up to the fp32 accumulation error, which is far smaller).
 */
import { BF16_FORMAT, decodeFloat, encodeFloat, FP16_FORMAT, formatRounder } from './float-format.js';

export type FloatDType = 'fp32' | 'fp16' | 'bf16';

export const FLOAT_DTYPES: readonly FloatDType[] = ['fp32', 'fp16', 'bf16'];

export function roundFp32(x: number): number {
  return Math.fround(x);
}

/** Round to fp16 (nearest even, subnormals, overflow to ±∞). */
export const roundFp16: (x: number) => number = formatRounder(FP16_FORMAT);

/** Round to bf16 (nearest even, subnormals, overflow to ±∞). */
export const roundBf16: (x: number) => number = formatRounder(BF16_FORMAT);

/** The 16-bit pattern of `x` rounded to fp16. */
export function fp16Bits(x: number): number {
  return encodeFloat(x, FP16_FORMAT);
}

export function fp16FromBits(bits: number): number {
  return decodeFloat(bits & 0xffff, FP16_FORMAT);
}

/** The 16-bit pattern of `x` rounded to bf16. */
export function bf16Bits(x: number): number {
  return encodeFloat(x, BF16_FORMAT);
}

const cvtF32 = new Float32Array(1);
const cvtU32 = new Uint32Array(cvtF32.buffer);

export function bf16FromBits(bits: number): number {
  cvtU32[0] = (bits & 0xffff) << 16;
  return cvtF32[0]!;
}

/**
 * bf16 bits of an fp32 value the way GPUs convert (`cvt.rn.bf16.f32`): add 0x7fff plus the
 * lowest kept bit and truncate. Exact for fp32 inputs; kept as an independent path that the
 * tests check against `bf16Bits`.
 */
export function bf16BitsFromFp32(x: number): number {
  cvtF32[0] = x;
  const u = cvtU32[0]!;
  if ((u & 0x7f800000) === 0x7f800000 && (u & 0x7fffff) !== 0) return ((u >>> 16) | 0x40) & 0xffff;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** A function rounding a double to `dtype`. */
export function rounder(dtype: FloatDType): (x: number) => number {
  switch (dtype) {
    case 'fp32':
      return roundFp32;
    case 'fp16':
      return roundFp16;
    case 'bf16':
      return roundBf16;
  }
}

/** Round every element of `a` to `dtype`, in place; returns `a`. */
export function roundArray(dtype: FloatDType, a: Float32Array | Float64Array): typeof a {
  const r = rounder(dtype);
  for (let i = 0; i < a.length; i++) a[i] = r(a[i]!);
  return a;
}

/** Bytes per element of a storage type. */
export function dtypeBytes(dtype: FloatDType): number {
  return dtype === 'fp32' ? 4 : 2;
}
