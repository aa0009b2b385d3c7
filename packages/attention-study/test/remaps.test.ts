import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { balancedRemap, chunkedRemap, simpleRemap } from '../src/remaps.js';

/** The first two launch ids a remap sends to the same work, or null when it is a permutation of [0, n). */
function collision(remap: (id: number) => number, n: number): [number, number] | null {
  const seen = new Map<number, number>();
  for (let id = 0; id < n; id++) {
    const v = remap(id);
    if (!Number.isInteger(v) || v < 0 || v >= n) return [id, id];
    const prev = seen.get(v);
    if (prev !== undefined) return [prev, id];
    seen.set(v, id);
  }
  return null;
}

const sizes = fc.record({ n: fc.integer({ min: 1, max: 3000 }), x: fc.integer({ min: 1, max: 16 }) });

describe('chiplet remaps', () => {
  it('balanced is a permutation for every n and x', () => {
    fc.assert(fc.property(sizes, ({ n, x }) => collision((id) => balancedRemap(id, n, x), n) === null));
  });

  it('balanced gives each partition one contiguous range, sizes differing by at most one', () => {
    fc.assert(
      fc.property(sizes, ({ n, x }) => {
        const byPartition = Array.from({ length: x }, () => [] as number[]);
        for (let id = 0; id < n; id++) byPartition[id % x]!.push(balancedRemap(id, n, x));
        const lengths = byPartition.map((r) => r.length);
        if (Math.max(...lengths) - Math.min(...lengths) > 1) return false;
        return byPartition.every((r) => r.every((v, i) => i === 0 || v === r[i - 1]! + 1));
      }),
    );
  });

  it('chunked is a permutation for every n, x and chunk', () => {
    fc.assert(fc.property(sizes, fc.integer({ min: 1, max: 64 }), ({ n, x }, chunk) => collision((id) => chunkedRemap(id, n, x, chunk), n) === null));
  });

  it('chunked gives each partition `chunk` consecutive ids per window', () => {
    const n = 8 * 4 * 5;
    const out = Array.from({ length: n }, (_, id) => chunkedRemap(id, n, 8, 4));
    // launch ids 0, 8, 16, 24 (partition 0) → 0, 1, 2, 3
    expect([0, 8, 16, 24].map((id) => out[id])).toEqual([0, 1, 2, 3]);
  });

  it('simple is a permutation exactly when x divides n (or n is 1)', () => {
    fc.assert(fc.property(sizes, ({ n, x }) => (collision((id) => simpleRemap(id, n, x), n) === null) === (n % x === 0 || n === 1)));
  });

  it('simple collides when x does not divide n: 10 ids on 4 partitions', () => {
    // ⌊10/4⌋ = 2 ids per partition: launch ids 8 (partition 0, third) and 1 both land on 2.
    expect(collision((id) => simpleRemap(id, 10, 4), 10)).toEqual([1, 8]);
    expect(collision((id) => simpleRemap(id, 12, 4), 12)).toBeNull();
  });
});
