/**
 * Group-wise symmetric weight quantization (Tilus, GPTQ's symmetric mode): each group of
 * `group` consecutive K elements of one output column shares a scale
 * s = max|w| / qmax, stored in fp16/bf16, and w ≈ q·s.
 *
 * q is the type's value for signed integers and floats (qmax = 2^(n−1) − 1, or the float's
 * max). Unsigned integers hold offset-binary codes with the fixed zero point 2^(n−1)
 * (q = code − 2^(n−1)), GPTQ's symmetric convention, so `u4` and `i4` reach the same levels.
 *
 * Asymmetric (`zeroPoint`, unsigned codes only; GPTQ/AWQ with zero points): each group maps
 * its range [min, max] onto the codes 0..2^n − 1 with s = (max − min) / (2^n − 1) and an
 * integer zero point z = round(−min / s) clamped to the codes, so w ≈ (code − z)·s. A 1-bit
 * code has only this form.
 */
import { decode, decodeTable, encode, intType, packCodes, rounder, unpackCodes, type FloatDType, type LowBitType } from '@fleet/numerics';

export interface QuantizedMatrix {
  type: LowBitType;
  /** Output features (rows of the nn.Linear weight) and input features. */
  n: number;
  k: number;
  group: number;
  /** Codes of W [N, K] in row-major order, packed LSB-first. */
  packed: Uint8Array;
  /** Scales [ceil(K/group), N], rounded to `scaleDtype`. */
  scales: Float32Array;
  scaleDtype: FloatDType;
  /** Subtracted from an unsigned code's value (2^(n−1) for uN, else 0) when there are no per-group zero points. */
  zeroPoint: number;
  /** Asymmetric: the zero-point code of each (group, column), [ceil(K/group), N]; replaces `zeroPoint`. */
  zeros?: Uint8Array;
}

export function zeroPointOf(type: LowBitType): number {
  return type.kind === 'uint' ? 2 ** (type.bits - 1) : 0;
}

/** Largest quantization level: the scale maps max|w| onto it. */
export function quantMax(type: LowBitType): number {
  return type.kind === 'float' ? type.max : 2 ** (type.bits - 1) - 1;
}

/** Level values by code (code value minus the zero point). */
export function levelTable(type: LowBitType): Float64Array {
  const zp = zeroPointOf(type);
  return decodeTable(type).map((v) => v - zp);
}

/**
 * Quantize W [N, K] (row-major, nn.Linear layout) group-wise along K; `asymmetric` stores a
 * zero point per group (unsigned types only).
 */
export function quantizeGroupwise(
  w: ArrayLike<number>,
  n: number,
  k: number,
  type: LowBitType,
  group: number,
  scaleDtype: FloatDType = 'bf16',
  asymmetric = false,
): QuantizedMatrix {
  if (asymmetric) return quantizeAsymmetric(w, n, k, type, group, scaleDtype);
  const qmax = quantMax(type);
  if (!(qmax > 0)) throw new RangeError(`${type.name} has no positive level to quantize onto`);
  const groups = Math.ceil(k / group);
  const zp = zeroPointOf(type);
  const round = rounder(scaleDtype);
  const scales = new Float32Array(groups * n);
  const codes = new Uint8Array(n * k);
  // Unsigned codes are offset-binary: quantize as the signed type of the same width, then add 2^(n−1).
  const levelType = type.kind === 'uint' ? intType(type.bits) : type;
  const codeOf = (x: number) => (type.kind === 'uint' ? decode(levelType, encode(levelType, x)) + zp : encode(type, x));
  const zeroCode = codeOf(0);
  for (let col = 0; col < n; col++) {
    for (let g = 0; g < groups; g++) {
      const k0 = g * group;
      const k1 = Math.min(k, k0 + group);
      let amax = 0;
      for (let kk = k0; kk < k1; kk++) amax = Math.max(amax, Math.abs(w[col * k + kk]!));
      const s = round(amax / qmax);
      scales[g * n + col] = s;
      for (let kk = k0; kk < k1; kk++) codes[col * k + kk] = s === 0 ? zeroCode : codeOf(w[col * k + kk]! / s);
    }
  }
  return { type, n, k, group, packed: packCodes(codes, type.bits), scales, scaleDtype, zeroPoint: zp };
}

function quantizeAsymmetric(w: ArrayLike<number>, n: number, k: number, type: LowBitType, group: number, scaleDtype: FloatDType): QuantizedMatrix {
  if (type.kind !== 'uint') throw new RangeError(`zero points apply to unsigned types, not ${type.name}`);
  const top = 2 ** type.bits - 1;
  const groups = Math.ceil(k / group);
  const round = rounder(scaleDtype);
  const scales = new Float32Array(groups * n);
  const zeros = new Uint8Array(groups * n);
  const codes = new Uint8Array(n * k);
  const clamp = (x: number) => Math.min(top, Math.max(0, x));
  for (let col = 0; col < n; col++) {
    for (let g = 0; g < groups; g++) {
      const k0 = g * group;
      const k1 = Math.min(k, k0 + group);
      // The range always includes 0, so an exact zero stays representable (padding, pruned weights).
      let lo = 0;
      let hi = 0;
      for (let kk = k0; kk < k1; kk++) {
        lo = Math.min(lo, w[col * k + kk]!);
        hi = Math.max(hi, w[col * k + kk]!);
      }
      const s = round((hi - lo) / top);
      const z = s === 0 ? 0 : clamp(Math.round(-lo / s));
      scales[g * n + col] = s;
      zeros[g * n + col] = z;
      for (let kk = k0; kk < k1; kk++) codes[col * k + kk] = s === 0 ? z : clamp(Math.round(w[col * k + kk]! / s) + z);
    }
  }
  return { type, n, k, group, packed: packCodes(codes, type.bits), scales, scaleDtype, zeroPoint: 0, zeros };
}

/** The value a code stands for before scaling: its level, less the group's zero point when there is one. */
function levelOf(q: QuantizedMatrix, levels: Float64Array, code: number, g: number, col: number): number {
  return q.zeros ? code - q.zeros[g * q.n + col]! : levels[code]!;
}

/** The dequantized weight W' [N, K] = q · s, exactly (no rounding: q·s fits a double). */
export function dequantize(q: QuantizedMatrix): Float32Array {
  const levels = levelTable(q.type);
  const codes = unpackCodes(q.packed, q.type.bits, q.n * q.k);
  const out = new Float32Array(q.n * q.k);
  for (let col = 0; col < q.n; col++) {
    for (let kk = 0; kk < q.k; kk++) {
      const g = Math.floor(kk / q.group);
      out[col * q.k + kk] = levelOf(q, levels, codes[col * q.k + kk]!, g, col) * q.scales[g * q.n + col]!;
    }
  }
  return out;
}

/**
 * W{n}A16 linear: y[m, n] = Σ_g s[g, n] · Σ_{k∈g} x[m, k] · q[n, k], codes unpacked once per
 * weight row and looked up in the level table (the reference for a dequantizing GEMV/GEMM).
 * Outputs are rounded by `round` (default fp32).
 */
export function quantizedLinear(x: ArrayLike<number>, q: QuantizedMatrix, m: number, round: (v: number) => number = Math.fround): Float32Array {
  const { n, k, group } = q;
  const levels = levelTable(q.type);
  const row = new Uint8Array(k);
  const acc = new Float64Array(m);
  const y = new Float32Array(m * n);
  const groups = Math.ceil(k / group);
  for (let col = 0; col < n; col++) {
    unpackCodes(q.packed, q.type.bits, k, col * k, row);
    acc.fill(0);
    for (let g = 0; g < groups; g++) {
      const s = q.scales[g * n + col]!;
      const k0 = g * group;
      const k1 = Math.min(k, k0 + group);
      // Asymmetric: Σ x·(code − z) = Σ x·code − z·Σ x, the zero point applied once per group.
      const z = q.zeros ? q.zeros[g * n + col]! : 0;
      for (let r = 0; r < m; r++) {
        const xo = r * k;
        let dot = 0;
        let sum = 0;
        if (q.zeros) {
          for (let kk = k0; kk < k1; kk++) {
            dot += x[xo + kk]! * row[kk]!;
            sum += x[xo + kk]!;
          }
          dot -= z * sum;
        } else {
          for (let kk = k0; kk < k1; kk++) dot += x[xo + kk]! * levels[row[kk]!]!;
        }
        acc[r]! += s * dot;
      }
    }
    for (let r = 0; r < m; r++) y[r * n + col] = round(acc[r]!);
  }
  return y;
}
