import { describe, expect, it } from 'vitest';
import {
  dramBandwidthAtInFlight,
  dramLatencyAtInFlight,
  inFlightFromRate,
  loadedDramLatencyNs,
  simulateGraph,
  type HbmSpec,
  type Topology,
} from '../src/index.js';
import { syntheticGraph } from '../src/conformance/synthetic-graph.js';
import { testBackend, testTopology } from './helpers.js';

/** An H100-like HBM: 332 ns unloaded, q = 33 ns, saturating at 3272 B/ns. */
const HBM: HbmSpec = {
  capacityBytes: 2 ** 36,
  peakBandwidthBytesPerNs: 3350,
  achievableBandwidthBytesPerNs: 3036,
  latencyNs: 332,
  loadedLatency: { queueNs: 33, saturationBytesPerNs: 3272 },
};
const CONSTANT: HbmSpec = { ...HBM, loadedLatency: undefined };

describe('loaded DRAM latency', () => {
  it('is the unloaded latency at no load and rises monotonically with the delivered bandwidth', () => {
    expect(loadedDramLatencyNs(HBM, 0)).toBe(332);
    let prev = 332;
    for (let x = 100; x < 3272; x += 100) {
      const l = loadedDramLatencyNs(HBM, x);
      expect(l).toBeGreaterThan(prev);
      prev = l;
    }
    // q is the wait at half the saturation bandwidth; the queue diverges towards saturation
    expect(loadedDramLatencyNs(HBM, 3272 / 2)).toBeCloseTo(332 + 33, 9);
    expect(loadedDramLatencyNs(HBM, 0.99 * 3272)).toBeGreaterThan(3000);
  });

  it('is constant without a loadedLatency', () => {
    for (const x of [0, 1000, 3000, 10000]) expect(loadedDramLatencyNs(CONSTANT, x)).toBe(332);
    for (const w of [1, 1e5, 1e7]) expect(dramLatencyAtInFlight(CONSTANT, w)).toBe(332);
  });

  it("solves Little's law for the whole memory: X · L(X) = W, below saturation, rising with W", () => {
    let prevX = 0;
    let prevL = 0;
    for (const w of [1e3, 1e4, 1e5, 5e5, 1e6, 2e6, 8e6, 1e8]) {
      const x = dramBandwidthAtInFlight(HBM, w);
      expect(x * loadedDramLatencyNs(HBM, x)).toBeCloseTo(w, 3);
      expect(x).toBeGreaterThan(prevX);
      expect(x).toBeLessThan(3272);
      const l = dramLatencyAtInFlight(HBM, w);
      expect(l).toBeGreaterThanOrEqual(prevL);
      prevX = x;
      prevL = l;
    }
    // few bytes in flight: the unloaded latency; very many: the memory saturates
    expect(dramLatencyAtInFlight(HBM, 1000)).toBeCloseTo(332, 0);
    expect(dramBandwidthAtInFlight(HBM, 1e9)).toBeGreaterThan(0.99 * 3272);
    // q = L0 makes the quadratic linear: the same equation still holds
    const lin: HbmSpec = { ...HBM, loadedLatency: { queueNs: 332, saturationBytesPerNs: 3272 } };
    const x = dramBandwidthAtInFlight(lin, 1e6);
    expect(x * loadedDramLatencyNs(lin, x)).toBeCloseTo(1e6, 3);
  });

  it('a reader measured under load kept more bytes in flight than the unloaded latency says', () => {
    // 96 readers at 22.6 B/ns each (2.2 TB/s in all): the queue adds about a fifth
    const loaded = inFlightFromRate(HBM, 22.6, 96 * 22.6);
    expect(loaded).toBeGreaterThan(22.6 * 332 * 1.15);
    expect(inFlightFromRate(CONSTANT, 22.6, 96 * 22.6)).toBeCloseTo(22.6 * 332, 9);
    // a lone reader sees next to no queue
    expect(inFlightFromRate(HBM, 22.6, 22.6)).toBeLessThan(22.6 * 332 * 1.001);
  });

  it('the same readers get more bandwidth from a memory that saturates higher and queues less', () => {
    const faster: HbmSpec = { ...HBM, achievableBandwidthBytesPerNs: 4289, loadedLatency: { queueNs: 28, saturationBytesPerNs: 4826 } };
    const w = 128 * 9000;
    expect(dramBandwidthAtInFlight(faster, w)).toBeGreaterThan(1.1 * dramBandwidthAtInFlight(HBM, w));
    // ... where a constant latency would give both the same
    expect(dramBandwidthAtInFlight({ ...faster, loadedLatency: undefined }, w)).toBe(dramBandwidthAtInFlight(CONSTANT, w));
  });
});

describe('loaded DRAM latency in the simulation', () => {
  function withHbm(loadedLatency: HbmSpec['loadedLatency']): Topology {
    const t = testTopology({ noLlc: true });
    return { ...t, memory: { ...t.memory, hbm: { ...t.memory.hbm, loadedLatency } } };
  }
  const time = (t: Topology) =>
    simulateGraph(
      testBackend({ pipelines: { kernel: { inFlightBytes: 2048, overlap: 4 }, persistent: { inFlightBytes: 2048, overlap: 4 } } }, t),
      syntheticGraph(t, 'kernel-per-op'),
    ).timeNs;

  it('DRAM reads take longer the more the memory queues, deterministically', () => {
    const hbm = testTopology().memory.hbm;
    const base = time(withHbm(undefined));
    const none = time(withHbm({ queueNs: 0, saturationBytesPerNs: hbm.achievableBandwidthBytesPerNs }));
    const some = time(withHbm({ queueNs: hbm.latencyNs / 4, saturationBytesPerNs: hbm.achievableBandwidthBytesPerNs }));
    const more = time(withHbm({ queueNs: hbm.latencyNs, saturationBytesPerNs: hbm.achievableBandwidthBytesPerNs }));
    expect(none).toBeCloseTo(base, 6);
    expect(some).toBeGreaterThan(base);
    expect(more).toBeGreaterThan(some);
    expect(time(withHbm({ queueNs: hbm.latencyNs, saturationBytesPerNs: hbm.achievableBandwidthBytesPerNs }))).toBe(more);
  });
});
