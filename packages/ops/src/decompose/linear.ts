import type { AccessPolicy, LinearOp, Tile } from '@fleet/core';
import { activationBytes } from '../quant/cost.js';
import { linearWeightRegions, tileDequantFlops } from '../quant/weight-regions.js';
import type { PrelayoutTiles } from '../quant/prelayout.js';
import { DENSE_BF16, type WeightType } from '../quant/weight-type.js';

/** GEMM tile shape: T_M rows of the batch × T_N output columns, all of K in T_K chunks (16 × 64 × 256 CK tiles). */
export const TILE_M = 16;
export const TILE_N = 64;
export const TILE_K = 256;
/**
 * K elements a worker streams per simulated step: two K-chunks. The live set stays one
 * small slice per worker (31 × 64 KiB = 2 MiB per XCD at most, half the L2), and on the
 * FLEET experiments it matches single-chunk steps within 0.5% at ~30% less simulation time.
 */
export const STEP_K = 2 * TILE_K;

/** Memory policies a schedule applies to a linear op's operands. */
export interface LinearPolicies {
  weight: AccessPolicy;
  store: AccessPolicy;
}

export interface LinearBuffers {
  x: number;
  w: number;
  y: number;
  /** Group scales of a quantized weight. */
  scales?: number;
  /** Dense bf16 workspace a dequantize-then-GEMM kernel expands the weight into first. */
  dequant?: number;
}

/** The kernel a tile belongs to, where it differs from ops' default 16-row tiles. */
export interface TileKernelShape {
  /** Batch rows per tile. */
  rows: number;
  /** Only the batch rows that exist are loaded (masked loads); default: the padded tile. */
  maskedRows?: boolean;
  /** Pre-layout of quantized weights the kernel reads (its own packing). */
  prelayout?: PrelayoutTiles;
  /** The kernel's own dequantization work per weight element (FLOP-equivalents); default ops' generic count. */
  dequantFlopsPerElement?: number;
  /** Issue cost of the kernel's matrix instruction relative to the device's fastest (default 1). */
  matrixFlopsScale?: number;
}

const DEFAULT_SHAPE: TileKernelShape = { rows: TILE_M };

/**
 * One output tile y[m0:m0+tm, n0:n0+tn] over K columns starting at k0 (all of K unless
 * split): reads the weight rows (contiguous in the [N, K] layout) and the activation rows,
 * writes the output slice. `outCols` lets a fused epilogue write fewer columns (SiLU·mul
 * halves them). Quantized weights (`wt`) read their pre-laid-out code tiles and scales and
 * add the dequantization work.
 */
export function linearTile(
  op: LinearOp,
  buf: LinearBuffers,
  pol: LinearPolicies,
  m0: number,
  n0: number,
  tn: number,
  k0 = 0,
  kLen = op.k,
  out: { cols: number; ldOut: number; col0: number } = { cols: tn, ldOut: op.n, col0: n0 },
  wt: WeightType = DENSE_BF16,
  kernel: TileKernelShape = DEFAULT_SHAPE,
): Tile {
  const tm = Math.min(kernel.rows, op.m - m0);
  // Unless the kernel masks its loads, the A tile is always `rows` rows: a partial batch
  // tile still multiplies all of them and loads those inside the padded activation buffer;
  // rows past its end (a tile height that does not divide the padding, e.g. 24) are out of
  // bounds, which the loads zero-fill without touching memory. Only valid rows are stored.
  const tmLoad = kernel.maskedRows ? tm : Math.min(kernel.rows, Math.max(tm, paddedRows(op.m) - m0));
  const el = 2;
  // W8A8: the GEMM reads FP8 activations, quantised where they were produced (see activationBytes).
  const xel = activationBytes(wt);
  const weight = linearWeightRegions(wt, op, { w: buf.w, scales: buf.scales }, n0, tn, k0, kLen, pol.weight, kernel.prelayout);
  const x =
    kLen === op.k
      ? { buffer: buf.x, offset: m0 * op.k * xel, bytes: tmLoad * op.k * xel, policy: 'default' as const }
      : { buffer: buf.x, offset: (m0 * op.k + k0) * xel, bytes: kLen * xel, rows: tmLoad, strideBytes: op.k * xel, policy: 'default' as const };
  return {
    reads: [...weight, x],
    writes: [{ buffer: buf.y, offset: (m0 * out.ldOut + out.col0) * el, bytes: out.cols * el, rows: tm, strideBytes: out.ldOut * el, policy: pol.store }],
    flops: 2 * kernel.rows * tn * kLen * (kernel.matrixFlopsScale ?? 1),
    unit: 'matrix',
    ...(wt.kind === 'quantized'
      ? { vectorFlops: kernel.dequantFlopsPerElement === undefined ? tileDequantFlops(wt, tn, kLen) : kernel.dequantFlopsPerElement * tn * kLen }
      : {}),
    steps: Math.max(1, Math.ceil(kLen / STEP_K)),
  };
}

export function mTiles(op: LinearOp, tileM = TILE_M): number {
  return Math.ceil(op.m / tileM);
}

/**
 * Batch rows per tile a vendor BLAS picks for a skinny GEMM: the next power of two from 8 to
 * 64 (cuBLAS on H100 uses 8, 16, 32 and 64 at M = 1…64: our measurement), so the weights are
 * read once per up to 64 batch rows.
 */
export function blasTileM(m: number): number {
  return Math.min(64, Math.max(8, 2 ** Math.ceil(Math.log2(Math.max(1, m)))));
}

/** Activation rows to allocate for a batch: enough for every tile shape reading it padded. */
export function paddedRows(batch: number): number {
  return batch <= 64 ? Math.max(TILE_M, blasTileM(batch)) : Math.ceil(batch / 64) * 64;
}
