/**
 * What a weight type costs the cost model: bytes a linear layer reads (packed codes in the
 * pre-layout plus scales) and the vector work of dequantizing them. Decode is bound by
 * weight bytes, so these numbers carry the W4A16-vs-W16A16 difference.
 */
import type { ModelSpec } from '@fleet/core';
import { dtypeBytes } from '@fleet/numerics';
import { DEFAULT_PRELAYOUT, prelayoutBytes, type PrelayoutTiles } from './prelayout.js';
import type { Fp8Weights, QuantizedWeights, WeightType } from './weight-type.js';

export interface WeightBytes {
  /** Packed codes (or dense elements). */
  weights: number;
  /**
   * Group parameters: scales ([⌈K/group⌉, N] in the scale type) and, for asymmetric types,
   * zero points ([⌈K/group⌉, N] codes of the weight's width, packed); 0 for dense weights.
   */
  scales: number;
  total: number;
}

/**
 * Bytes of the group parameters of `cols` columns over `groups` groups: a scale each, and a
 * packed zero-point code each when the type is asymmetric.
 */
export function groupParamBytes(wt: QuantizedWeights, groups: number, cols: number): number {
  return groups * cols * dtypeBytes(wt.scaleDtype) + (wt.zeroPoint ? Math.ceil((groups * cols * wt.bits) / 8) : 0);
}

/** fp32 scales of an FP8 weight of `cols` output channels: one for the tensor, or one per channel. */
export function fp8ScaleBytes(wt: Fp8Weights, cols: number): number {
  return 4 * (wt.scales === 'channel' ? cols : 1);
}

/**
 * Bytes per element of a linear op's activation input: FP8 for W8A8, else the 16-bit
 * activations. The activations are taken as quantised by the kernel that produced them, as
 * torch.compile'd serving fuses the static or per-token quantisation into the RMSNorm or
 * SiLU·mul before a projection; UNC that the attention output's quantisation (before the O
 * projection) is fused the same way rather than a kernel of its own.
 */
export function activationBytes(wt: WeightType): number {
  return wt.kind === 'fp8' ? 1 : 2;
}

/** Bytes of an [N, K] linear weight stored as `wt`. */
export function linearWeightBytes(wt: WeightType, n: number, k: number, tiles: PrelayoutTiles = DEFAULT_PRELAYOUT): WeightBytes {
  if (wt.kind === 'dense') {
    const weights = n * k * dtypeBytes(wt.dtype);
    return { weights, scales: 0, total: weights };
  }
  if (wt.kind === 'fp8') {
    const scales = fp8ScaleBytes(wt, n);
    return { weights: n * k, scales, total: n * k + scales };
  }
  const weights = prelayoutBytes(n, k, wt.bits, tiles);
  const scales = groupParamBytes(wt, Math.ceil(k / wt.group), n);
  return { weights, scales, total: weights + scales };
}

/**
 * Bytes a tile reads for `rows` weight rows over `kLen` K-elements (a slice of a linear
 * weight, as a decomposition's tile region): packed codes plus the scales of the groups it
 * spans. Exact when the slice is whole pre-layout tiles and groups.
 */
export function weightSliceBytes(wt: WeightType, rows: number, kLen: number): WeightBytes {
  if (wt.kind === 'dense') {
    const weights = rows * kLen * dtypeBytes(wt.dtype);
    return { weights, scales: 0, total: weights };
  }
  if (wt.kind === 'fp8') {
    const scales = fp8ScaleBytes(wt, rows);
    return { weights: rows * kLen, scales, total: rows * kLen + scales };
  }
  const weights = Math.ceil((rows * kLen * wt.bits) / 8);
  const scales = groupParamBytes(wt, Math.ceil(kLen / wt.group), rows);
  return { weights, scales, total: weights + scales };
}

/**
 * Vector operations to dequantize one weight element: unpack (one op where codes align with
 * byte lanes — 1, 2, 4, 8 bits — two where they straddle bytes), convert to fp16/bf16 (one:
 * the magic-number or exponent-rebias trick), scale (one multiply), and subtract the zero
 * point of an asymmetric type (one). Dense weights need none, nor do FP8 weights, which the
 * FP8 matrix units take as they are (the scales apply once per output, in the epilogue).
 */
export function dequantOpsPerElement(wt: WeightType): number {
  if (wt.kind !== 'quantized') return 0;
  const aligned = 8 % wt.bits === 0;
  return (aligned ? 1 : 2) + 1 + 1 + (wt.zeroPoint ? 1 : 0);
}

/** Dequantization work of a tile reading `elements` weight elements, in vector FLOP-equivalents. */
export function dequantFlops(wt: WeightType, elements: number): number {
  return dequantOpsPerElement(wt) * elements;
}

/** The decoder-layer linear weights of a model, as (name, N, K), per layer. */
export function layerLinearShapes(spec: ModelSpec): { name: string; n: number; k: number }[] {
  const { hiddenSize: h, numHeads: nh, numKvHeads: nkv, headDim: hd, intermediateSize: inter } = spec;
  return [
    { name: 'w_qkv', n: (nh + 2 * nkv) * hd, k: h },
    { name: 'w_o', n: h, k: nh * hd },
    { name: 'w_gate_up', n: 2 * inter, k: h },
    { name: 'w_down', n: h, k: inter },
  ];
}

/**
 * Weight bytes one decode step reads from the decoder layers' linear weights (every layer,
 * each weight once) when they are stored as `wt`. The LM head, norms and embedding rows stay
 * in the model's dtype, as GPTQ/AWQ-style checkpoints keep them.
 */
export function decoderLinearBytes(spec: ModelSpec, wt: WeightType, tiles: PrelayoutTiles = DEFAULT_PRELAYOUT): WeightBytes {
  const total: WeightBytes = { weights: 0, scales: 0, total: 0 };
  for (const s of layerLinearShapes(spec)) {
    const b = linearWeightBytes(wt, s.n, s.k, tiles);
    total.weights += b.weights * spec.numLayers;
    total.scales += b.scales * spec.numLayers;
  }
  total.total = total.weights + total.scales;
  return total;
}
