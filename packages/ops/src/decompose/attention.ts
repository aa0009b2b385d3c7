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
  const tiles: Tile[] = [];
  for (let t0 = 0; t0 < op.kvLen; t0 += KV_CHUNK) {
    const len = Math.min(KV_CHUNK, op.kvLen - t0);
    const base = ((b * op.kvHeads + h) * op.kvLen + t0) * op.headDim * el;
    const last = t0 + KV_CHUNK >= op.kvLen;
    tiles.push({
      reads: [
        { buffer: buf.qkv, offset: (b * qkvCols + h * group * op.headDim) * el, bytes: group * op.headDim * el, policy: 'default' },
        { buffer: buf.k, offset: base, bytes: len * op.headDim * el, policy: 'default' },
        { buffer: buf.v, offset: base, bytes: len * op.headDim * el, policy: 'default' },
      ],
      writes: last
        ? [{ buffer: buf.out, offset: (b * op.heads + h * group) * op.headDim * el, bytes: group * op.headDim * el, policy: 'default' }]
        : [],
      // QKᵀ and PV: 2 FLOP per multiply-add, two matmuls.
      flops: 4 * group * len * op.headDim,
      unit: 'matrix',
    });
  }
  return tiles;
}
