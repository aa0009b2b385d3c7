import { describe, it, expect } from 'vitest';
import { Cache } from '../src/memory/cache.js';
import type { AccessPolicy } from '../src/topology/topology.js';

const B = 4096;
/** One set of `ways` blocks: LRU order is global. */
function oneSet(ways = 4): Cache {
  return new Cache('t', B * ways, B, ways);
}

/** Access and copy the reused result object. */
function acc(c: Cache, block: number, write = 0, policy: AccessPolicy = 'default') {
  const r = c.access(block, write, policy);
  return { hit: r.hit, evictedDirtyBytes: r.evictedDirtyBytes, evictedBlock: r.evictedBlock };
}

function resident(c: Cache, blocks: number[]): number[] {
  return blocks.filter((b) => c.contains(b));
}

describe('Cache geometry', () => {
  it('capacity = blockBytes × ways makes one set', () => {
    const c = oneSet(4);
    expect(c.sets).toBe(1);
    expect(c.capacityBytes).toBe(4 * B);
  });

  it('sets = capacity / (block × ways)', () => {
    const c = new Cache('l2', 64 * 1024, B, 4);
    expect(c.sets).toBe(4);
    expect(c.capacityBytes).toBe(64 * 1024);
  });

  it('a capacity below one set is modelled as one full set (capacityBytes says so)', () => {
    const c = new Cache('tiny', 5000, B, 4);
    expect(c.sets).toBe(1);
    expect(c.capacityBytes).toBe(4 * B);
  });

  it('returns the same result object on every call (callers must copy)', () => {
    const c = oneSet();
    const a = c.access(1, 0, 'default');
    const b = c.access(1, 0, 'default');
    expect(a).toBe(b);
  });
});

describe('Cache LRU (one set)', () => {
  it('misses cold, hits warm', () => {
    const c = oneSet();
    expect(acc(c, 10).hit).toBe(false);
    expect(acc(c, 10).hit).toBe(true);
    expect(c.contains(10)).toBe(true);
    expect(c.contains(11)).toBe(false);
  });

  it('evicts in least-recently-used order', () => {
    const c = oneSet();
    for (const b of [0, 1, 2, 3]) expect(acc(c, b).hit).toBe(false);
    expect(resident(c, [0, 1, 2, 3])).toEqual([0, 1, 2, 3]);
    acc(c, 4); // evicts 0
    expect(resident(c, [0, 1, 2, 3, 4])).toEqual([1, 2, 3, 4]);
    acc(c, 5); // evicts 1
    expect(resident(c, [1, 2, 3, 4, 5])).toEqual([2, 3, 4, 5]);
  });

  it('a hit promotes the block to most recently used', () => {
    const c = oneSet();
    for (const b of [0, 1, 2, 3]) acc(c, b);
    expect(acc(c, 0).hit).toBe(true); // order now 1, 2, 3, 0
    acc(c, 4); // evicts 1
    expect(c.contains(0)).toBe(true);
    expect(c.contains(1)).toBe(false);
    acc(c, 5); // evicts 2
    expect(resident(c, [0, 2, 3, 4, 5])).toEqual([0, 3, 4, 5]);
  });

  it('contains() does not change LRU state', () => {
    const c = oneSet();
    for (const b of [0, 1, 2, 3]) acc(c, b);
    for (let i = 0; i < 10; i++) c.contains(0);
    acc(c, 4);
    expect(c.contains(0)).toBe(false);
  });

  it('a cyclic sweep one block larger than the set misses every time', () => {
    const c = oneSet(4);
    let hits = 0;
    for (let pass = 0; pass < 3; pass++) for (let b = 0; b < 5; b++) if (acc(c, b).hit) hits++;
    expect(hits).toBe(0);
  });
});

describe('Cache streaming policy', () => {
  it('streaming blocks are evicted before default blocks, even if more recent', () => {
    const c = oneSet();
    acc(c, 0);
    acc(c, 1);
    acc(c, 2, 0, 'streaming');
    acc(c, 3, 0, 'streaming');
    acc(c, 4); // evicts the older streaming block 2, not default 0
    expect(resident(c, [0, 1, 2, 3, 4])).toEqual([0, 1, 3, 4]);
    acc(c, 5); // evicts streaming 3
    expect(resident(c, [0, 1, 3, 4, 5])).toEqual([0, 1, 4, 5]);
    acc(c, 6); // no streaming left: default LRU, block 0
    expect(resident(c, [0, 1, 4, 5, 6])).toEqual([1, 4, 5, 6]);
  });

  it('streaming blocks are LRU among themselves (a streaming hit refreshes within the class)', () => {
    const c = oneSet();
    acc(c, 0);
    acc(c, 1, 0, 'streaming');
    acc(c, 2, 0, 'streaming');
    acc(c, 3, 0, 'streaming');
    expect(acc(c, 1, 0, 'streaming').hit).toBe(true); // streaming order: 2, 3, 1
    acc(c, 4, 0, 'streaming'); // evicts 2
    expect(resident(c, [0, 1, 2, 3, 4])).toEqual([0, 1, 3, 4]);
    acc(c, 5, 0, 'streaming'); // evicts 3
    expect(resident(c, [0, 1, 3, 4, 5])).toEqual([0, 1, 4, 5]);
  });

  it('a streaming pass shorter than one cache turnover keeps the default blocks', () => {
    const c = oneSet(); // 4 ways: a streaming block is stamped 4 accesses into the past
    acc(c, 100);
    acc(c, 101);
    acc(c, 102);
    for (let b = 0; b < 2; b++) acc(c, b, 0, 'streaming');
    expect(resident(c, [100, 101, 102])).toEqual([100, 101, 102]);
    expect(c.contains(1)).toBe(true); // the latest streamed block lives for near-term reuse
    expect(c.contains(0)).toBe(false);
  });

  it('dead default blocks age out under a long streaming pass (no pinning)', () => {
    const c = oneSet();
    acc(c, 100);
    acc(c, 101);
    acc(c, 102);
    for (let b = 0; b < 50; b++) acc(c, b, 0, 'streaming');
    // Untouched for more than a turnover, the default blocks are older than fresh streaming ones.
    expect(resident(c, [100, 101, 102])).toEqual([]);
    expect(resident(c, [46, 47, 48, 49])).toEqual([46, 47, 48, 49]);
  });

  it('a default hit on a streaming block promotes it to the default class', () => {
    const c = oneSet();
    acc(c, 0, 0, 'streaming');
    acc(c, 1);
    acc(c, 2);
    acc(c, 3);
    expect(acc(c, 0).hit).toBe(true); // now the most recent default block
    acc(c, 4); // evicts default LRU = 1
    expect(resident(c, [0, 1, 2, 3, 4])).toEqual([0, 2, 3, 4]);
  });
});

describe('Cache dirty data', () => {
  it('write-allocate marks dirty bytes without a fetch; rewriting dirty sectors adds nothing', () => {
    const c = oneSet();
    const r = c.access(7, 100, 'default', 0b0001);
    expect(r.hit).toBe(false);
    expect(r.evictedDirtyBytes).toBe(0);
    expect(c.dirtyBytes).toBe(100);
    // Another sector of the block: more dirty bytes.
    expect(c.access(7, 50, 'default', 0b0010).hitFraction).toBe(0);
    expect(c.dirtyBytes).toBe(150);
    // The same sectors again: already dirty, nothing new to write back.
    for (let i = 0; i < 10; i++) c.access(7, 100, 'default', 0b0001);
    expect(c.dirtyBytes).toBe(150);
    // Everything, many times over: capped at the block.
    c.access(7, 10 * B, 'default');
    expect(c.dirtyBytes).toBe(B);
    acc(c, 7, 0); // a read does not change dirtiness
    expect(c.dirtyBytes).toBe(B);
  });

  it('invalidate drops sectors and the dirty bytes in them', () => {
    const c = oneSet();
    c.access(3, 64, 'default', 0b0011);
    c.invalidate(3, 0b0001);
    expect(c.dirtyBytes).toBe(32);
    expect(c.access(3, 0, 'default', 0b0011).hitFraction).toBe(0.5);
    c.invalidate(3);
    expect(c.contains(3)).toBe(false);
    expect(c.dirtyBytes).toBe(0);
  });

  it('evicting a dirty block reports its dirty bytes and id; a clean eviction reports 0', () => {
    const c = oneSet();
    acc(c, 0, 300);
    acc(c, 1);
    acc(c, 2, 500);
    acc(c, 3);
    expect(c.dirtyBytes).toBe(800);
    const e0 = acc(c, 4); // evicts dirty 0
    expect(e0).toEqual({ hit: false, evictedDirtyBytes: 300, evictedBlock: 0 });
    expect(c.dirtyBytes).toBe(500);
    expect(acc(c, 5).evictedDirtyBytes).toBe(0); // evicts clean 1
    const e2 = acc(c, 6); // evicts dirty 2
    expect(e2.evictedDirtyBytes).toBe(500);
    expect(e2.evictedBlock).toBe(2);
    expect(c.dirtyBytes).toBe(0);
  });

  it('a hit reports no eviction', () => {
    const c = oneSet();
    acc(c, 0, 300);
    for (const b of [1, 2, 3]) acc(c, b);
    acc(c, 4); // evicts dirty 0
    const h = acc(c, 4);
    expect(h.hit).toBe(true);
    expect(h.evictedDirtyBytes).toBe(0);
  });

  it('writeBackAll returns the dirty bytes, reports each block, and leaves them cached and clean', () => {
    const c = oneSet();
    acc(c, 0, 100);
    acc(c, 1);
    acc(c, 2, 200);
    const seen: [number, number][] = [];
    expect(c.writeBackAll((b, n) => seen.push([b, n]))).toBe(300);
    expect(seen.sort((a, b) => a[0] - b[0])).toEqual([
      [0, 100],
      [2, 200],
    ]);
    expect(c.dirtyBytes).toBe(0);
    expect(resident(c, [0, 1, 2])).toEqual([0, 1, 2]);
    expect(c.writeBackAll()).toBe(0);
    // Evicting a cleaned block now reports nothing dirty.
    acc(c, 3);
    expect(acc(c, 4).evictedDirtyBytes).toBe(0);
  });

  it('invalidateAll drops every block and all dirty data', () => {
    const c = oneSet();
    acc(c, 0, 100);
    acc(c, 1);
    c.invalidateAll();
    expect(c.dirtyBytes).toBe(0);
    expect(resident(c, [0, 1])).toEqual([]);
    expect(acc(c, 0).hit).toBe(false);
    expect(c.writeBackAll()).toBe(0);
    // Refill after the invalidate: nothing dirty is evicted.
    for (const b of [1, 2, 3, 4, 5]) expect(acc(c, b).evictedDirtyBytes).toBe(0);
  });
});

describe('Cache with several sets', () => {
  it('a working set well under capacity stays resident', () => {
    const c = new Cache('l2', 64 * 1024, B, 4);
    for (let b = 0; b < 8; b++) acc(c, b);
    let hits = 0;
    for (let b = 0; b < 8; b++) if (acc(c, b).hit) hits++;
    expect(hits).toBe(8);
  });

  it('dirty accounting spans sets', () => {
    const c = new Cache('l2', 64 * 1024, B, 4);
    for (let b = 0; b < 8; b++) acc(c, b, 10);
    expect(c.dirtyBytes).toBe(80);
    expect(c.writeBackAll()).toBe(80);
  });
});

describe('Cache sectors', () => {
  it('a tag hit on absent sectors is a partial hit, and fills them', () => {
    const c = oneSet();
    expect(c.access(1, 0, 'default', 0b0011).hit).toBe(false);
    const r = c.access(1, 0, 'default', 0b1111);
    expect(r.hit).toBe(false);
    expect(r.hitFraction).toBe(0.5);
    const again = c.access(1, 0, 'default', 0b1111);
    expect(again.hit).toBe(true);
    expect(again.hitFraction).toBe(1);
  });

  it('counts high sectors correctly (bit 31)', () => {
    const c = oneSet();
    c.access(1, 0, 'default', 0x80000001);
    const r = c.access(1, 0, 'default', 0xffffffff);
    expect(r.hitFraction).toBe(2 / 32);
    expect(c.access(1, 0, 'default', 0x80000000).hit).toBe(true);
  });

  it('a tag miss has hitFraction 0; the default mask is the whole block', () => {
    const c = oneSet();
    expect(c.access(1, 0, 'default').hitFraction).toBe(0);
    expect(c.access(1, 0, 'default', 0x0000ff00).hitFraction).toBe(1);
  });

  it("a new block replaces the evicted block's sectors", () => {
    const c = oneSet(1);
    c.access(1, 0, 'default');
    c.access(2, 0, 'default', 0b1);
    expect(c.access(2, 0, 'default', 0b10).hitFraction).toBe(0);
  });
});

describe('Cache sector masks of several words', () => {
  const mask = (...sectors: number[]) => {
    const m = new Int32Array(4);
    for (const s of sectors) m[s >> 5] = m[s >> 5]! | (1 << (s & 31));
    return m;
  };

  it('each of 128 sectors is its own valid bit: sectors in other words are not hits', () => {
    const c = new Cache('t', 4 * 16384, 16384, 4, 128);
    expect(c.words).toBe(4);
    expect(c.accessMask(9, 0, false, mask(0, 31)).hit).toBe(false);
    expect(c.accessMask(9, 0, false, mask(32, 127)).hitFraction).toBe(0);
    const r = c.accessMask(9, 0, false, mask(0, 31, 32, 64, 127));
    expect(r.hitFraction).toBeCloseTo(4 / 5);
    expect(Array.from(r.miss)).toEqual(Array.from(mask(64)));
    expect(c.residentBytes()).toBe(5 * 128);
  });

  it('dirty sectors across words are written back exactly once, with their mask', () => {
    const c = new Cache('t', 16384, 16384, 1, 128);
    c.accessMask(1, 256, false, mask(3, 100));
    c.accessMask(1, 256, false, mask(3, 100));
    expect(c.dirtyBytes).toBe(256);
    const r = c.accessMask(2, 0, false, c.full); // one way: evicts block 1
    expect(r.evictedDirtyBytes).toBe(256);
    expect(Array.from(r.evicted)).toEqual(Array.from(mask(3, 100)));
  });
});

describe('Cache.relabel', () => {
  it('renames blocks by whole set periods in place: they stay present, with their dirt and order', () => {
    const c = new Cache('c', 8 * 1024, 1024, 2, 32, 16);
    c.access(3, 0, 'default');
    c.access(20, 512, 'default');
    c.relabel(16, 32);
    expect(c.contains(3)).toBe(true);
    expect(c.contains(20)).toBe(false);
    expect(c.contains(52)).toBe(true);
    expect(c.access(52, 0, 'default').hit).toBe(true);
    expect(c.dirtyBytes).toBe(512);
    expect(() => c.relabel(16, 8)).toThrow(RangeError);
  });
});
