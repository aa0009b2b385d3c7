import type { AttentionOp, DecodeAttentionKernel, PrefillAttentionKernel, Region, Tile } from '@fleet/core';
import { logicalCoords, mapWorkgroup, type AttentionMapping } from '@fleet/attention-study';

/** The writes of a chunk that writes nothing: one frozen array for all of them (a step's attention has thousands). */
const NO_WRITES = Object.freeze([]) as unknown as Region[];

/** KV tokens one split-KV tile streams (flash-decoding chunk). */
export const KV_CHUNK = 256;

export interface AttentionBuffers {
  qkv: number;
  k: number;
  v: number;
  out: number;
}

/**
 * Split-KV flash-decoding for one request and one KV head: every chunk of `chunk` cached
 * tokens (default KV_CHUNK) is a tile reading the chunk's K and V (layout [batch, kvHeads, kvLen, headDim]) and
 * the group's queries, and updating the online-softmax partials; the last tile writes the
 * group's output rows.
 */
export function attentionTiles(op: AttentionOp, buf: AttentionBuffers, b: number, h: number, chunk = KV_CHUNK): Tile[] {
  const el = 2;
  const group = op.heads / op.kvHeads;
  const qkvCols = (op.heads + 2 * op.kvHeads) * op.headDim;
  const row = (op.rowOffset ?? 0) + b;
  const tiles: Tile[] = [];
  // Every chunk reads the group's queries: one region object for all of them (tiles never change their regions).
  const queries: Region = { buffer: buf.qkv, offset: (row * qkvCols + h * group * op.headDim) * el, bytes: group * op.headDim * el, policy: 'default' };
  for (let t0 = 0; t0 < op.kvLen; t0 += chunk) {
    const len = Math.min(chunk, op.kvLen - t0);
    const base = ((b * op.kvHeads + h) * op.kvLen + t0) * op.headDim * el;
    const last = t0 + chunk >= op.kvLen;
    tiles.push({
      reads: [
        queries,
        { buffer: buf.k, offset: base, bytes: len * op.headDim * el, policy: 'default' },
        { buffer: buf.v, offset: base, bytes: len * op.headDim * el, policy: 'default' },
      ],
      writes: last
        ? [{ buffer: buf.out, offset: (row * op.heads + h * group) * op.headDim * el, bytes: group * op.headDim * el, policy: 'default' }]
        : NO_WRITES,
      // QKᵀ and PV: 2 FLOP per multiply-add, two matmuls.
      flops: 4 * group * len * op.headDim,
      unit: 'matrix',
    });
  }
  return tiles;
}

/**
 * Consecutive KV-chunk tiles of one (request, KV head), as a library kernel streams them: one
 * tile whose steps are the chunks — its software pipeline keeps loading across chunk
 * boundaries, so the first access and the per-tile overhead are paid once, not per chunk.
 */
export function streamChunks(chunks: readonly Tile[], pipeline: Tile['pipeline']): Tile {
  const first = chunks[0]!;
  const span = (i: number) => ({ ...first.reads[i]!, bytes: chunks.reduce((a, t) => a + t.reads[i]!.bytes, 0) });
  return {
    reads: [first.reads[0]!, span(1), span(2)],
    writes: chunks[chunks.length - 1]!.writes,
    flops: chunks.reduce((a, t) => a + t.flops, 0),
    unit: 'matrix',
    steps: chunks.length,
    ...(pipeline ? { pipeline } : {}),
  };
}

/**
 * A streamed decode tile priced as the kernel computes it: QKᵀ and PV over `queryRowTile`
 * rows (the group's queries padded to the matrix tile) and the softmax of every score in
 * them. A kernel without a row tile keeps the group's own rows.
 */
export function withRowTile(tile: Tile, kernel: Pick<DecodeAttentionKernel, 'queryRowTile' | 'softmaxFlopsPerScore'>, op: AttentionOp): Tile {
  if (!kernel.queryRowTile) return tile;
  const rows = Math.ceil(op.heads / op.kvHeads / kernel.queryRowTile) * kernel.queryRowTile;
  return { ...tile, flops: 4 * rows * op.kvLen * op.headDim, vectorFlops: (kernel.softmaxFlopsPerScore ?? 0) * rows * op.kvLen };
}

/**
 * FLOP-equivalents of vector work per QKᵀ score when no library says otherwise: the exp at a
 * quarter of the FMA rate (8) plus max, scale, row sum and conversion (4 ops, 8). UNC: a
 * generic estimate; libraries state their hardware's own.
 */
export const DEFAULT_SOFTMAX_FLOPS_PER_SCORE = 16;

/**
 * How a prefill attention kernel tiles the work (a library's, or the FlashAttention-2 default):
 * a `PrefillAttentionKernel`'s tiling, its pipeline optional.
 */
export interface PrefillTiling extends Omit<PrefillAttentionKernel, 'name' | 'pipeline'> {
  pipeline?: Tile['pipeline'];
}

export const DEFAULT_PREFILL_TILING: PrefillTiling = { queryRows: 128, kvCols: 128, order: 'in-order', softmaxFlopsPerScore: DEFAULT_SOFTMAX_FLOPS_PER_SCORE };

/**
 * Causal prefill attention as FlashAttention-2/3 runs it: one workgroup tile per (query
 * block, request, head) streams the K/V blocks its queries may see — every block up to the
 * diagonal (from the one where a sliding window starts), the diagonal one computed whole and
 * masked — one step per KV block, and writes its output rows. The heads of a GQA group are consecutive, so their K/V reads meet in the
 * L2. Query blocks are handed out in the kernel's order.
 */
export function prefillAttentionTiles(op: AttentionOp, buf: AttentionBuffers, tiling: PrefillTiling): { name: string; tile: Tile }[] {
  const el = 2;
  const q = op.queryLen ?? 1;
  const context = op.kvLen - q;
  const d = op.headDim;
  const group = op.heads / op.kvHeads;
  const qkvCols = (op.heads + 2 * op.kvHeads) * d;
  const row0 = op.rowOffset ?? 0;
  const blocks = Math.ceil(q / tiling.queryRows);
  // Work items in the kernel's order: [query block, request, KV head, query head of its group].
  const items: [number, number, number, number][] = [];
  if (tiling.order === 'l2-sections') {
    // FlashAttention-3's persistent scheduler: (request, head) pairs in sections whose K/V
    // fit the L2 budget (a power of two of KV heads, times the group's query heads); within
    // a section the longest query blocks first, every head of the section per block.
    const kvHeadBytes = op.kvLen * d * el * 2;
    const perSection = tiling.l2SectionBytes! < kvHeadBytes ? 1 : 2 ** Math.floor(Math.log2(tiling.l2SectionBytes! / kvHeadBytes));
    const pairs = op.batch * op.kvHeads;
    for (let s0 = 0; s0 < pairs; s0 += perSection) {
      for (let i = blocks - 1; i >= 0; i--) {
        for (let pr = s0; pr < Math.min(pairs, s0 + perSection); pr++) {
          for (let g = 0; g < group; g++) items.push([i, Math.floor(pr / op.kvHeads), pr % op.kvHeads, g]);
        }
      }
    }
  } else if (tiling.order === 'head-major') {
    // One (request, head)'s query blocks after another, the longest first: its K/V is re-read
    // while still in the L2, and the long blocks do not trail behind the next heads' short ones.
    for (let r = 0; r < op.batch; r++)
      for (let kvh = 0; kvh < op.kvHeads; kvh++) for (let g = 0; g < group; g++) for (let i = blocks - 1; i >= 0; i--) items.push([i, r, kvh, g]);
  } else {
    const order = Array.from({ length: blocks }, (_, i) => (tiling.order === 'longest-first' ? blocks - 1 - i : i));
    for (const i of order)
      for (let r = 0; r < op.batch; r++) for (let kvh = 0; kvh < op.kvHeads; kvh++) for (let g = 0; g < group; g++) items.push([i, r, kvh, g]);
  }
  const out: { name: string; tile: Tile }[] = [];
  for (const [i, r, kvh, g] of items) {
    const q0 = i * tiling.queryRows;
    const rows = Math.min(tiling.queryRows, q - q0);
    // KV the block's last query sees, in whole KV blocks (the diagonal one is computed whole);
    // with a sliding window, from the block holding the oldest position its first query sees.
    const visible = Math.min(op.kvLen, Math.ceil((context + q0 + rows) / tiling.kvCols) * tiling.kvCols);
    const first = op.window === undefined ? 0 : Math.max(0, Math.floor((context + q0 + 1 - op.window) / tiling.kvCols) * tiling.kvCols);
    const seen = visible - first;
    const kv = ((r * op.kvHeads + kvh) * op.kvLen + first) * d * el;
    const head = kvh * group + g;
    out.push({
      name: `${op.id}.q${i}r${r}h${head}`,
      tile: {
        reads: [
          { buffer: buf.qkv, offset: ((row0 + r * q + q0) * qkvCols + head * d) * el, bytes: d * el, rows, strideBytes: qkvCols * el, policy: 'default' },
          { buffer: buf.k, offset: kv, bytes: seen * d * el, policy: 'default' },
          { buffer: buf.v, offset: kv, bytes: seen * d * el, policy: 'default' },
        ],
        writes: [
          { buffer: buf.out, offset: ((row0 + r * q + q0) * op.heads + head) * d * el, bytes: d * el, rows, strideBytes: op.heads * d * el, policy: 'default' },
        ],
        // QKᵀ and PV over every visible block: 2 FLOP per multiply-add, two matmuls.
        flops: 4 * rows * seen * d,
        unit: 'matrix',
        vectorFlops: tiling.softmaxFlopsPerScore * rows * seen,
        steps: Math.ceil(seen / tiling.kvCols),
        ...(tiling.tileFixedNs ? { fixedNs: tiling.tileFixedNs } : {}),
        ...(tiling.pipeline ? { pipeline: tiling.pipeline } : {}),
      },
    });
  }
  return out;
}

/**
 * A launch-order prefill grid remapped by an attention mapping (the NUMA attention study's):
 * launch id i — which the hardware places on partition i mod X — computes the logical
 * workgroup `mapWorkgroup(mapping, i)`. `tiles` are the grid in launch order (query block
 * outermost, then request, then query head), as `prefillAttentionTiles` gives them for an
 * `in-order` kernel; naive block-first is that order with the request outermost (AITER's).
 */
export function inMappingOrder<T>(tiles: readonly T[], op: AttentionOp, queryRows: number, mapping: AttentionMapping, partitions: number): T[] {
  const blocks = Math.ceil((op.queryLen ?? 1) / queryRows);
  const grid = { batch: op.batch, heads: op.heads, kvHeads: op.kvHeads, blocks };
  const bh = op.batch * op.heads;
  return tiles.map((_, i) => {
    const c = logicalCoords(mapWorkgroup(mapping, i, grid, partitions), grid);
    return tiles[c.block * bh + c.batch * op.heads + c.head]!;
  });
}
