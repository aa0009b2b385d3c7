import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectiveRounds, collectiveTrafficBytes, gatherTrafficBytes, reduceTrafficBytes } from '@fleet/core';
import { collectiveModel, combineNs, SHARED_BYTES_PER_NS, SHARED_LOAD_NS } from '../src/index.js';

const sizes = [2, 4, 8, 16];

describe('DSMEM traffic of the cluster collectives (seeds §3)', () => {
  it('ClusterReduce moves size · log2(N) · N bytes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 << 20 }), fc.constantFrom(...sizes), (size, n) => {
        expect(collectiveModel('reduce', true).trafficBytes(size, n)).toBe(size * Math.log2(n) * n);
        expect(reduceTrafficBytes(size, n)).toBe(size * Math.log2(n) * n);
      }),
    );
  });

  it('ClusterGather moves size · (2^(log2(N/2)+1) − 1) · N bytes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 << 20 }), fc.constantFrom(...sizes), (size, n) => {
        const formula = size * (2 ** (Math.log2(n / 2) + 1) - 1) * n;
        expect(collectiveModel('gather', true).trafficBytes(size, n)).toBe(formula);
        expect(gatherTrafficBytes(size, n)).toBe(formula);
        expect(collectiveTrafficBytes('gather', size, n)).toBe(formula);
      }),
    );
  });

  it('runs log2 N rounds with doubling stride; reduce messages stay constant, gather messages double', () => {
    const r = collectiveRounds('reduce', 1000, 16);
    const g = collectiveRounds('gather', 1000, 16);
    expect(r.map((x) => x.stride)).toEqual([1, 2, 4, 8]);
    expect(r.map((x) => x.sendBytes)).toEqual([1000, 1000, 1000, 1000]);
    expect(g.map((x) => x.sendBytes)).toEqual([1000, 2000, 4000, 8000]);
    expect(collectiveRounds('reduce', 1000, 1)).toEqual([]);
  });

  it('rejects a cluster that is not a power of two', () => {
    expect(() => collectiveRounds('reduce', 8, 3)).toThrow(/power of two/);
    expect(() => collectiveRounds('gather', -1, 4)).toThrow(/non-negative/);
  });

  it('the same schedule moves the same bytes on chip and off chip', () => {
    for (const n of sizes) {
      expect(collectiveModel('reduce', false).trafficBytes(4096, n)).toBe(collectiveModel('reduce', true).trafficBytes(4096, n));
    }
  });
});

describe('H100 collective latencies', () => {
  it('grow with bytes and with cluster size; DSMEM beats global memory from 8 KB per CTA', () => {
    for (const kind of ['reduce', 'gather'] as const) {
      for (const onChip of [true, false]) {
        const m = collectiveModel(kind, onChip);
        expect(m.latencyNs(65536, 4)).toBeGreaterThan(m.latencyNs(1024, 4));
        expect(m.latencyNs(4096, 16)).toBeGreaterThan(m.latencyNs(4096, 2));
      }
      for (const n of sizes) expect(collectiveModel(kind, true).latencyNs(8192, n)).toBeLessThan(collectiveModel(kind, false).latencyNs(8192, n));
    }
  });
});

describe("a reduce's local combine", () => {
  it('is latency-bound with one half2 per thread (ClusterFusion): one shared-memory load per 512 B on 128 threads', () => {
    expect(combineNs(0)).toBe(0);
    expect(combineNs(512)).toBeCloseTo(SHARED_LOAD_NS, 9);
    expect(combineNs(8192)).toBeCloseTo(16 * SHARED_LOAD_NS, 9);
  });

  it('is bank-bound with 16-byte accesses: 3 × bytes at the shared-memory rate', () => {
    expect(combineNs(8192, 16)).toBeCloseTo((3 * 8192) / SHARED_BYTES_PER_NS, 9);
  });

  it('adds to the reduce only, on either medium; the half2 combine costs more than the vector one', () => {
    for (const onChip of [true, false]) {
      expect(collectiveModel('reduce', onChip).latencyNs(32768, 4)).toBeGreaterThan(collectiveModel('reduce', onChip, 16).latencyNs(32768, 4));
      expect(collectiveModel('gather', onChip).latencyNs(32768, 4)).toBe(collectiveModel('gather', onChip, 16).latencyNs(32768, 4));
    }
  });
});
