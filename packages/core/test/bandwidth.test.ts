import { describe, it, expect } from 'vitest';
import { Engine } from '../src/engine/engine.js';
import { BandwidthResource } from '../src/memory/bandwidth-resource.js';

/** A resource on a fresh engine that records (flow id → completion time). */
function setup(bandwidth: number, perFlowCap: number) {
  const engine = new Engine();
  const done = new Map<number, number>();
  const order: number[] = [];
  const res = new BandwidthResource('r', engine, bandwidth, perFlowCap, (id) => {
    expect(done.has(id)).toBe(false);
    done.set(id, engine.now);
    order.push(id);
  });
  /** Start a flow at absolute time `t` (through the engine, so `now` is right). */
  const startAt = (t: number, bytes: number, id: number) => {
    const k = engine.register(`start${id}`, () => res.start(bytes, id));
    engine.at(t, k);
  };
  return { engine, res, done, order, startAt };
}

describe('BandwidthResource (processor sharing)', () => {
  it('a lone flow is limited by the per-flow cap: B / min(R, C)', () => {
    const s = setup(100, 40);
    s.res.start(1000, 1);
    s.engine.run();
    expect(s.done.get(1)).toBeCloseTo(1000 / 40, 9);
  });

  it('a lone flow under a generous cap takes B / R', () => {
    const s = setup(100, 500);
    s.res.start(1000, 1);
    s.engine.run();
    expect(s.done.get(1)).toBeCloseTo(10, 9);
  });

  it('two equal concurrent flows each finish at 2B / R when 2C > R', () => {
    const s = setup(100, 80);
    s.res.start(1000, 1);
    s.res.start(1000, 2);
    s.engine.run();
    expect(s.done.get(1)).toBeCloseTo(20, 9);
    expect(s.done.get(2)).toBeCloseTo(20, 9);
  });

  it('two concurrent flows stay capped at C each when 2C < R', () => {
    const s = setup(100, 40);
    s.res.start(1000, 1);
    s.res.start(1000, 2);
    s.engine.run();
    expect(s.done.get(1)).toBeCloseTo(25, 9);
    expect(s.done.get(2)).toBeCloseTo(25, 9);
  });

  it('a flow arriving later shares from its arrival on', () => {
    // R = 100, C = 80, B = 1000 each. Flow 1 alone 0–5 ns at 80 B/ns: 400 B. Both at 50 B/ns
    // from 5 ns: flow 1 needs 600 more, done at 17 ns; flow 2 has 600 by then, the last
    // 400 B alone at 80 B/ns: done at 22 ns.
    const s = setup(100, 80);
    s.startAt(0, 1000, 1);
    s.startAt(5, 1000, 2);
    s.engine.run();
    expect(s.done.get(1)).toBeCloseTo(17, 9);
    expect(s.done.get(2)).toBeCloseTo(22, 9);
    expect(s.order).toEqual([1, 2]);
  });

  it('unequal flows depart shortest first', () => {
    // R = 300, no binding cap: 3 flows at 100 B/ns; 300 B done at 3 ns; then 2 at 150 B/ns:
    // the 600 B flow needs 300 more (5 ns), the 900 B flow 300 alone at 300 B/ns (6 ns).
    const s = setup(300, 1000);
    s.res.start(900, 3);
    s.res.start(300, 1);
    s.res.start(600, 2);
    s.engine.run();
    expect(s.done.get(1)).toBeCloseTo(3, 9);
    expect(s.done.get(2)).toBeCloseTo(5, 9);
    expect(s.done.get(3)).toBeCloseTo(6, 9);
    expect(s.order).toEqual([1, 2, 3]);
  });

  it('many equal flows finish together at n·B / R', () => {
    const s = setup(1000, 64);
    for (let i = 0; i < 50; i++) s.res.start(2000, i);
    s.engine.run();
    expect(s.done.size).toBe(50);
    for (const t of s.done.values()) expect(t).toBeCloseTo((50 * 2000) / 1000, 6);
  });

  it('a zero-byte flow completes at once', () => {
    const s = setup(100, 100);
    s.startAt(7, 0, 9);
    s.engine.run();
    expect(s.done.get(9)).toBe(7);
  });

  it('counts bytes and busy time (idle gaps excluded)', () => {
    const s = setup(100, 200);
    s.startAt(0, 1000, 1); // busy 0–10
    s.startAt(20, 1000, 2); // busy 20–30
    s.engine.run();
    expect(s.done.get(2)).toBeCloseTo(30, 9);
    expect(s.res.bytes).toBe(2000);
    expect(s.res.busyNs).toBeCloseTo(20, 9);
  });

  it('never finishes faster than total bytes / R (conservation)', () => {
    const s = setup(250, 100);
    let total = 0;
    for (let i = 0; i < 20; i++) {
      const bytes = 100 + 37 * i;
      total += bytes;
      s.startAt(i * 3, bytes, i);
    }
    s.engine.run();
    expect(s.res.bytes).toBe(total);
    const last = Math.max(...s.done.values());
    expect(last).toBeGreaterThanOrEqual(total / 250 - 1e-9);
    expect(s.res.busyNs).toBeGreaterThanOrEqual(total / 250 - 1e-9);
  });
});
