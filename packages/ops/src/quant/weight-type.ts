/**
 * Weight types as the CLI spells them (`--weights`): a dense storage type (`bf16`, `fp16`,
 * `fp32`) or a low-precision type with a quantization group, Tilus-style: `u4g128`,
 * `i6g128`, `f6e3m2g128`, `e4m3g64` — the type name (see `parseLowBitType`) followed by
 * `g` and the group size along K, and `z` for asymmetric quantization of unsigned codes
 * (`u4g128z`: every group also stores a zero point, GPTQ/AWQ-style).
 *
 * W8A8 FP8 (`f8e4m3`, `f8e4m3c`, `f8e4m3ae5m2`, `f8e4m3fnuz`): an 8-bit float type without a
 * group. Weights and activations are both FP8 and the GEMM runs on the FP8 matrix units,
 * scaling its fp32 accumulators in the epilogue. The name is the weight's FP8 type, then
 * `a<type>` when the activations' type differs (e5m2 activations under e4m3 weights), then
 * `c` for per-channel scales: one per output channel of the weight and one per token of
 * the activation (`torch._scaled_mm`'s row-wise scales, llm-compressor's FP8_DYNAMIC);
 * without it one scale per tensor (static per-tensor scales, llm-compressor's FP8).
 */
import { inputError } from '@fleet/core';
import { FP8_TYPES, parseLowBitType, type FloatDType, type FloatType, type LowBitType } from '@fleet/numerics';

export const QUANT_GROUPS: readonly number[] = [32, 64, 128, 256];

export interface DenseWeights {
  kind: 'dense';
  name: FloatDType;
  dtype: FloatDType;
  bits: number;
}

export interface QuantizedWeights {
  kind: 'quantized';
  /** Canonical name, e.g. `u4g128`. */
  name: string;
  type: LowBitType;
  bits: number;
  /** Consecutive K elements sharing one scale. */
  group: number;
  /** Storage type of the scales ([K/group, N]). */
  scaleDtype: FloatDType;
  /**
   * Asymmetric: each (group, column) also stores a zero point, a code of the weight's own
   * width ([K/group, N] packed, as GPTQ's qzeros); w ≈ (q − z)·s. Symmetric otherwise.
   */
  zeroPoint: boolean;
}

/** How a W8A8 GEMM scales its FP8 operands. */
export type Fp8Scales = 'tensor' | 'channel';

export interface Fp8Weights {
  kind: 'fp8';
  /** Canonical name, e.g. `f8e4m3`, `f8e4m3c`, `f8e4m3ae5m2`. */
  name: string;
  /** The weights' FP8 type. */
  type: FloatType;
  /** The activations' FP8 type (quantised before the GEMM). */
  activation: FloatType;
  bits: 8;
  /** `tensor`: one fp32 scale per weight and per activation; `channel`: one per output channel and one per token. */
  scales: Fp8Scales;
}

export type WeightType = DenseWeights | QuantizedWeights | Fp8Weights;

/** Dense bf16 weights: what a model's linear layers are unless a weight type says otherwise. */
export const DENSE_BF16: DenseWeights = { kind: 'dense', name: 'bf16', dtype: 'bf16', bits: 16 };

const DENSE: Record<string, FloatDType> = { bf16: 'bf16', fp16: 'fp16', f16: 'fp16', fp32: 'fp32', f32: 'fp32' };

const SYNTAX = `bf16, fp16, fp32, W8A8 FP8 f8e4m3|f8e5m2|f8e4m3fnuz|f8e5m2fnuz[a<activation type>][c] (c: per-channel scales; e.g. f8e4m3, f8e4m3c, f8e4m3ae5m2), or <type>g<group>[z] with type i2..i8, u1..u8 or a float f{n}e{E}m{M}, group ${QUANT_GROUPS.join('/')}, and z for zero points on unsigned types (e.g. u4g128, u4g128z, u1g128, i6g128, f6e3m2g128)`;

const FP8_NAME = /^(?:fp8|f8|float8_?)(e4m3(?:fn|fnuz)?|e5m2(?:fnuz)?)(?:a(?:fp8|f8|float8_?)?(e4m3(?:fn|fnuz)?|e5m2(?:fnuz)?))?(c?)$/;

function fp8Type(text: string): FloatType {
  const t = parseLowBitType(text);
  return FP8_TYPES.find((f) => f.name === t.name)!;
}

/** W8A8 FP8 from its name (see the module comment), or null when `s` is not one. */
function parseFp8(s: string, text: string, field: string): Fp8Weights | null {
  const m = FP8_NAME.exec(s);
  if (!m) return null;
  const type = fp8Type(m[1]!);
  const activation = m[2] ? fp8Type(m[2]) : type;
  // A device's matrix units take one family of FP8 encodings: OCP (FN/IEEE) or FNUZ.
  if ((type.format.special === 'fnuz') !== (activation.format.special === 'fnuz'))
    throw inputError(`${field}: '${text}' mixes OCP and FNUZ FP8 types (weights ${type.name}, activations ${activation.name})`, 'weights');
  const scales: Fp8Scales = m[3] === 'c' ? 'channel' : 'tensor';
  const name = `${type.name}${activation === type ? '' : `a${activation.name.slice(2)}`}${scales === 'channel' ? 'c' : ''}`;
  return { kind: 'fp8', name, type, activation, bits: 8, scales };
}

/**
 * Parse a weight type. Scales are stored in `scaleDtype` (the activation type; bf16 unless
 * given). Signed integers need at least 2 bits: symmetric quantization of a 1-bit integer has
 * no positive level. A 1-bit unsigned code has no symmetric form either, so `u1` groups always
 * carry a zero point (`u1g128` is `u1g128z`). Zero points apply to unsigned codes only.
 */
export function parseWeightType(text: string, field = '`weights`', scaleDtype: FloatDType = 'bf16'): WeightType {
  const s = String(text).trim().toLowerCase();
  const dense = DENSE[s];
  if (dense) return { kind: 'dense', name: dense, dtype: dense, bits: dense === 'fp32' ? 32 : 16 };
  const fp8 = parseFp8(s, text, field);
  if (fp8) return fp8;
  const m = /^(.+?)g(\d+)(z?)$/.exec(s);
  if (!m) throw inputError(`${field}: unknown weight type '${text}' (allowed: ${SYNTAX})`, 'weights');
  let type: LowBitType;
  try {
    type = parseLowBitType(m[1]!, field);
  } catch {
    throw inputError(`${field}: unknown weight type '${text}' (allowed: ${SYNTAX})`, 'weights');
  }
  const group = Number(m[2]);
  if (!QUANT_GROUPS.includes(group)) throw inputError(`${field}: group ${m[2]} in '${text}' is not supported (allowed: ${QUANT_GROUPS.join(', ')})`, 'weights');
  const asked = m[3] === 'z';
  if (asked && type.kind !== 'uint') throw inputError(`${field}: '${text}': zero points (z) apply to unsigned types u1..u8, not ${type.name}`, 'weights');
  if (type.kind === 'int' && type.bits < 2)
    throw inputError(`${field}: '${text}': symmetric quantization needs signed integers of at least 2 bits (u1 takes a zero point)`, 'weights');
  const zeroPoint = asked || (type.kind === 'uint' && type.bits === 1);
  return { kind: 'quantized', name: `${type.name}g${group}${zeroPoint ? 'z' : ''}`, type, bits: type.bits, group, scaleDtype, zeroPoint };
}
