import { describe, it, expect } from 'vitest';
import { Engine, onGrid, TICKS_PER_NS } from '../src/engine/engine.js';
import { EventQueue } from '../src/engine/event-queue.js';
import { mulberry32 } from './helpers.js';

function drain(q: EventQueue): [number, number, number][] {
  const out: [number, number, number][] = [];
  const ev: [number, number, number] = [0, 0, 0];
  while (q.pop(ev)) out.push([ev[0], ev[1], ev[2]]);
  return out;
}

describe('EventQueue', () => {
  it('is empty at first: size 0, peekTime Infinity, pop false', () => {
    const q = new EventQueue();
    expect(q.size).toBe(0);
    expect(q.peekTime()).toBe(Infinity);
    expect(q.pop([0, 0, 0])).toBe(false);
  });

  it('pops by time, then by insertion order among equal times', () => {
    const q = new EventQueue(4);
    q.push(5, 0, 1);
    q.push(3, 0, 2);
    q.push(5, 0, 3);
    q.push(3, 0, 4);
    q.push(0, 0, 5);
    q.push(5, 0, 6);
    expect(q.peekTime()).toBe(0);
    expect(drain(q).map((e) => e[2])).toEqual([5, 2, 4, 1, 3, 6]);
  });

  it('keeps kind and arg with their time', () => {
    const q = new EventQueue();
    q.push(2, 7, -3);
    q.push(1, 9, 42);
    expect(drain(q)).toEqual([
      [1, 9, 42],
      [2, 7, -3],
    ]);
  });

  it('timers fire as pushes whose superseded events are ignored: same order, same keys, pending alike (seeded)', () => {
    // Reference: every setting is a push and a cancel bumps a generation; events of an old
    // generation are popped and dropped. Timers must pop the live events in the same order.
    const rnd = mulberry32(777);
    const q = new EventQueue(4);
    const ref = new EventQueue(4);
    const T = 5;
    const ids = Array.from({ length: T }, () => q.addTimer());
    const gen = new Array<number>(T).fill(0);
    const live = new Array<boolean>(T).fill(false);
    let now = 0;
    const a: [number, number, number] = [0, 0, 0];
    const b: [number, number, number] = [0, 0, 0];
    // The reference's next live event (dropping stale ones); false when none is left.
    const refPop = (): boolean => {
      while (ref.pop(b)) {
        if (b[1] < T) {
          if (b[2] !== gen[b[1]]) continue;
          live[b[1]] = false;
        }
        return true;
      }
      return false;
    };
    for (let step = 0; step < 20_000; step++) {
      const r = rnd();
      const t = now + Math.floor(rnd() * 8);
      if (r < 0.25) {
        q.push(t, T, step);
        ref.push(t, T, step);
      } else if (r < 0.6) {
        const id = Math.floor(rnd() * T);
        gen[id]!++;
        live[id] = true;
        q.setTimer(ids[id]!, t, id, gen[id]!);
        ref.push(t, id, gen[id]!);
      } else if (r < 0.7) {
        const id = Math.floor(rnd() * T);
        gen[id]!++;
        live[id] = false;
        q.cancelTimer(ids[id]!);
      } else {
        const got = q.pop(a);
        expect(refPop()).toBe(got);
        if (got) {
          expect(a).toEqual(b);
          now = a[0];
        }
      }
      // Something is pending exactly when the reference still holds an event, stale or not.
      expect(q.size > 0 || q.supersededPending).toBe(ref.size > 0);
    }
    while (q.pop(a)) {
      expect(refPop()).toBe(true);
      expect(a).toEqual(b);
    }
    expect(refPop()).toBe(false);
  });

  it('grows beyond its initial capacity: 10,000 random pushes pop sorted, ties in push order', () => {
    const rnd = mulberry32(12345);
    const q = new EventQueue(16);
    const pushed: { t: number; i: number }[] = [];
    for (let i = 0; i < 10_000; i++) {
      // Few distinct times so there are many ties.
      const t = Math.floor(rnd() * 500);
      q.push(t, i % 3, i);
      pushed.push({ t, i });
    }
    expect(q.size).toBe(10_000);
    const out = drain(q);
    expect(q.size).toBe(0);
    const expected = [...pushed].sort((a, b) => a.t - b.t || a.i - b.i);
    expect(out.map((e) => e[2])).toEqual(expected.map((e) => e.i));
    expect(out.map((e) => e[0])).toEqual(expected.map((e) => e.t));
  });

  it('interleaved pushes and pops stay ordered (heap invariant under mixed use)', () => {
    const rnd = mulberry32(7);
    const q = new EventQueue(2);
    const ev: [number, number, number] = [0, 0, 0];
    let now = 0;
    let seq = 0;
    const popped: [number, number][] = [];
    for (let step = 0; step < 5000; step++) {
      if (q.size === 0 || rnd() < 0.6) q.push(now + Math.floor(rnd() * 50), 0, seq++);
      else {
        q.pop(ev);
        now = ev[0];
        popped.push([ev[0], ev[2]]);
      }
    }
    while (q.pop(ev)) popped.push([ev[0], ev[2]]);
    // Every push lands at or after the last pop, so the pops must come out globally ordered.
    let bad = 0;
    for (let i = 1; i < popped.length; i++) {
      const [t0, s0] = popped[i - 1]!;
      const [t1, s1] = popped[i]!;
      if (!(t1 > t0 || (t1 === t0 && s1 > s0))) bad++;
    }
    expect(bad).toBe(0);
    expect(popped.length).toBe(seq);
  });
});

describe('Engine', () => {
  it('fires by time, ties in schedule order, and advances now', () => {
    const e = new Engine();
    const log: string[] = [];
    const a = e.register('a', (x) => log.push(`a${x}@${e.now}`));
    const b = e.register('b', (x) => log.push(`b${x}@${e.now}`));
    e.at(10, a, 1);
    e.at(5, b, 2);
    e.at(10, b, 3);
    e.at(5, a, 4);
    expect(e.pending).toBe(4);
    e.run();
    expect(log).toEqual(['b2@5', 'a4@5', 'a1@10', 'b3@10']);
    expect(e.now).toBe(10);
    expect(e.eventCount).toBe(4);
    expect(e.pending).toBe(0);
  });

  it('events scheduled from a handler at the current time fire after those already queued for it', () => {
    const e = new Engine();
    const log: number[] = [];
    let k = 0;
    k = e.register('k', (x) => {
      log.push(x);
      if (x === 1) e.after(0, k, 99);
    });
    e.at(1, k, 1);
    e.at(1, k, 2);
    e.at(1, k, 3);
    e.run();
    expect(log).toEqual([1, 2, 3, 99]);
  });

  it('rejects an event before now (and NaN), naming the event', () => {
    const e = new Engine();
    const noop = e.register('tick', () => {});
    e.at(100, noop);
    e.run();
    expect(e.now).toBe(100);
    expect(() => e.at(99, noop)).toThrow(/'tick'.*99.*before now \(100/);
    expect(() => e.after(-1, noop)).toThrow(/before now/);
    expect(() => e.at(NaN, noop)).toThrow(/before now/);
    // Exactly now is allowed.
    expect(() => e.at(100, noop)).not.toThrow();
  });

  it('run(until) stops before later events and resumes', () => {
    const e = new Engine();
    const log: number[] = [];
    const k = e.register('k', (x) => log.push(x));
    for (const t of [1, 2, 3, 4]) e.at(t * 10, k, t);
    e.run(25);
    expect(log).toEqual([1, 2]);
    expect(e.now).toBe(20);
    expect(e.pending).toBe(2);
    e.run();
    expect(log).toEqual([1, 2, 3, 4]);
  });

  it('is deterministic: the same random schedule twice fires in identical order', () => {
    const runOnce = (): string[] => {
      const rnd = mulberry32(2024);
      const e = new Engine();
      const log: string[] = [];
      const kinds: number[] = [];
      for (let i = 0; i < 4; i++) {
        kinds.push(
          e.register(`k${i}`, (x) => {
            log.push(`${i}:${x}@${e.now}`);
            // Handlers spawn follow-ups with random (often zero) delays.
            if (x < 3000) e.after(Math.floor(rnd() * 4) * 5, kinds[Math.floor(rnd() * 4)]!, x + 1000);
          }),
        );
      }
      for (let i = 0; i < 2000; i++) e.at(Math.floor(rnd() * 100), kinds[i % 4]!, i);
      e.run();
      return log;
    };
    const a = runOnce();
    const b = runOnce();
    expect(a.length).toBeGreaterThan(2000);
    expect(b).toEqual(a);
  });
});

describe('EventQueue capacity', () => {
  it('works from a zero initial capacity', async () => {
    const { EventQueue } = await import('../src/engine/event-queue.js');
    const q = new EventQueue(0);
    q.push(5, 1, 2);
    q.push(3, 1, 1);
    const out: [number, number, number] = [0, 0, 0];
    expect(q.pop(out)).toBe(true);
    expect(out).toEqual([3, 1, 1]);
    expect(q.size).toBe(1);
  });
});

describe('Engine watchdog', () => {
  it('is called every N events and can stop a run that never ends', async () => {
    const { Engine } = await import('../src/engine/engine.js');
    const e = new Engine();
    // A handler that reschedules itself at the same time forever: a livelock.
    const k = e.register('spin', () => e.after(0, k, 0));
    e.at(0, k, 0);
    let calls = 0;
    expect(() =>
      e.run(
        Infinity,
        () => {
          if (++calls === 3) throw new Error('stuck');
        },
        1000,
      ),
    ).toThrow('stuck');
    expect(e.eventCount).toBe(3000);
  });
});

describe('Engine time grid', () => {
  it('event times lie on a 2⁻¹⁰ ns grid, so the same delays replay alike at any start time', () => {
    const relative = (start: number) => {
      const e = new Engine();
      const seen: number[] = [];
      const kind = e.register('k', (n) => {
        seen.push(e.now - start);
        if (n > 0) e.after(0.1 + n / 3, kind, n - 1);
      });
      e.at(start, kind, 20);
      e.run();
      return seen;
    };
    const a = relative(0);
    expect(a.every((t) => Number.isInteger(t * TICKS_PER_NS))).toBe(true);
    expect(relative(123456789 + 2 ** -10)).toEqual(a);
  });

  it('rounds the delay, not now + delay: a delay a hair under half a tick takes the same ticks late in a run', () => {
    // 3.4998 ticks: at 2⁴⁰ ns a double holds quarter ticks, so now + delay would round to 3.5 and then to 4.
    const delay = (3.5 - 2 ** -12) / TICKS_PER_NS;
    const ticksTaken = (start: number) => {
      const e = new Engine();
      let at = -1;
      const k = e.register('k', () => (at = e.now - start));
      const go = e.register('go', () => e.after(delay, k));
      e.at(start, go);
      e.run();
      return at * TICKS_PER_NS;
    };
    expect(onGrid(delay) * TICKS_PER_NS).toBe(3);
    expect(ticksTaken(0)).toBe(3);
    expect(ticksTaken(2 ** 40)).toBe(3);
  });
});

describe('Engine.jump', () => {
  it('moves the clock only while nothing is queued', () => {
    const e = new Engine();
    const fired: number[] = [];
    const k = e.register('x', () => fired.push(e.now));
    e.at(10, k);
    expect(e.jump(5)).toBe(false);
    e.run();
    expect(e.jump(100)).toBe(true);
    expect(e.now).toBe(110);
    e.after(1, k);
    e.run();
    expect(fired).toEqual([10, 111]);
  });
});
