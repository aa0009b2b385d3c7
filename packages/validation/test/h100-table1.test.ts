import { describe, expect, it } from 'vitest';
import { CLUSTERFUSION_BENCH, clusterFusionBenchKernel, collectiveModel, OURS } from '@fleet/family-hopper';
import { clusterFusionTableValidation, TABLE1_TOLERANCE } from '../src/index.js';
import table from '../src/h100/measured/clusterfusion-table1.json' with { type: 'json' };

const KB = [32, 64, 128, 256] as const;
const published = (op: 'reduce' | 'gather', kb: number, onChip: boolean) =>
  (table.collectiveLatencyUs[op] as Record<string, number[]>)[String(kb)]![onChip ? 1 : 0]!;
const err = (p: number, m: number) => (p - m) / m;

describe('ClusterFusion Table 1 as the paper ran it (32 clusters of 4, data size over the grid)', () => {
  it("splits the data over the grid: a reduce CTA holds its cluster's vector, a gather CTA a quarter of it", () => {
    const { clusters, clusterSize } = CLUSTERFUSION_BENCH;
    expect(clusters * clusterSize).toBe(128); // Llama-2-7B: one cluster of 4 per head, 32 heads
    expect(clusterFusionBenchKernel('reduce', 256 * 1024, true).perCtaBytes).toBe(8192);
    expect(clusterFusionBenchKernel('gather', 256 * 1024, true).perCtaBytes).toBe(2048);
    // small CTAs: all 32 clusters are resident at once (our occupancy), one wave
    expect(OURS.occupancy.small[clusterSize - 1]).toBeGreaterThanOrEqual(clusters);
    const k = clusterFusionBenchKernel('reduce', 64 * 1024, true);
    expect(k.waves).toBe(1);
    expect(k.kernelUs).toBeCloseTo(k.launchUs + k.waveUs, 9);
    // the collective inside is the measured DSMEM model at the per-CTA bytes
    expect(k.waveUs * 1000).toBeGreaterThan(collectiveModel('reduce', true).latencyNs(k.perCtaBytes, clusterSize));
  });

  for (const op of ['reduce', 'gather'] as const) {
    it(`${op} on chip: latency grows with the size, the trend 256 KB / 32 KB within ${TABLE1_TOLERANCE.trend}% of the paper's; off chip is slower at every size`, () => {
      const us = KB.map((kb) => clusterFusionBenchKernel(op, kb * 1024, true).kernelUs);
      for (let i = 1; i < us.length; i++) expect(us[i]!).toBeGreaterThan(us[i - 1]!);
      const trend = us[3]! / us[0]!;
      const paper = published(op, 256, true) / published(op, 32, true);
      expect(Math.abs(err(trend, paper))).toBeLessThan(TABLE1_TOLERANCE.trend / 100);
      KB.forEach((kb, i) => {
        expect(clusterFusionBenchKernel(op, kb * 1024, false).kernelUs, `${kb} KB`).toBeGreaterThan(us[i]!);
      });
    });
  }

  it("reading the sizes as each CTA's bytes (`fleet collective --bytes`) would make the on-chip reduce far steeper than published", () => {
    const launch = OURS.emptyClusterKernelUs.byCluster['4'];
    const perCta = (kb: number) => launch + collectiveModel('reduce', true).latencyNs(kb * 1024, 4) / 1000;
    const paper = published('reduce', 256, true) / published('reduce', 32, true);
    expect(perCta(256) / perCta(32)).toBeGreaterThan(2 * paper);
  });

  it('fleet validate rows: one per point and a trend per op and medium, the speedup column, errors printed, on-chip trends within tolerance', () => {
    const rows = clusterFusionTableValidation();
    expect(rows).toHaveLength(2 * 2 * (KB.length + 1) + 2 * KB.length);
    for (const r of rows) expect(r.tolerance).toBeLessThanOrEqual(10);
    const speedups = rows.filter((r) => r.experiment.includes('speedup of on chip'));
    expect(speedups).toHaveLength(2 * KB.length);
    for (const r of speedups) expect(r.predicted).toBeGreaterThan(1);
    for (const r of rows) {
      expect(r.suite).toBe('clusterfusion');
      expect(Number.isFinite(r.error)).toBe(true);
    }
    const trends = rows.filter((r) => r.experiment.includes('(trend)') && r.experiment.includes('on chip'));
    expect(trends).toHaveLength(2);
    for (const t of trends) expect(t.ok, t.experiment).toBe(true);
  });
});
