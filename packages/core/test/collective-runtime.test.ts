import { describe, expect, it } from 'vitest';
import { collectiveChannels, collectiveCost, type CollectiveRuntime, type NodeSpec } from '../src/index.js';
import { MiB, ncclLikeLibrary, testNode } from './helpers.js';

// NCCL's Hopper constants (tuning.cc) and its enqueue's thread counts and thresholds.
const runtime: CollectiveRuntime = {
  channels: 24,
  threads: { LL: 512, LL128: 640, Simple: 512 },
  threadThresholdBytes: { LL: 8, LL128: 8, Simple: 64 },
  halveThreads: true,
  simpleChunkBytes: 2 * 2 ** 20,
  simpleSliceBytes: 2 ** 20,
};
const library = ncclLikeLibrary({ linkEfficiency: 20.6 / 25, channels: 12, runtime });
const topology = testNode('switch', 25);
const spec: NodeSpec = { topology, library };

describe('channels the library launches', () => {
  it('one channel fewer while the message is under channels × threads × threshold', () => {
    // Simple: 512 threads × 64 B = 32 KiB per channel.
    expect(collectiveChannels(runtime, 'ring', 'Simple', 32 * 1024, 2).channels).toBe(1);
    expect(collectiveChannels(runtime, 'ring', 'Simple', 128 * 1024, 2).channels).toBe(4);
    expect(collectiveChannels(runtime, 'ring', 'Simple', 24 * 32 * 1024, 2).channels).toBe(24);
    expect(collectiveChannels(runtime, 'ring', 'Simple', 64 * MiB, 2).channels).toBe(24);
    // Ring LL's threshold grows with the ranks: 8 B × 2 ranks × 512 threads = 8 KiB per channel at 2 GPUs, 32 KiB at 8.
    expect(collectiveChannels(runtime, 'ring', 'LL', 64 * 1024, 2).channels).toBe(8);
    expect(collectiveChannels(runtime, 'ring', 'LL', 64 * 1024, 8).channels).toBe(2);
    expect(collectiveChannels(runtime, 'tree', 'LL', 64 * 1024, 8).channels).toBe(16);
  });

  it('a lone channel then halves its threads while the message is still under', () => {
    const c = collectiveChannels(runtime, 'ring', 'Simple', 4096, 2);
    expect(c.channels).toBe(1);
    expect(c.threads).toBe(64);
  });
});

describe('protocol and channels by size (two GPUs)', () => {
  it('LL up to 1 MiB, Simple from 2 MiB, the choice and its channels named', () => {
    for (const kib of [8, 32, 128, 512, 1024]) {
      const c = collectiveCost(spec, 'all-reduce', kib * 1024, 2, { customAllReduce: false });
      expect([c.algorithm, c.protocol], `${kib} KiB`).toEqual(['ring', 'LL']);
    }
    for (const mib of [2, 8, 32, 64]) {
      const c = collectiveCost(spec, 'all-reduce', mib * MiB, 2, { customAllReduce: false });
      expect([c.algorithm, c.protocol, c.channels], `${mib} MiB`).toEqual(['ring', 'Simple', 24]);
    }
    expect(collectiveCost(spec, 'all-reduce', 8192, 2, { customAllReduce: false }).channels).toBe(1);
  });

  it('the library chooses by its own estimate, not by what the run then takes', () => {
    const c = collectiveCost(spec, 'all-reduce', 4 * MiB, 2, { customAllReduce: false });
    const byEstimate = [...c.candidates].sort((a, b) => a.estimateUs - b.estimateUs)[0]!;
    expect([c.algorithm, c.protocol]).toEqual([byEstimate.algorithm, byEstimate.protocol]);
    expect(c.estimateUs).toBe(byEstimate.estimateUs);
  });

  it('Simple pays one slice it cannot overlap: the extra time grows with the slice, then stops at the slice size', () => {
    const extra = (bytes: number) => {
      const c = collectiveCost(spec, 'all-reduce', bytes, 2, { customAllReduce: false });
      expect(c.protocol).toBe('Simple');
      return c.latencyUs - c.estimateUs;
    };
    expect(extra(8 * MiB)).toBeGreaterThan(extra(2 * MiB));
    expect(extra(32 * MiB)).toBeGreaterThan(extra(8 * MiB));
    // Beyond 24 channels × 2 ranks × 2 MiB chunks the slice stays 1 MiB.
    expect(extra(512 * MiB)).toBeCloseTo(extra(1024 * MiB), 9);
  });

  it('forcing one protocol (NCCL_PROTO) prices that protocol', () => {
    const only = (p: 'LL' | 'LL128' | 'Simple') =>
      collectiveCost({ ...spec, library: { ...library, protocols: [p] } }, 'all-reduce', 8192, 2, { customAllReduce: false });
    expect(only('LL128').protocol).toBe('LL128');
    expect(only('Simple').latencyUs).toBeGreaterThan(only('LL').latencyUs);
  });
});

describe('protocol by size (eight GPUs)', () => {
  it('LL for small messages, LL128 in the middle, Simple for large ones', () => {
    const at = (bytes: number) => collectiveCost(spec, 'all-reduce', bytes, 8, { customAllReduce: false });
    expect(at(64 * 1024).protocol).toBe('LL');
    expect(at(4 * MiB).protocol).toBe('LL128');
    expect(at(256 * MiB).protocol).toBe('Simple');
    // At 2 GiB the ring runs near the links' bus bandwidth (NCCL's 20.6 GB/s per NVLink × 18).
    expect(at(2 * 2 ** 30).busBandwidthGBps).toBeGreaterThan(360);
    expect(at(2 * 2 ** 30).busBandwidthGBps).toBeLessThan(18 * 20.6);
  });

  it('same input, same output', () => {
    const a = JSON.stringify(collectiveCost(spec, 'all-reduce', 3 * MiB + 17, 8));
    expect(JSON.stringify(collectiveCost(spec, 'all-reduce', 3 * MiB + 17, 8))).toBe(a);
  });
});

describe('the run of ring LL and LL128 (opRate) and the per-channel share', () => {
  const rated: CollectiveRuntime = {
    ...runtime,
    opRate: { LL: { resident: 200, streamed: 100 }, LL128: { resident: 400, streamed: 400 } },
    residentBytes: 16 * MiB,
    ringExtraUs: { Simple: 5 },
  };
  const ratedSpec: NodeSpec = { topology, library: { ...library, runtime: rated } };
  const run = (p: 'LL' | 'LL128' | 'Simple', bytes: number, devices: number, s: NodeSpec = ratedSpec) =>
    collectiveCost({ ...s, library: { ...s.library, protocols: [p] } }, 'all-reduce', bytes, devices, { customAllReduce: false });
  // The tuning model's latency: base + 2(N − 1) hops.
  const lat = (p: 'LL' | 'LL128', n: number) => library.baseLatencyUs.ring[p] + 2 * (n - 1) * library.hopLatencyUs.ring[p];

  it('every primitive of the loop walks bytes / N: 2N − 1 of them per all-reduce loop, at the GPU rate on all channels', () => {
    const bytes = 8 * MiB;
    for (const n of [2, 4, 8]) {
      const c = run('LL', bytes, n);
      expect(c.channels).toBe(24);
      expect(c.latencyUs).toBeCloseTo(lat('LL', n) + ((2 * n - 1) * bytes) / n / (1000 * 200), 9);
    }
  });

  it('LL runs at its streamed rate once the message no longer fits the resident bytes; LL128 has one rate here', () => {
    const data = (p: 'LL' | 'LL128', bytes: number) => run(p, bytes, 2).latencyUs - lat(p, 2);
    expect(data('LL', 32 * MiB) / data('LL', 16 * MiB)).toBeCloseTo(4, 9);
    expect(data('LL128', 32 * MiB) / data('LL128', 16 * MiB)).toBeCloseTo(2, 9);
  });

  it('a ring channel moves at most its share of all the channels: fewer channels, proportionally slower', () => {
    // 128 KiB of LL on two GPUs runs on 16 channels, 8 KiB each, at 200 / 24 GB/s per channel.
    const c = run('LL', 128 * 1024, 2);
    expect(c.channels).toBe(16);
    expect(c.latencyUs).toBeCloseTo(lat('LL', 2) + (1.5 * 8192) / ((1000 * 200) / 24), 9);
  });

  it("Simple's fixed extra is added to the run, not to the estimate the library chooses by", () => {
    const a = run('Simple', 64 * MiB, 2);
    const b = run('Simple', 64 * MiB, 2, spec);
    expect(a.latencyUs - b.latencyUs).toBeCloseTo(5, 9);
    expect(a.estimateUs).toBe(b.estimateUs);
  });

  it("Simple's unoverlapped slice is at least 1/32 of the slice size, at most the chunk", () => {
    // 512 KiB on 16 channels: a 16 KiB chunk per rank, so the slice is the whole chunk (not 8 KiB).
    const c = run('Simple', 512 * 1024, 2, spec);
    expect(c.channels).toBe(16);
    const perChannel = (18 * 25 * (20.6 / 25)) / 24;
    expect(c.latencyUs - c.estimateUs).toBeCloseTo(
      (512 * 1024) / (1000 * 16 * perChannel) + 16384 / (1000 * perChannel) - (512 * 1024) / (1000 * 18 * 20.6),
      6,
    );
  });
});
