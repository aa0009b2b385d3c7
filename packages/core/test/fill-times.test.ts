import { describe, expect, it } from 'vitest';
import { FillTimes } from '../src/memory/fill-times.js';
import { mulberry32 } from './helpers.js';

describe('FillTimes', () => {
  it('answers as a map of every recorded fill does, for every fill still in flight', () => {
    const rnd = mulberry32(7);
    const fills = new FillTimes(16);
    const all = new Map<number, number>();
    let now = 0;
    for (let i = 0; i < 50_000; i++) {
      now += rnd() * 3;
      // Block ids over the whole 31-bit range (a layer-periodic layout's), sectors 0..127.
      const block = rnd() < 0.5 ? Math.floor(rnd() * 64) : Math.floor(rnd() * 2 ** 31);
      const sector = Math.floor(rnd() * 128);
      const key = block * 128 + sector;
      if (rnd() < 0.6) {
        const ready = now + rnd() * 800;
        fills.set(block, sector, ready, now);
        all.set(key, ready);
      } else {
        const want = all.get(key);
        const got = fills.get(block, sector, now);
        // A landed fill may have been dropped: it delays no one either way.
        if (want !== undefined && want > now) expect(got).toBe(want);
        else expect(got <= now).toBe(true);
      }
    }
    // What is in flight, as a proof of repetition compares it: exactly the map's fills still to land.
    const flying = fills.inFlight(now);
    const want = [...all].filter(([, r]) => r > now).map(([k, r]) => [k, r - now]);
    const got: number[][] = [];
    for (let i = 0; i < flying.length; i += 3) got.push([flying[i]! * 128 + flying[i + 1]!, flying[i + 2]!]);
    const order = (a: number[], b: number[]) => a[0]! - b[0]!;
    expect(got.sort(order)).toEqual(want.sort(order));
    // Landed fills are forgotten: the tables stay the size of what is in flight.
    expect(fills.size).toBeLessThan(4096);
  });
});
