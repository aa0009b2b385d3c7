import type { AttentionOp, Tile } from '@fleet/core';

/** KV tokens one split-KV tile streams (flash-decoding chunk). */
export const KV_CHUNK = 256;

export interface AttentionBuffers {
  qkv: number;
  k: number;
  v: number;
  out: number;
}

/**
 * Split-KV flash-decoding for one request and one KV head: every chunk of KV_CHUNK cached
 * tokens is a tile reading the chunk's K and V (layout [batch, kvHeads, kvLen, headDim]) and
 * the group's queries, and updating the online-softmax partials; the last tile writes the
 * group's output rows.
 */
export function attentionTiles(op: AttentionOp, buf: AttentionBuffers, b: number, h: number): Tile[] {
  const el = 2;
  const group = op.heads / op.kvHeads;
  const qkvCols = (op.heads + 2 * op.kvHeads) * op.headDim;
  const row = (op.rowOffset ?? 0) + b;
  const tiles: Tile[] = [];
  for (let t0 = 0; t0 < op.kvLen; t0 += KV_CHUNK) {
    const len = Math.min(KV_CHUNK, op.kvLen - t0);
    const base = ((b * op.kvHeads + h) * op.kvLen + t0) * op.headDim * el;
    const last = t0 + KV_CHUNK >= op.kvLen;
    tiles.push({
      reads: [
        { buffer: buf.qkv, offset: (row * qkvCols + h * group * op.headDim) * el, bytes: group * op.headDim * el, policy: 'default' },
        { buffer: buf.k, offset: base, bytes: len * op.headDim * el, policy: 'default' },
        { buffer: buf.v, offset: base, bytes: len * op.headDim * el, policy: 'default' },
      ],
      writes: last
        ? [{ buffer: buf.out, offset: (row * op.heads + h * group) * op.headDim * el, bytes: group * op.headDim * el, policy: 'default' }]
        : [],
      // QKᵀ and PV: 2 FLOP per multiply-add, two matmuls.
      flops: 4 * group * len * op.headDim,
      unit: 'matrix',
    });
  }
  return tiles;
}

/**
 * FLOP-equivalents of vector work per QKᵀ score when no library says otherwise: the exp at a
 * quarter of the FMA rate (8) plus max, scale, row sum and conversion (4 ops, 8). UNC: a
 * generic estimate; libraries state their hardware's own.
 */
export const DEFAULT_SOFTMAX_FLOPS_PER_SCORE = 16;

/** How a prefill attention kernel tiles the work (a library's, or the FlashAttention-2 default). */
export interface PrefillTiling {
  queryRows: number;
  kvCols: number;
  order: 'longest-first' | 'in-order';
  softmaxFlopsPerScore: number;
  pipeline?: Tile['pipeline'];
}

export const DEFAULT_PREFILL_TILING: PrefillTiling = { queryRows: 128, kvCols: 128, order: 'in-order', softmaxFlopsPerScore: DEFAULT_SOFTMAX_FLOPS_PER_SCORE };

/**
 * Causal prefill attention as FlashAttention-2/3 runs it: one workgroup tile per (query
 * block, request, head) streams the K/V blocks its queries may see — every block up to the
 * diagonal, the diagonal one computed whole and masked — one step per KV block, and writes
 * its output rows. The heads of a GQA group are consecutive, so their K/V reads meet in the
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
  const order = Array.from({ length: blocks }, (_, i) => (tiling.order === 'longest-first' ? blocks - 1 - i : i));
  const out: { name: string; tile: Tile }[] = [];
  for (const i of order) {
    const q0 = i * tiling.queryRows;
    const rows = Math.min(tiling.queryRows, q - q0);
    // KV the block's last query sees, in whole KV blocks (the diagonal one is computed whole).
    const visible = Math.min(op.kvLen, Math.ceil((context + q0 + rows) / tiling.kvCols) * tiling.kvCols);
    for (let r = 0; r < op.batch; r++) {
      for (let kvh = 0; kvh < op.kvHeads; kvh++) {
        const kv = ((r * op.kvHeads + kvh) * op.kvLen) * d * el;
        for (let g = 0; g < group; g++) {
          const head = kvh * group + g;
          out.push({
            name: `${op.id}.q${i}r${r}h${head}`,
            tile: {
              reads: [
                { buffer: buf.qkv, offset: ((row0 + r * q + q0) * qkvCols + head * d) * el, bytes: d * el, rows, strideBytes: qkvCols * el, policy: 'default' },
                { buffer: buf.k, offset: kv, bytes: visible * d * el, policy: 'default' },
                { buffer: buf.v, offset: kv, bytes: visible * d * el, policy: 'default' },
              ],
              writes: [{ buffer: buf.out, offset: ((row0 + r * q + q0) * op.heads + head) * d * el, bytes: d * el, rows, strideBytes: op.heads * d * el, policy: 'default' }],
              // QKᵀ and PV over every visible block: 2 FLOP per multiply-add, two matmuls.
              flops: 4 * rows * visible * d,
              unit: 'matrix',
              vectorFlops: tiling.softmaxFlopsPerScore * rows * visible,
              steps: Math.ceil(visible / tiling.kvCols),
              ...(tiling.pipeline ? { pipeline: tiling.pipeline } : {}),
            },
          });
        }
      }
    }
  }
  return out;
}
