import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cache, homeHalf, lruVictim, setIndex } from '../src/index.js';

describe('placement: set hash, home half and LRU victim', () => {
  it('setIndex is in range and spreads strided ids over the sets', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 1 << 20 }), (key, sets) => {
        const s = setIndex(key, sets);
        expect(Number.isInteger(s) && s >= 0 && s < sets).toBe(true);
      }),
    );
    // 64 ids at a power-of-two stride land in many of 64 sets (the id modulo 64 would put them in one).
    const used = new Set(Array.from({ length: 64 }, (_, i) => setIndex(i * 1024, 64)));
    expect(used.size).toBeGreaterThan(16);
  });

  it('homeHalf is in range and splits consecutive blocks about evenly', () => {
    let first = 0;
    for (let b = 0; b < 1000; b++) {
      const h = homeHalf(b, 2);
      expect(h === 0 || h === 1).toBe(true);
      if (h === 0) first++;
    }
    expect(Math.abs(first - 500)).toBeLessThan(20);
  });

  it('lruVictim picks the oldest way of the set, the lowest on a tie', () => {
    const stamps = new Float64Array([9, 3, 7, 3, 1, 0]);
    expect(lruVictim(stamps, 0, 4)).toBe(1);
    expect(lruVictim(stamps, 2, 4)).toBe(5);
    expect(lruVictim(stamps, 4, 1)).toBe(4);
  });

  it("Cache places blocks with setIndex: ids of one set conflict, others don't", () => {
    const B = 4096;
    const ways = 2;
    const c = new Cache('t', B * ways * 8, B, ways);
    const sameSet: number[] = [];
    for (let id = 0; sameSet.length < ways + 1; id++) if (setIndex(id, c.sets) === 3) sameSet.push(id);
    for (const id of sameSet) c.access(id, 0, 'default');
    // The third block of set 3 evicted the least recently used one, the first.
    expect(c.contains(sameSet[0]!)).toBe(false);
    expect(c.contains(sameSet[1]!) && c.contains(sameSet[2]!)).toBe(true);
  });
});
