import { describe, expect, it } from 'vitest';
import { totalComputeUnits } from '@fleet/core';
import { activeSms, CLUSTER_DOMAINS, dsmem, maxActiveClusters, OURS, H100_SXM5 as topology } from '../src/index.js';

describe('thread-block cluster placement', () => {
  it('places every SM in one domain and every domain inside one GPC', () => {
    expect(CLUSTER_DOMAINS.reduce((a, b) => a + b, 0)).toBe(totalComputeUnits(topology));
    // the domains refine the GPCs: the eighth GPC's 16 SMs are a group of 8 and four TPC pairs
    const gpcs = [...topology.partitions.computeUnits].sort((a, b) => b - a);
    expect(CLUSTER_DOMAINS.slice(0, 7)).toEqual(gpcs.slice(0, 7));
    expect(CLUSTER_DOMAINS.slice(7).reduce((a, b) => a + b, 0)).toBe(gpcs[7]);
  });

  it('derives max active clusters from the domain sizes, matching cudaOccupancyMaxActiveClusters for every size 1–16', () => {
    const measured = OURS.occupancy.oneCtaPerSm;
    for (let n = 1; n <= 16; n++) expect(maxActiveClusters(n), `cluster ${n}`).toBe(measured[n - 1]);
  });

  it('loses SMs at larger cluster sizes: 132 at 1 and 2, 120 at 4 and 8, 112 at 16', () => {
    expect(activeSms(1)).toBe(132);
    expect(activeSms(2)).toBe(132);
    expect(activeSms(4)).toBe(120);
    expect(activeSms(8)).toBe(120);
    expect(activeSms(16)).toBe(112);
    for (let n = 1; n <= 16; n++) expect(activeSms(n)).toBeLessThanOrEqual(132);
    // odd sizes strand SMs in every domain: 3 → 117, 5 → 110
    expect(activeSms(3)).toBeLessThan(activeSms(4));
  });

  it('with plain GPC sizes would overstate size 16 by one cluster (what the measured split of one GPC corrects)', () => {
    expect(maxActiveClusters(16, topology.partitions.computeUnits)).toBe(maxActiveClusters(16) + 1);
  });

  it('rejects cluster sizes outside 1..16', () => {
    expect(() => maxActiveClusters(0)).toThrow(/1\.\.16/);
    expect(() => maxActiveClusters(17)).toThrow(/1\.\.16/);
  });
});

describe('DSMEM', () => {
  it('is slower than local shared memory and faster than an L2 hit; remote latency rises from size 2 to 4', () => {
    const shared = OURS.dsmemLatency.byCluster[0]!.localSharedCycles / 1.98;
    expect(dsmem.latencyNs(2)).toBeGreaterThan(shared);
    expect(dsmem.latencyNs(2)).toBeLessThan(topology.memory.l2.latencyNs);
    expect(dsmem.latencyNs(4)).toBeGreaterThan(dsmem.latencyNs(2));
  });

  it('gives one CTA less bandwidth at size 16 than at 2–8 and the GPU about the HBM rate at size 16 (ClusterFusion: 2.90 TB/s)', () => {
    expect(dsmem.readBytesPerNsPerCta(16)).toBeLessThan(dsmem.readBytesPerNsPerCta(4));
    expect(dsmem.aggregateReadBytesPerNs(16) / 1000).toBeGreaterThan(0.8 * 2.9);
    expect(dsmem.aggregateReadBytesPerNs(16) / 1000).toBeLessThan(1.2 * 2.9);
  });

  it('charges a cluster barrier that grows with the cluster size', () => {
    expect(dsmem.barrierNs(16)).toBeGreaterThan(dsmem.barrierNs(2));
  });
});
