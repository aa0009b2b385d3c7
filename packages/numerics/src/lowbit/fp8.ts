/**
 * FP8 tensors with scales, as W8A8 GEMMs take them (`torch._scaled_mm`, cuBLASLt's and
 * hipBLASLt's FP8 GEMMs, CUTLASS's scaled epilogues): each element is an 8-bit float code,
 * and one fp32 scale per tensor, or per row (an output channel of a weight [N, K], a token of
 * an activation [M, K]), maps the codes back: x ≈ decode(code) · scale. The scale puts the
 * tensor's (or row's) largest magnitude on the type's largest finite value, so nothing
 * saturates; a GEMM multiplies the codes exactly, accumulates in fp32 and applies
 * scale_a[m] · scale_b[n] to each output in its epilogue.
 */
import { rounder, type FloatDType } from '../dtype.js';
import { decodeTable, encode } from './codec.js';
import type { FloatType } from './types.js';

/** `tensor`: one scale for the whole tensor; `row`: one per row (weight output channel, activation token). */
export type Fp8Scaling = 'tensor' | 'row';

export interface Fp8Tensor {
  type: FloatType;
  rows: number;
  cols: number;
  /** One code per element, row-major. */
  codes: Uint8Array;
  /** fp32 scales: one (`tensor`) or one per row (`row`). */
  scales: Float32Array;
  scaling: Fp8Scaling;
}

/** The scale of a block whose largest magnitude is `amax`: amax / max, as fp32; 1 for an all-zero block. */
export function fp8Scale(type: FloatType, amax: number): number {
  return amax > 0 ? Math.fround(amax / type.max) : 1;
}

/**
 * Quantise a row-major [rows, cols] tensor to `type` with one scale per tensor or per row.
 * Elements are divided by their (fp32) scale and rounded to nearest even, saturating.
 */
export function quantizeFp8(x: ArrayLike<number>, rows: number, cols: number, type: FloatType, scaling: Fp8Scaling): Fp8Tensor {
  if (x.length !== rows * cols) throw new RangeError(`quantizeFp8: ${x.length} elements for [${rows}, ${cols}]`);
  if (type.bits !== 8) throw new RangeError(`quantizeFp8: ${type.name} is not an 8-bit float`);
  const codes = new Uint8Array(rows * cols);
  const blocks = scaling === 'tensor' ? 1 : rows;
  const per = scaling === 'tensor' ? rows * cols : cols;
  const scales = new Float32Array(blocks);
  for (let b = 0; b < blocks; b++) {
    let amax = 0;
    for (let i = b * per; i < (b + 1) * per; i++) amax = Math.max(amax, Math.abs(x[i]!));
    const s = fp8Scale(type, amax);
    scales[b] = s;
    for (let i = b * per; i < (b + 1) * per; i++) codes[i] = encode(type, x[i]! / s);
  }
  return { type, rows, cols, codes, scales, scaling };
}

/** The scale of row `r`. */
export function fp8RowScale(t: Fp8Tensor, r: number): number {
  return t.scaling === 'tensor' ? t.scales[0]! : t.scales[r]!;
}

/** The values a quantised tensor stands for: decode(code) · scale, row-major. */
export function dequantizeFp8(t: Fp8Tensor): Float64Array {
  const table = decodeTable(t.type);
  const out = new Float64Array(t.rows * t.cols);
  for (let r = 0; r < t.rows; r++) {
    const s = fp8RowScale(t, r);
    for (let c = 0; c < t.cols; c++) out[r * t.cols + c] = table[t.codes[r * t.cols + c]!]! * s;
  }
  return out;
}

/**
 * A scaled FP8 GEMM, y[m, n] = (Σ_k a[m, k] · b[n, k]) · scale_a[m] · scale_b[n], as
 * `torch._scaled_mm(a, b.t(), scale_a, scale_b)` computes it: products of codes are exact,
 * the sum is taken in double (the fp32 accumulator's error is far smaller than the codes'),
 * and the result is rounded once to `out`. `a` is the activation [M, K], `b` the weight [N, K].
 */
export function scaledMatmulFp8(a: Fp8Tensor, b: Fp8Tensor, out: FloatDType = 'bf16'): Float64Array {
  if (a.cols !== b.cols) throw new RangeError(`scaledMatmulFp8: K of the activation (${a.cols}) and the weight (${b.cols}) differ`);
  const ta = decodeTable(a.type);
  const tb = decodeTable(b.type);
  const round = rounder(out);
  const k = a.cols;
  const y = new Float64Array(a.rows * b.rows);
  for (let m = 0; m < a.rows; m++) {
    const sa = fp8RowScale(a, m);
    for (let n = 0; n < b.rows; n++) {
      let acc = 0;
      for (let i = 0; i < k; i++) acc += ta[a.codes[m * k + i]!]! * tb[b.codes[n * k + i]!]!;
      y[m * b.rows + n] = round(acc * sa * fp8RowScale(b, n));
    }
  }
  return y;
}
