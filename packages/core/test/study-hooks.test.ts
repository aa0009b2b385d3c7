/**
 * Hooks a cache study uses on the kernel-per-op runtime: an explicit partition per
 * workgroup, several resident workgroups per compute unit sharing its compute, and set
 * sampling (a tile's regions standing for more bytes than the caches see).
 */
import { describe, it, expect } from 'vitest';
import type { KernelSpec, Task, TaskGraph, Tile } from '../src/graph/task-graph.js';
import type { SimEvent } from '../src/protocol/events.js';
import { simulateGraph } from '../src/simulation/simulate.js';
import { l2HitRate } from '../src/memory/memory-system.js';
import { eventRecorder, KiB, testBackend } from './helpers.js';

function kernelGraph(tiles: Tile[][], partition: (i: number) => number | null = () => null): TaskGraph {
  const tasks: Task[] = tiles.map((t, i) => ({
    id: i,
    name: `wg${i}`,
    opId: 'op',
    kind: 'attention',
    layer: 0,
    level: 'cu',
    partition: partition(i),
    tiles: t,
    waits: [],
    signal: null,
    kernel: 0,
  }));
  const kernel: KernelSpec = { id: 0, name: 'k', opIds: ['op'], layer: 0, tasks: tasks.map((t) => t.id) };
  return {
    policy: 'study',
    style: 'kernel-per-op',
    buffers: [{ id: 0, name: 'data', bytes: 1024 * KiB, kind: 'kv-cache' }],
    tasks,
    events: [],
    kernels: [kernel],
    layers: [0],
  };
}

const read = (offset: number, bytes: number, over: Partial<Tile> = {}): Tile => ({
  reads: [{ buffer: 0, offset, bytes, policy: 'default' }],
  writes: [],
  flops: 1e6,
  unit: 'matrix',
  ...over,
});

describe('kernel-per-op study hooks', () => {
  it('a task naming its partition runs there, not on launch id mod P', () => {
    const rec = eventRecorder();
    simulateGraph(
      testBackend(),
      kernelGraph([[read(0, 4096)], [read(4096, 4096)], [read(8192, 4096)]], () => 1),
      { observers: [rec.observer] },
    );
    const starts = rec.events.filter((e): e is Extract<SimEvent, { type: 'task-start' }> => e.type === 'task-start');
    expect(starts.map((s) => s.partition)).toEqual([1, 1, 1]);
  });

  it('a kernel may carry its own occupancy: its workgroups fill two slots per unit, the other kernels keep one', () => {
    // 16 memory-only workgroups on 8 units: at occupancy 2 all start at launch; at 1 half wait for a slot.
    const tiles = Array.from({ length: 16 }, (_, i) => [
      { reads: [{ buffer: 0, offset: i * 16 * KiB, bytes: 16 * KiB, policy: 'default' as const }], writes: [], flops: 0, unit: 'vector' as const },
    ]);
    const startsOf = (g: TaskGraph) => {
      const rec = eventRecorder();
      simulateGraph(testBackend(), g, { launchMode: 'graph', observers: [rec.observer] });
      return rec.events.filter((e): e is Extract<SimEvent, { type: 'task-start' }> => e.type === 'task-start').map((e) => e.t);
    };
    const plain = kernelGraph(tiles);
    const own = { ...plain, kernels: [{ ...plain.kernels[0]!, workgroupsPerUnit: 2 }] };
    const first = (ts: number[]) => ts.filter((t) => t === Math.min(...ts)).length;
    expect(first(startsOf(plain))).toBe(8);
    expect(first(startsOf(own))).toBe(16);
    expect(() => simulateGraph(testBackend(), { ...plain, kernels: [{ ...plain.kernels[0]!, workgroupsPerUnit: 0 }] })).toThrow(/workgroupsPerUnit/);
  });

  it('workgroups resident on one unit share its compute', () => {
    // 16 compute-only workgroups on 8 units: one wave of 2 per unit takes as long as two waves of 1.
    const tiles = Array.from({ length: 16 }, () => [{ reads: [], writes: [], flops: 1e6, unit: 'matrix' as const }]);
    const one = simulateGraph(testBackend(), kernelGraph(tiles), { launchMode: 'graph' }).timeNs;
    const two = simulateGraph(testBackend(), kernelGraph(tiles), { launchMode: 'graph', workgroupsPerUnit: 2 }).timeNs;
    expect(Math.abs(two - one)).toBeLessThan(0.01 * one);
    // ... and not as fast as 16 units would be
    const wide = simulateGraph(testBackend(), kernelGraph(tiles.slice(0, 8)), { launchMode: 'graph' }).timeNs;
    expect(two).toBeGreaterThan(1.5 * wide - 2000);
    expect(() => simulateGraph(testBackend(), kernelGraph(tiles), { workgroupsPerUnit: 0 })).toThrow(/workgroupsPerUnit/);
  });

  it('a sampled tile moves trafficScale × its bytes but the cache sees its regions', () => {
    // Two workgroups on one partition read the same 8 KiB: the second hits.
    const exact = simulateGraph(
      testBackend(),
      kernelGraph([[read(0, 8 * KiB)], [read(0, 8 * KiB)]], () => 0),
      { launchMode: 'graph' },
    );
    const sampled = simulateGraph(
      testBackend(),
      kernelGraph([[read(0, 8 * KiB, { trafficScale: 64 })], [read(0, 8 * KiB, { trafficScale: 64 })]], () => 0),
      { launchMode: 'graph' },
    );
    const e = exact.counters[1]!;
    const s = sampled.counters[1]!;
    expect(l2HitRate(s)).toBeCloseTo(l2HitRate(e), 9);
    expect(s.l2.hitBytes + s.l2.missBytes).toBeCloseTo(64 * (e.l2.hitBytes + e.l2.missBytes), 6);
    expect(s.hbmReadBytes).toBeCloseTo(64 * e.hbmReadBytes, 6);
    // 64 × 8 KiB through a unit's 50 B/ns port take ≥ 10 µs more.
    expect(sampled.timeNs - exact.timeNs).toBeGreaterThan(9000);
  });
});
