/**
 * Weight footprints of linear tiles under a weight type, for decompositions: which bytes a
 * tile over output columns [n0, n0 + tn) and K range [k0, k0 + kLen) reads. Dense weights
 * are rows of the [N, K] tensor; quantized weights are pre-laid-out BK × BN code tiles (one
 * BK-row step of K is one tile per BN columns, the steps NT tiles apart) plus the group
 * scales [⌈K/group⌉, N] of the columns and groups the tile spans.
 */
import type { AccessPolicy, LinearOp, Region } from '@fleet/core';
import { dtypeBytes } from '@fleet/numerics';
import { dequantFlops, fp8ScaleBytes, groupParamBytes } from './cost.js';
import { DEFAULT_PRELAYOUT, prelayoutBytes, prelayoutTileBytes, type PrelayoutTiles } from './prelayout.js';
import type { WeightType } from './weight-type.js';

/** Buffers of one linear weight: its codes (or dense values) and, when quantized, its scales. */
export interface WeightBuffers {
  w: number;
  scales?: number;
}

/** Whether a linear op's weight takes the weight type: decoder-layer projections do, the LM head stays dense. */
export function quantizesLinear(op: Pick<LinearOp, 'layer'>, layers: number): boolean {
  return op.layer >= 0 && op.layer < layers;
}

/** Bytes of a linear weight's buffers under `wt` (scales 0 for dense weights). */
export function weightBufferBytes(wt: WeightType, n: number, k: number, tiles: PrelayoutTiles = DEFAULT_PRELAYOUT): { weights: number; scales: number } {
  if (wt.kind === 'dense') return { weights: n * k * dtypeBytes(wt.dtype), scales: 0 };
  if (wt.kind === 'fp8') return { weights: n * k, scales: fp8ScaleBytes(wt, n) };
  return { weights: prelayoutBytes(n, k, wt.bits, tiles), scales: groupParamBytes(wt, Math.ceil(k / wt.group), n) };
}

/**
 * The weight regions a tile reads. Dense: the tile's rows of W over all of K (one run), or
 * over [k0, k0 + kLen) (one run per row). Quantized: the BK-steps of K the range touches in
 * the pre-layout, for the BN-column blocks [n0, n0 + tn) spans (a tile narrower than a block
 * still loads the whole pre-laid-out block), and the scales of its columns and groups.
 * FP8: the tile's rows of the [N, K] byte tensor, as dense, and its scales — the tensor's
 * one, or its columns' per-channel ones (read in the epilogue).
 */
export function linearWeightRegions(
  wt: WeightType,
  op: Pick<LinearOp, 'n' | 'k'>,
  buf: WeightBuffers,
  n0: number,
  tn: number,
  k0: number,
  kLen: number,
  policy: AccessPolicy,
  tiles: PrelayoutTiles = DEFAULT_PRELAYOUT,
): Region[] {
  if (wt.kind !== 'quantized') {
    const el = wt.kind === 'fp8' ? 1 : dtypeBytes(wt.dtype);
    const rows: Region[] =
      kLen === op.k
        ? [{ buffer: buf.w, offset: n0 * op.k * el, bytes: tn * op.k * el, policy }]
        : [{ buffer: buf.w, offset: (n0 * op.k + k0) * el, bytes: kLen * el, rows: tn, strideBytes: op.k * el, policy }];
    if (wt.kind === 'fp8' && buf.scales !== undefined) {
      rows.push(
        wt.scales === 'channel'
          ? { buffer: buf.scales, offset: n0 * 4, bytes: fp8ScaleBytes(wt, tn), policy }
          : { buffer: buf.scales, offset: 0, bytes: fp8ScaleBytes(wt, tn), policy },
      );
    }
    return rows;
  }
  if (buf.scales === undefined) throw new RangeError('a quantized weight needs a scales buffer');
  const tileBytes = prelayoutTileBytes(wt.bits, tiles);
  const nt = Math.ceil(op.n / tiles.bn);
  const nb0 = Math.floor(n0 / tiles.bn);
  const nb1 = Math.ceil((n0 + tn) / tiles.bn);
  const kb0 = Math.floor(k0 / tiles.bk);
  const kb1 = Math.ceil((k0 + kLen) / tiles.bk);
  const sb = dtypeBytes(wt.scaleDtype);
  const g0 = Math.floor(k0 / wt.group);
  const g1 = Math.ceil((k0 + kLen) / wt.group);
  const regions: Region[] = [
    { buffer: buf.w, offset: (kb0 * nt + nb0) * tileBytes, bytes: (nb1 - nb0) * tileBytes, rows: kb1 - kb0, strideBytes: nt * tileBytes, policy },
    { buffer: buf.scales, offset: (g0 * op.n + n0) * sb, bytes: tn * sb, rows: g1 - g0, strideBytes: op.n * sb, policy },
  ];
  if (wt.zeroPoint) {
    // Zero points follow the scales in the same buffer: [⌈K/group⌉, N] packed codes.
    const base = Math.ceil(op.k / wt.group) * op.n * sb;
    const zRow = Math.ceil((op.n * wt.bits) / 8);
    const z0 = Math.floor((n0 * wt.bits) / 8);
    const z1 = Math.ceil(((n0 + tn) * wt.bits) / 8);
    regions.push({ buffer: buf.scales, offset: base + g0 * zRow + z0, bytes: z1 - z0, rows: g1 - g0, strideBytes: zRow, policy });
  }
  return regions;
}

/** Vector work of dequantizing the weights a tile reads (0 for dense weights). */
export function tileDequantFlops(wt: WeightType, tn: number, kLen: number): number {
  return dequantFlops(wt, tn * kLen);
}

/**
 * Split-K boundary s of ks over K: evenly spaced, snapped down to whole pre-layout steps and
 * quantization groups when the weight is quantized (a split never cuts a tile or a group).
 */
export function splitKBoundary(wt: WeightType, k: number, s: number, ks: number, tiles: PrelayoutTiles = DEFAULT_PRELAYOUT): number {
  const even = Math.floor((k * s) / ks);
  if (wt.kind !== 'quantized' || s === 0 || s === ks) return even;
  const unit = lcm(tiles.bk, wt.group);
  return Math.min(k, Math.floor(even / unit) * unit);
}

function lcm(a: number, b: number): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  return (a * b) / gcd(a, b);
}
