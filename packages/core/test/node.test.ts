import { describe, expect, it } from 'vitest';
import {
  collectiveCost,
  groupBytesPerNs,
  validateNodeTopology,
  checkNodeSpec,
  buildDecodeGraph,
  MODEL_PRESETS,
  tensorBytes,
  type NodeSpec,
} from '../src/index.js';
import { ncclLikeLibrary, testNode } from './helpers.js';

const library = ncclLikeLibrary();

describe('node topology', () => {
  it('validates with one-line errors naming the field', () => {
    expect(() => validateNodeTopology({ ...testNode('switch', 25), devices: 0 }, 'test')).toThrow(/\/devices/);
    expect(() => validateNodeTopology({ ...testNode('switch', 25), interconnect: { ...testNode('switch', 25).interconnect, kind: 'ring' } }, 'test')).toThrow(
      /\/interconnect\/kind.*allowed: switch, full-mesh/,
    );
    expect(() => validateNodeTopology({ ...testNode('full-mesh', 64, 3) }, 'test')).toThrow(/linksPerDevice.*at least 7/);
    expect(() => checkNodeSpec({ topology: testNode('switch', 25), library }, 'backend x', 'other')).toThrow(/\/device/);
  });

  it('a switch gives any group all links; a full mesh only the links to the group', () => {
    expect(groupBytesPerNs(testNode('switch', 25), 2)).toBe(450);
    expect(groupBytesPerNs(testNode('switch', 25), 8)).toBe(450);
    expect(groupBytesPerNs(testNode('full-mesh', 64), 2)).toBe(64);
    expect(groupBytesPerNs(testNode('full-mesh', 64), 8)).toBe(448);
  });
});

describe('collective cost model', () => {
  const spec: NodeSpec = { topology: testNode('switch', 25), library };
  it('latency grows with bytes; small messages pick LL, large ones Simple', () => {
    const small = collectiveCost(spec, 'all-reduce', 8192, 8);
    const large = collectiveCost(spec, 'all-reduce', 64 * 2 ** 20, 8);
    expect(large.latencyUs).toBeGreaterThan(small.latencyUs);
    expect(small.protocol).toBe('LL');
    expect(large.protocol).toBe('Simple');
    expect(large.busBandwidthGBps).toBeLessThanOrEqual(450 * library.linkEfficiency + 1e-9);
  });

  it('a custom one-shot all-reduce wins small messages when the library has one', () => {
    const c = collectiveCost({ ...spec, library: { ...library, custom: { name: 'c', maxBytes: 8 * 2 ** 20, barrierUs: 2 } } }, 'all-reduce', 16384, 2);
    expect(c.algorithm).toBe('one-shot');
    expect(
      collectiveCost({ ...spec, library: { ...library, custom: { name: 'c', maxBytes: 1024, barrierUs: 2 } } }, 'all-reduce', 16384, 2).algorithm,
    ).not.toBe('one-shot');
  });

  it('names the custom all-reduce as the engine’s kernel, and prices the library alone on request', () => {
    const withCustom = { ...spec, library: { ...library, custom: { name: 'engine-ar', maxBytes: 8 * 2 ** 20, barrierUs: 2 } } };
    const c = collectiveCost(withCustom, 'all-reduce', 8192, 2);
    expect(c.algorithm).toBe('one-shot');
    expect(c.library).toBe('engine-ar');
    const n = collectiveCost(withCustom, 'all-reduce', 8192, 2, { customAllReduce: false });
    expect(['ring', 'tree']).toContain(n.algorithm);
    expect(n.library).toBe(library.name);
    // NCCL alone pays its protocol's base latency
    expect(n.latencyUs).toBeGreaterThanOrEqual(Math.min(library.baseLatencyUs.ring.LL, library.baseLatencyUs.tree.LL));
    expect(n.latencyUs).toBeGreaterThan(c.latencyUs);
  });

  it('a faster link makes large collectives faster; one device costs nothing', () => {
    const slow = collectiveCost({ topology: testNode('full-mesh', 64), library }, 'all-reduce', 2 ** 24, 2).latencyUs;
    const fast = collectiveCost({ topology: testNode('switch', 25), library }, 'all-reduce', 2 ** 24, 2).latencyUs;
    expect(fast).toBeLessThan(slow);
    expect(collectiveCost(spec, 'all-gather', 1 << 20, 1).latencyUs).toBe(0);
    expect(() => collectiveCost(spec, 'all-reduce', 1, 9)).toThrow(/^`devices` must be an integer in 1\.\.8/);
    expect(() => collectiveCost(spec, 'all-reduce', 1, 9)).toThrow(expect.objectContaining({ field: 'devices' }));
  });
});

describe('tensor-parallel op graph', () => {
  const m = MODEL_PRESETS['llama3-70b']!;
  const weightBytes = (tp: number) =>
    buildDecodeGraph(m, { batch: 1, contextLen: 8, ...(tp > 1 ? { tp } : {}) })
      .tensors.filter((t) => t.kind === 'weight')
      .reduce((s, t) => s + tensorBytes(t), 0);
  it('TP shrinks the per-device weight bytes by about TP (norms replicated)', () => {
    const one = weightBytes(1);
    for (const tp of [2, 4, 8]) {
      const r = one / weightBytes(tp);
      expect(r).toBeGreaterThan(tp * 0.99);
      expect(r).toBeLessThanOrEqual(tp);
    }
  });
  it('adds an all-reduce after O and down, one after the embedding, and gathers the logits', () => {
    const g = buildDecodeGraph(m, { batch: 2, contextLen: 8, tp: 4 });
    expect(g.ops.filter((o) => o.kind === 'all-reduce').length).toBe(2 * m.numLayers + 1);
    const gather = g.ops.filter((o) => o.kind === 'all-gather');
    expect(gather.map((o) => o.id)).toEqual(['logits_allgather']);
    const i = g.ops.findIndex((o) => o.id === 'L0.o_proj');
    expect(g.ops[i + 1]!.id).toBe('L0.o_allreduce');
    expect(() => buildDecodeGraph(m, { batch: 1, contextLen: 8, tp: 3 })).toThrow(/tp 3/);
  });
});
