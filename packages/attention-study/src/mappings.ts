/**
 * The four ways of mapping a FlashAttention-2 grid onto a chiplet GPU's partitions. A
 * mapping is an id remap: workgroup `wid` (placed by the hardware, on CDNA at partition
 * wid mod X) computes the logical workgroup `mapWorkgroup(mapping, wid, …)`.
 *
 * Logical workgroups are numbered head-first, `((b·H + h)·NB + m)`: batch b, query head h,
 * row block m of NB. Query head h reads KV head ⌊h/g⌋ with g = H / KVheads, so the
 * workgroups that share K/V — an attention compute cluster (ACC): every row block of every
 * query head of one KV group in one batch entry — are contiguous in this numbering.
 *
 * The batch entry is outermost in every mapping, as in the kernels the paper measures: AITER's
 * Triton MHA forward (`_attn_fwd`: head = wid mod H, row block = ⌊wid/H⌋ mod NB, batch =
 * ⌊wid/(NB·H)⌋) and the paper's swizzling code (Figure 11: batch = ⌊wid/(NB·H)⌋ mod B). So a
 * larger batch adds waves, not heads live at once: block-first runs one batch entry's heads
 * (16 per XCD at 128 heads), whatever the batch.
 */
import { balancedRemap } from './remaps.js';

export const ATTENTION_MAPPINGS = ['naive-block-first', 'swizzled-block-first', 'naive-head-first', 'swizzled-head-first'] as const;
export type AttentionMapping = (typeof ATTENTION_MAPPINGS)[number];

/** What every mapping is normalised against. */
export const REFERENCE_MAPPING: AttentionMapping = 'swizzled-head-first';

export interface AttentionGrid {
  batch: number;
  heads: number;
  kvHeads: number;
  /** Workgroups per head along the sequence (row blocks). */
  blocks: number;
}

export function gridSize(g: AttentionGrid): number {
  return g.batch * g.heads * g.blocks;
}

/** Query heads per KV head. */
export function groupSize(g: AttentionGrid): number {
  return g.heads / g.kvHeads;
}

/**
 * The logical workgroup that launch id `wid` computes, for `partitions` partitions.
 * - naive-block-first: per batch entry, row block outer, head inner: the dispatcher deals the
 *   heads of one row block round-robin over the partitions.
 * - swizzled-block-first: the same order, but the head index is remapped (balanced) so each
 *   partition gets a contiguous range of heads: the query heads of one KV group share a
 *   partition (AITER's MHA kernel, `remap_xcd`). Aligned with the hardware when X divides H.
 * - naive-head-first: every row block of head 0, then head 1…: round-robin spreads each
 *   head over all partitions (Triton's default grid).
 * - swizzled-head-first: the head-first order remapped (balanced) over the whole grid, so
 *   partition p runs a contiguous range of ACCs, one after another.
 */
export function mapWorkgroup(mapping: AttentionMapping, wid: number, g: AttentionGrid, partitions: number): number {
  const P = g.batch * g.heads;
  switch (mapping) {
    case 'naive-head-first':
      return wid;
    case 'swizzled-head-first':
      return balancedRemap(wid, P * g.blocks, partitions);
    case 'naive-block-first':
    case 'swizzled-block-first': {
      const H = g.heads;
      const perBatch = H * g.blocks;
      const b = Math.floor(wid / perBatch);
      const r = wid - b * perBatch;
      const m = Math.floor(r / H);
      const h = mapping === 'naive-block-first' ? r % H : balancedRemap(r % H, H, partitions);
      return (b * H + h) * g.blocks + m;
    }
  }
}

/** Batch, query head and row block of a logical workgroup. */
export function logicalCoords(id: number, g: AttentionGrid): { batch: number; head: number; block: number } {
  const bh = Math.floor(id / g.blocks);
  return { batch: Math.floor(bh / g.heads), head: bh % g.heads, block: id % g.blocks };
}

/** The ACC (batch entry × KV head) a logical workgroup belongs to, in [0, B·KVheads). */
export function accOf(id: number, g: AttentionGrid): number {
  const bh = Math.floor(id / g.blocks);
  return Math.floor(bh / g.heads) * g.kvHeads + Math.floor((bh % g.heads) / groupSize(g));
}

export function isAttentionMapping(s: string): s is AttentionMapping {
  return (ATTENTION_MAPPINGS as readonly string[]).includes(s);
}
