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

/**
 * How many ACCs share one partition's L2 at a time when its workgroups run in whole
 * generations: the partition's launches (ids x, x + X, x + 2X, …) cut into runs of `slots`
 * (a generation: what its compute units hold at once), and the distinct ACCs of each run
 * averaged over the whole runs of every partition. `slots / accs` is then the workgroups that
 * read each K/V tile a generation brings into the L2, and 1 − accs/slots the K/V hit rate of
 * lockstep generations (a generation's workgroups start together and the next one finds the
 * head's first tiles evicted; a steady stagger between launches could share tiles across
 * generations as well, a spread beyond the L2's reach shares fewer).
 *
 * It shows what naive head-first's spreading costs and what it does not: a head's NB row
 * blocks are dealt over X partitions, NB/X to each, so each L2 fetches every head (X copies
 * of its K/V device-wide), yet while NB/X ≥ `slots` a generation still holds one or two heads
 * and their tiles are shared by tens of workgroups, as under swizzled head-first.
 */
export function accsPerGeneration(mapping: AttentionMapping, g: AttentionGrid, partitions: number, slots: number): number {
  const G = gridSize(g);
  let runs = 0;
  let accs = 0;
  for (let x = 0; x < partitions; x++) {
    const seen = new Set<number>();
    let n = 0;
    const before = runs;
    for (let wid = x; wid < G; wid += partitions) {
      seen.add(accOf(mapWorkgroup(mapping, wid, g, partitions), g));
      if (++n === slots) {
        accs += seen.size;
        runs++;
        seen.clear();
        n = 0;
      }
    }
    // A trailing partial generation counts only where it is the partition's whole share.
    if (n > 0 && runs === before) {
      accs += seen.size;
      runs++;
    }
  }
  return runs === 0 ? 0 : accs / runs;
}
