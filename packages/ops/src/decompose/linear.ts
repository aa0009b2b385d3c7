import type { AccessPolicy, LinearOp, Region, Tile } from '@fleet/core';
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
  const weight = sharedWeightRegions(wt, op, buf, n0, tn, k0, kLen, pol.weight, kernel.prelayout);
  const x = sharedActivationRegion(op, buf.x, m0, tmLoad, k0, kLen, xel);
  // Literals of their final size: a spread grows an array's store as `push` does (17 slots
  // for 2), and an object spread moves later properties out of the object.
  const reads = weight.length === 1 ? [weight[0]!, x] : [...weight, x];
  const writes = [{ buffer: buf.y, offset: (m0 * out.ldOut + out.col0) * el, bytes: out.cols * el, rows: tm, strideBytes: out.ldOut * el, policy: pol.store }];
  const flops = 2 * kernel.rows * tn * kLen * (kernel.matrixFlopsScale ?? 1);
  const steps = Math.max(1, Math.ceil(kLen / STEP_K));
  if (wt.kind !== 'quantized') return { reads, writes, flops, unit: 'matrix', steps };
  const vectorFlops = kernel.dequantFlopsPerElement === undefined ? tileDequantFlops(wt, tn, kLen) : kernel.dequantFlopsPerElement * tn * kLen;
  return { reads, writes, flops, unit: 'matrix', vectorFlops, steps };
}

/**
 * The regions of the tile made last, for the next tile that reads the same bytes: tiles never
 * change their regions, so equal ones may be one object. Every batch tile of an output tile
 * reads one weight slice and every output tile of a batch tile the same activation rows, so a
 * large batch's task graph holds one region per tile and operand rather than one per tile and
 * operand read (a third of its memory at batch 256).
 */
let lastWeight: {
  op: LinearOp;
  /** The op's shape when the regions were made (an op is data: compared, not trusted). */
  n: number;
  k: number;
  w: number;
  scales: number | undefined;
  wt: WeightType;
  n0: number;
  tn: number;
  k0: number;
  kLen: number;
  policy: AccessPolicy;
  prelayout: PrelayoutTiles | undefined;
  regions: Region[];
} | null = null;
let lastActivation: { op: LinearOp; k: number; x: number; k0: number; kLen: number; xel: number; byRow: Map<number, Region> } | null = null;

/** `linearWeightRegions`, the same objects as the last tile's when it read the same weight slice. */
function sharedWeightRegions(
  wt: WeightType,
  op: LinearOp,
  buf: LinearBuffers,
  n0: number,
  tn: number,
  k0: number,
  kLen: number,
  policy: AccessPolicy,
  prelayout: PrelayoutTiles | undefined,
): Region[] {
  const m = lastWeight;
  if (
    m !== null &&
    m.op === op &&
    m.n === op.n &&
    m.k === op.k &&
    m.w === buf.w &&
    m.scales === buf.scales &&
    m.wt === wt &&
    m.n0 === n0 &&
    m.tn === tn &&
    m.k0 === k0 &&
    m.kLen === kLen &&
    m.policy === policy &&
    m.prelayout === prelayout
  )
    return m.regions;
  const regions = linearWeightRegions(wt, op, { w: buf.w, scales: buf.scales }, n0, tn, k0, kLen, policy, prelayout);
  lastWeight = { op, n: op.n, k: op.k, w: buf.w, scales: buf.scales, wt, n0, tn, k0, kLen, policy, prelayout, regions };
  return regions;
}

/** The activation rows [m0, m0 + rows) over K columns [k0, k0 + kLen), one object per op and slice. */
function sharedActivationRegion(op: LinearOp, x: number, m0: number, rows: number, k0: number, kLen: number, xel: number): Region {
  let m = lastActivation;
  if (m === null || m.op !== op || m.k !== op.k || m.x !== x || m.k0 !== k0 || m.kLen !== kLen || m.xel !== xel) {
    m = lastActivation = { op, k: op.k, x, k0, kLen, xel, byRow: new Map() };
  }
  // The key is the first row and the row count (a padded tile height may differ between kernels; tiles are far below 2¹⁶ rows).
  const key = rows < 65536 ? m0 * 65536 + rows : -1;
  let r = m.byRow.get(key);
  if (r === undefined) {
    r =
      kLen === op.k
        ? { buffer: x, offset: m0 * op.k * xel, bytes: rows * op.k * xel, policy: 'default' }
        : { buffer: x, offset: (m0 * op.k + k0) * xel, bytes: kLen * xel, rows, strideBytes: op.k * xel, policy: 'default' };
    if (key >= 0) m.byRow.set(key, r);
  }
  return r;
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
