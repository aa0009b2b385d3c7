/**
 * The conformance suite every backend runs in its own tests (as TensorFlow.js runs its core
 * suite against each backend):
 *
 * ```ts
 * import { runConformanceSuite } from '@fleet/core/conformance';
 * import backend from '../src/index.js';
 * runConformanceSuite(backend);
 * ```
 */
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../plugin/contract.js';
import { checkDescriptor, isApiCompatible, loadBackend } from '../plugin/load-backend.js';
import { simulateGraph } from '../simulation/simulate.js';
import { syntheticGraph } from './synthetic-graph.js';
import { numericLeafPointers, PROVENANCE_TAG, resolvePointer } from './provenance.js';

export { syntheticGraph } from './synthetic-graph.js';
export { numericLeafPointers, resolvePointer, PROVENANCE_TAG } from './provenance.js';

export interface ConformanceOptions {
  name?: string;
}

export function runConformanceSuite(descriptor: unknown, options: ConformanceOptions = {}): void {
  const label = options.name ?? (descriptor as { name?: string })?.name ?? 'backend';
  describe(`fleet conformance: ${label}`, () => {
    it('exports a valid descriptor with a compatible apiVersion', () => {
      const d = checkDescriptor(descriptor, label);
      expect(isApiCompatible(d.apiVersion, API_VERSION)).toBe(true);
    });

    it('binds the required tokens and a topology that passes the schema', () => {
      const b = loadBackend(descriptor, label);
      expect(b.topology.partitions.computeUnits.length).toBeGreaterThan(0);
      expect(b.topology.memory.hbm.achievableBandwidthBytesPerNs).toBeLessThanOrEqual(b.topology.memory.hbm.peakBandwidthBytesPerNs);
      expect(Object.keys(b.topology.sources).length).toBeGreaterThan(0);
    });

    it('gives every number of its topology a tagged source, and every source names a field', () => {
      const t = loadBackend(descriptor, label).topology;
      const keys = Object.keys(t.sources);
      expect(numericLeafPointers(t).filter((p) => !keys.includes(p))).toEqual([]);
      expect(keys.filter((k) => resolvePointer(t, k) === undefined)).toEqual([]);
      expect(Object.entries(t.sources).filter(([, s]) => !PROVENANCE_TAG.test(s))).toEqual([]);
    });

    it('tunes the runtimes within its topology, and refuses a policy only with a reason', () => {
      const b = loadBackend(descriptor, label);
      const layouts = [b.tuning.persistent, ...Object.values(b.tuning.policies ?? {}).map((p) => p.persistent)];
      for (const workers of layouts.map((l) => l?.workersPerPartition)) {
        if (workers !== undefined) for (const n of b.topology.partitions.computeUnits) expect(workers).toBeLessThanOrEqual(n);
      }
      if (b.tuning.cluster) expect(b.tuning.cluster.size).toBeLessThanOrEqual(b.topology.levels.chiplet.maxSize ?? 1);
      for (const p of Object.values(b.tuning.policies ?? {})) if (p.refuse !== undefined) expect(p.refuse.length).toBeGreaterThan(10);
    });

    it('has a cost model whose compute time grows with work', () => {
      const b = loadBackend(descriptor, label);
      const tile = (flops: number) => ({ reads: [], writes: [], flops, unit: 'matrix' as const });
      const a = b.costModel.tileComputeNs(tile(1e6), 'linear', 'cu');
      const c = b.costModel.tileComputeNs(tile(2e6), 'linear', 'cu');
      expect(a).toBeGreaterThan(0);
      expect(c).toBeCloseTo(2 * a, 6);
      expect(b.costModel.dispatchNs).toBeGreaterThanOrEqual(0);
      expect(b.costModel.launch.eagerNs).toBeGreaterThan(0);
      expect(b.costModel.launch.graphNodeNs).toBeGreaterThan(0);
    });

    for (const style of ['kernel-per-op', 'persistent'] as const) {
      it(`simulates a synthetic ${style} graph deterministically, moving every byte`, () => {
        const b = loadBackend(descriptor, label);
        const g = syntheticGraph(b.topology, style);
        const workers = Math.max(1, Math.min(...b.topology.partitions.computeUnits) - 1);
        const opts = { persistent: { workersPerPartition: workers, chipletAware: true, schedulers: 1, twoLevelCounting: true } };
        const r1 = simulateGraph(b, g, opts);
        const r2 = simulateGraph(b, g, opts);
        expect(r1.timeNs).toBeGreaterThan(0);
        expect(r1.timeNs).toBe(r2.timeNs);
        const read = r1.counters.reduce((s, c) => s + c.l2.hitBytes + c.l2.missBytes + c.l2.bypassBytes, 0);
        const expected = g.tasks.reduce(
          (s, t) => s + t.tiles.reduce((u, tl) => u + [...tl.reads, ...tl.writes].reduce((v, r) => v + r.bytes * (r.rows ?? 1), 0), 0),
          0,
        );
        // Workgroups of a device whose CU count does not divide the buffer read fractional bytes: equal to rounding.
        expect(Math.abs(read - expected)).toBeLessThanOrEqual(1e-9 * expected);
        // A weight stream much larger than every cache cannot run faster than HBM allows.
        const weightBytes = g.buffers[0]!.bytes;
        expect(r1.timeNs).toBeGreaterThanOrEqual(weightBytes / b.topology.memory.hbm.achievableBandwidthBytesPerNs);
      });
    }
  });
}
