import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ATTENTION_MAPPINGS,
  accOf,
  accsPerGeneration,
  gridSize,
  logicalCoords,
  mapWorkgroup,
  type AttentionGrid,
  type AttentionMapping,
} from '../src/mappings.js';

const grids = fc
  .record({
    batch: fc.integer({ min: 1, max: 4 }),
    kvHeads: fc.integer({ min: 1, max: 8 }),
    group: fc.integer({ min: 1, max: 4 }),
    blocks: fc.integer({ min: 1, max: 24 }),
    partitions: fc.integer({ min: 1, max: 8 }),
  })
  .map(({ group, ...g }) => ({ ...g, heads: g.kvHeads * group }));

/** Partitions (launch id mod X) whose workgroups compute for each head key. */
function partitionsPerKey(mapping: AttentionMapping, g: AttentionGrid, X: number, key: (logical: number) => number): Map<number, Set<number>> {
  const out = new Map<number, Set<number>>();
  for (let wid = 0; wid < gridSize(g); wid++) {
    const k = key(mapWorkgroup(mapping, wid, g, X));
    if (!out.has(k)) out.set(k, new Set());
    out.get(k)!.add(wid % X);
  }
  return out;
}

const headOf = (g: AttentionGrid) => (l: number) => {
  const c = logicalCoords(l, g);
  return c.batch * g.heads + c.head;
};

describe('attention mappings', () => {
  for (const mapping of ATTENTION_MAPPINGS) {
    it(`${mapping} is a permutation of the grid`, () => {
      fc.assert(
        fc.property(grids, ({ partitions, ...g }) => {
          const seen = new Uint8Array(gridSize(g));
          for (let wid = 0; wid < seen.length; wid++) {
            const l = mapWorkgroup(mapping, wid, g, partitions);
            if (!Number.isInteger(l) || l < 0 || l >= seen.length || seen[l]) return false;
            seen[l] = 1;
          }
          return true;
        }),
      );
    });
  }

  const mha: AttentionGrid = { batch: 1, heads: 128, kvHeads: 128, blocks: 64 };

  it("swizzled-head-first keeps each head's K/V on one XCD", () => {
    for (const parts of partitionsPerKey('swizzled-head-first', mha, 8, headOf(mha)).values()) expect(parts.size).toBe(1);
  });

  it('swizzled-head-first runs one ACC at a time on each XCD', () => {
    const g: AttentionGrid = { batch: 2, heads: 32, kvHeads: 8, blocks: 16 };
    for (let x = 0; x < 8; x++) {
      const accs: number[] = [];
      for (let wid = x; wid < gridSize(g); wid += 8) accs.push(accOf(mapWorkgroup('swizzled-head-first', wid, g, 8), g));
      expect(accs.every((a, i) => i === 0 || a === accs[i - 1] || a === accs[i - 1]! + 1)).toBe(true);
      expect(new Set(accs).size).toBe((2 * 8) / 8);
    }
  });

  it('naive head-first spreads every head over all 8 XCDs', () => {
    for (const parts of partitionsPerKey('naive-head-first', mha, 8, headOf(mha)).values()) expect(parts.size).toBe(8);
  });

  it('naive block-first puts head h on XCD h mod 8, so each XCD holds 16 heads at once', () => {
    const parts = partitionsPerKey('naive-block-first', mha, 8, headOf(mha));
    for (const [h, p] of parts) expect([...p]).toEqual([h % 8]);
    // The first row block: 16 heads per XCD, each with one workgroup.
    const firstRow = Array.from({ length: 128 }, (_, wid) => logicalCoords(mapWorkgroup('naive-block-first', wid, mha, 8), mha));
    expect(new Set(firstRow.filter((_, wid) => wid % 8 === 0).map((c) => c.head)).size).toBe(16);
  });

  it('the batch entry is outermost: a larger batch adds waves, not heads live at once (AITER, paper Figure 11)', () => {
    const g: AttentionGrid = { batch: 8, heads: 128, kvHeads: 128, blocks: 64 };
    const perBatch = g.heads * g.blocks;
    for (const m of ATTENTION_MAPPINGS.filter((m) => m !== 'swizzled-head-first')) {
      for (let wid = 0; wid < gridSize(g); wid += 97) expect(logicalCoords(mapWorkgroup(m, wid, g, 8), g).batch).toBe(Math.floor(wid / perBatch));
      // block-first: one XCD's first 76 launches hold 16 heads, as at batch 1
      if (m.endsWith('block-first')) {
        const heads = new Set(Array.from({ length: 76 }, (_, i) => logicalCoords(mapWorkgroup(m, 8 * i, g, 8), g).head));
        expect(heads.size).toBe(16);
      }
    }
  });

  it('GQA with 8 KV heads: both swizzled mappings put each KV group on the same single XCD', () => {
    for (const heads of [32, 64, 128]) {
      const g: AttentionGrid = { batch: 1, heads, kvHeads: 8, blocks: 32 };
      const acc = (l: number) => accOf(l, g);
      const sbf = partitionsPerKey('swizzled-block-first', g, 8, acc);
      const shf = partitionsPerKey('swizzled-head-first', g, 8, acc);
      for (let a = 0; a < 8; a++) {
        expect(sbf.get(a)!.size).toBe(1);
        expect([...sbf.get(a)!]).toEqual([...shf.get(a)!]);
      }
      // naive block-first deals the query heads of a KV group round-robin: over min(8, group) XCDs
      for (const parts of partitionsPerKey('naive-block-first', g, 8, acc).values()) expect(parts.size).toBe(Math.min(8, heads / 8));
    }
  });

  it('with 8 heads and batch 1 the block-first mappings already give each XCD one head', () => {
    const g: AttentionGrid = { batch: 1, heads: 8, kvHeads: 8, blocks: 64 };
    for (const m of ['naive-block-first', 'swizzled-block-first', 'swizzled-head-first'] as const) {
      for (const parts of partitionsPerKey(m, g, 8, headOf(g)).values()) expect(parts.size).toBe(1);
    }
  });
});

describe('ACCs per generation (what lockstep generations share)', () => {
  const shape = (seq: number, heads = 128): AttentionGrid => ({ batch: 1, heads, kvHeads: heads, blocks: seq / 128 });
  const slots = 38 * 2; // an MI300X XCD at the forward's two workgroups per CU

  it('naive head-first at 128 heads × 128K: a head gives each XCD 128 row blocks, more than its 76 slots, so a generation holds under two heads', () => {
    const nhf = accsPerGeneration('naive-head-first', shape(131072), 8, slots);
    const shf = accsPerGeneration('swizzled-head-first', shape(131072), 8, slots);
    expect(nhf).toBeGreaterThan(1.5);
    expect(nhf).toBeLessThan(2);
    expect(shf).toBeLessThan(1.1);
    // lockstep K/V hit rate: both near 98%, not the paper's 40–60% for naive head-first
    expect(1 - nhf / slots).toBeGreaterThan(0.97);
  });

  it('naive head-first spreads a head thinner than a generation only below NB/X = 76 row blocks (context < 76K at BLOCK_M 128)', () => {
    // 8 row blocks per head per XCD: a generation of 76 spans 9.5 heads (10 distinct in most runs)
    const short = accsPerGeneration('naive-head-first', shape(8192), 8, slots);
    expect(short).toBeGreaterThan(9.5);
    expect(short).toBeLessThanOrEqual(10);
    expect(accsPerGeneration('naive-head-first', shape(32768), 8, slots)).toBeGreaterThan(2);
  });

  it('block-first holds 16 heads per XCD generation at 128 heads, whatever the context', () => {
    for (const seq of [8192, 131072]) {
      expect(accsPerGeneration('naive-block-first', shape(seq), 8, slots)).toBeCloseTo(16, 0);
      expect(accsPerGeneration('swizzled-block-first', shape(seq), 8, slots)).toBeCloseTo(16, 0);
    }
  });
});
