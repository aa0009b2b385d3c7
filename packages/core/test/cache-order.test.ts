import { describe, expect, it } from 'vitest';
import { Cache } from '../src/memory/cache.js';
import { lruVictim, setIndex } from '../src/memory/placement.js';
import { mulberry32 } from './helpers.js';

const EMPTY = -(2 ** 52);

/** The replacement rule spelled out: tags and stamps, the victim by `lruVictim` over the set. */
class Reference {
  readonly tags: Int32Array;
  readonly stamps: Float64Array;
  private clock = 1;
  constructor(
    readonly sets: number,
    readonly ways: number,
  ) {
    this.tags = new Int32Array(sets * ways).fill(-1);
    this.stamps = new Float64Array(sets * ways).fill(EMPTY);
  }
  access(block: number, streaming: boolean): { hit: boolean; evicted: number } {
    const base = setIndex(block, this.sets) * this.ways;
    const stamp = streaming ? this.clock++ - this.sets * this.ways - 0.5 : this.clock++;
    for (let i = base; i < base + this.ways; i++) {
      if (this.tags[i] !== block) continue;
      this.stamps[i] = stamp;
      return { hit: true, evicted: -1 };
    }
    const v = lruVictim(this.stamps, base, this.ways);
    const evicted = this.tags[v]!;
    this.tags[v] = block;
    this.stamps[v] = stamp;
    return { hit: false, evicted };
  }
  invalidate(block: number): void {
    const base = setIndex(block, this.sets) * this.ways;
    for (let i = base; i < base + this.ways; i++) {
      if (this.tags[i] !== block) continue;
      this.tags[i] = -1;
      this.stamps[i] = EMPTY;
    }
  }
}

describe('Cache replacement order', () => {
  for (const [sets, ways, seed] of [
    [1, 4, 1],
    [4, 8, 2],
    [16, 16, 3],
    [3, 5, 4],
  ] as const) {
    it(`evicts what lruVictim over the stamps would, through hits, streaming, invalidations and flushes (${sets} sets × ${ways} ways)`, () => {
      const rnd = mulberry32(seed);
      const c = new Cache('t', 4096 * sets * ways, 4096, ways);
      expect(c.sets).toBe(sets);
      let ref = new Reference(sets, ways);
      const universe = sets * ways * 3;
      for (let n = 0; n < 20_000; n++) {
        const block = Math.floor(rnd() * universe);
        const op = rnd();
        if (op < 0.05) {
          c.invalidate(block);
          ref.invalidate(block);
        } else if (op < 0.052) {
          c.invalidateAll();
          // The cache's clock runs on, the reference's restarts: only the order of stamps matters.
          ref = new Reference(sets, ways);
        } else {
          const streaming = op < 0.4;
          const r = c.access(block, 0, streaming ? 'streaming' : 'default');
          const e = ref.access(block, streaming);
          expect(r.hit).toBe(e.hit);
          if (!e.hit) expect(r.evictedBlock).toBe(e.evicted);
        }
      }
      const snap = c.snapshot();
      expect(Array.from(snap.tags)).toEqual(Array.from(ref.tags));
    });
  }
});
