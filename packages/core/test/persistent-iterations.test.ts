import { describe, it, expect } from 'vitest';
import type { SimEvent } from '../src/protocol/events.js';
import { simulateGraph } from '../src/simulation/simulate.js';
import { syntheticGraph } from '../src/conformance/synthetic-graph.js';
import type { PersistentOptions } from '../src/runtime/persistent-runtime.js';
import { scheduleCounts } from '../src/runtime/schedule-counts.js';
import { addCounters, zeroCounters } from '../src/memory/memory-system.js';
import { eventRecorder, graph, task, testBackend, testTopology } from './helpers.js';

const persistent = (over: Partial<PersistentOptions> = {}): PersistentOptions => ({
  workersPerPartition: 4,
  chipletAware: false,
  schedulers: 2,
  twoLevelCounting: false,
  ...over,
});

function total(counters: ReturnType<typeof simulateGraph>['counters']) {
  const c = zeroCounters();
  for (const b of counters) addCounters(c, b);
  return c;
}

describe('persistent runtime: one launch, several iterations', () => {
  const g = syntheticGraph(testTopology(), 'persistent');

  it('runs every task once per iteration, the next iteration only after the previous one ended', () => {
    const rec = eventRecorder();
    const r = simulateGraph(testBackend(), g, { persistent: persistent({ iterations: 3 }), observers: [rec.observer] });
    const starts = rec.events.filter((e): e is Extract<SimEvent, { type: 'task-start' }> => e.type === 'task-start');
    const ends = rec.events.filter((e): e is Extract<SimEvent, { type: 'task-end' }> => e.type === 'task-end');
    const launches = rec.events.filter((e) => e.type === 'launch');
    expect(launches).toHaveLength(1);
    // Each task starts once per iteration (a chiplet-task once per worker of its partition).
    const once = simulateGraph(testBackend(), g, { persistent: persistent(), observers: [] });
    expect(starts.length % 3).toBe(0);
    expect(r.tasks).toBe(once.tasks);
    // Iteration boundaries: no task of iteration k+1 starts before every task of iteration k ended.
    const perIteration = starts.length / 3;
    const firstOfSecond = starts[perIteration]!.t;
    const endsOfFirst = ends.slice(0, perIteration).map((e) => e.t);
    expect(firstOfSecond).toBeGreaterThan(Math.max(...endsOfFirst));
  });

  it('reports the last iteration: its time, and memory counters of one iteration', () => {
    const one = simulateGraph(testBackend(), g, { persistent: persistent() });
    const two = simulateGraph(testBackend(), g, { persistent: persistent({ iterations: 2 }) });
    expect(two.timeNs).toBeGreaterThan(0);
    // One iteration's bytes: the second reads what the first did (L2 may hold some of it now).
    const a = total(one.counters);
    const b = total(two.counters);
    expect(b.l2.hitBytes + b.l2.missBytes + b.l2.bypassBytes).toBeCloseTo(a.l2.hitBytes + a.l2.missBytes + a.l2.bypassBytes, 6);
    expect(b.hbmReadBytes).toBeLessThanOrEqual(a.hbmReadBytes);
    // Counters carried on: twice the tasks' dispatches, plus the begin-task-graph task.
    expect(two.dispatches).toBe(2 * one.dispatches + 1);
    expect(two.launches).toBe(1);
  });

  it('refuses a non-integer iteration count, naming the option', () => {
    expect(() => simulateGraph(testBackend(), g, { persistent: persistent({ iterations: 0 }) })).toThrow(/iterations must/);
    expect(() => simulateGraph(testBackend(), g, { persistent: persistent({ descriptorsPerFetch: 1.5 }) })).toThrow(/descriptorsPerFetch must/);
  });
});

describe('persistent runtime: batched descriptor fetch', () => {
  // 40 independent CU-tasks ready at launch: each worker's queue holds several.
  const tasks = Array.from({ length: 40 }, (_, i) => task(i, { name: `t${i}` }));
  const g = graph(tasks, []);

  it('copies up to descriptorsPerFetch queued descriptors per fetch, fewer fetches than tasks', () => {
    const single = simulateGraph(testBackend(), g, { persistent: persistent() });
    const batched = simulateGraph(testBackend(), g, { persistent: persistent({ descriptorsPerFetch: 16 }) });
    expect(single.descriptorFetches).toBe(40);
    expect(single.descriptorsFetched).toBe(40);
    expect(batched.descriptorsFetched).toBe(40);
    expect(batched.descriptorFetches).toBeLessThan(40);
    expect(batched.descriptorsFetched / batched.descriptorFetches).toBeLessThanOrEqual(16);
    // One fetch's latency serves several tasks: the step is no slower.
    expect(batched.timeNs).toBeLessThanOrEqual(single.timeNs);
  });
});

describe('scheduleCounts', () => {
  it('counts what the persistent runtime does: a dispatch per task, fences per task or per worker without two-level counting', () => {
    const g = syntheticGraph(testTopology(), 'persistent');
    for (const twoLevelCounting of [false, true]) {
      const opts = persistent({ twoLevelCounting, chipletAware: true });
      const r = simulateGraph(testBackend(), g, { persistent: opts });
      const c = scheduleCounts(g, opts);
      expect(c.reduce((s, x) => s + x.dispatches, 0)).toBe(r.dispatches);
      expect(c.reduce((s, x) => s + x.fences, 0)).toBe(r.fences);
    }
  });

  it('counts a kernel-per-op graph’s launches per layer', () => {
    const g = syntheticGraph(testTopology(), 'kernel-per-op');
    const r = simulateGraph(testBackend(), g, { launchMode: 'graph' });
    const c = scheduleCounts(g);
    expect(c.reduce((s, x) => s + x.launches, 0)).toBe(r.launches);
  });
});
