import { FleetError, loadBackend, totalComputeUnits, type Backend } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import mi300x from '@fleet/backend-mi300x';
import mi350 from '@fleet/backend-mi350';
import { describe, expect, it } from 'vitest';
import { attentionFlops, attentionKernel, type AttentionShape } from '../src/decomposition.js';
import { ATTENTION_MAPPINGS } from '../src/mappings.js';
import { checkShape, compareMappings, planSimulation, simulateAttention } from '../src/study.js';

const MI300X: Backend = loadBackend(mi300x, 'test');
const MI350: Backend = loadBackend(mi350, 'test');
const H100: Backend = loadBackend(h100, 'test');

const shape = (seq: number, batch: number, heads: number, kvHeads = heads, headDim = 128): AttentionShape => ({
  seq,
  batch,
  heads,
  kvHeads,
  headDim,
  pass: 'fwd',
});
/** No sampling, no extrapolation, every partition: the reference the shortcuts are checked against. */
const EXACT = { stepSample: 1, prefix: Number.MAX_SAFE_INTEGER, partitions: 8 };

describe('attention study', () => {
  it('is deterministic', () => {
    const a = simulateAttention(MI300X, shape(8192, 2, 32), 'naive-head-first');
    const b = simulateAttention(MI300X, shape(8192, 2, 32), 'naive-head-first');
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('sampling and extrapolation agree with the exact simulation', () => {
    // 16 streams per XCD for block-first (step sample 4), a shared head for naive head-first.
    for (const m of ['naive-block-first', 'naive-head-first', 'swizzled-head-first'] as const) {
      const s = shape(8192, 2, 64);
      const fast = simulateAttention(MI300X, s, m);
      const exact = simulateAttention(MI300X, s, m, EXACT);
      expect(fast.sampled.stepSample * (fast.sampled.simulatedWorkgroups < fast.sampled.workgroups ? 2 : 1)).toBeGreaterThan(1);
      expect(exact.sampled.simulatedWorkgroups).toBe(exact.sampled.workgroups);
      expect(Math.abs(fast.l2HitRate - exact.l2HitRate)).toBeLessThan(0.025);
      // A sampled chunk overlaps memory and compute over k steps at once, so per-step peaks average out: a few % fast.
      expect(fast.timeMs / exact.timeMs).toBeGreaterThan(0.95);
      expect(fast.timeMs / exact.timeMs).toBeLessThan(1.03);
    }
  });

  it('is never faster than the compute roofline, and swizzled head-first on few heads reaches it', () => {
    const s = shape(8192, 1, 32);
    const k = attentionKernel(s);
    const cu = MI300X.topology.computeUnit;
    for (const m of ATTENTION_MAPPINGS) {
      const r = simulateAttention(MI300X, s, m);
      const floorMs = attentionFlops(k) / (totalComputeUnits(MI300X.topology) * cu.matrixFlopsPerNs.bf16) / 1e6;
      expect(r.timeMs).toBeGreaterThan(floorMs);
      expect(r.tflops).toBeLessThan((totalComputeUnits(MI300X.topology) * cu.matrixFlopsPerNs.bf16) / 1e3);
    }
  });

  it('block-first with more heads than slots misses L2 and runs at HBM bandwidth', () => {
    // 1024 heads: each XCD deals 128 heads per row block over its 76 slots, nothing is shared.
    const r = simulateAttention(MI300X, shape(8192, 1, 1024), 'naive-block-first');
    expect(r.l2HitRate).toBeLessThan(0.05);
    const hbmMs = r.hbmReadBytes / MI300X.topology.memory.hbm.achievableBandwidthBytesPerNs / 1e6;
    expect(r.timeMs).toBeGreaterThanOrEqual(hbmMs * 0.99);
    expect(r.timeMs).toBeLessThan(hbmMs * 1.15);
    const shf = simulateAttention(MI300X, shape(8192, 1, 1024), 'swizzled-head-first');
    expect(shf.l2HitRate).toBeGreaterThan(0.9);
    expect(r.timeMs / shf.timeMs).toBeGreaterThan(1.2);
  });

  it('8 heads, batch 1: naive block-first is swizzled head-first (one head per XCD)', () => {
    const a = simulateAttention(MI300X, shape(8192, 1, 8), 'naive-block-first');
    const b = simulateAttention(MI300X, shape(8192, 1, 8), 'swizzled-head-first');
    expect(a.l2HitRate).toBeCloseTo(b.l2HitRate, 3);
    expect(a.timeMs).toBeCloseTo(b.timeMs, 3);
  });

  it('GQA with 8 KV heads: the swizzled mappings agree, naive block-first reuses less', () => {
    const rows = compareMappings(MI300X, shape(8192, 1, 64, 8));
    const by = Object.fromEntries(rows.map((r) => [r.mapping, r]));
    expect(Math.abs(by['swizzled-block-first']!.l2HitRate - by['swizzled-head-first']!.l2HitRate)).toBeLessThan(0.005);
    expect(by['swizzled-block-first']!.relativeThroughput!).toBeGreaterThan(0.99);
    expect(by['naive-block-first']!.l2HitRate).toBeLessThan(by['swizzled-head-first']!.l2HitRate - 0.05);
  });

  it('naive head-first re-fetches each head on every XCD: the LLC serves what other XCDs fetched', () => {
    const s = shape(32768, 1, 16);
    const nhf = simulateAttention(MI300X, s, 'naive-head-first');
    const shf = simulateAttention(MI300X, s, 'swizzled-head-first');
    expect(nhf.llcHitRate!).toBeGreaterThan(0.5);
    expect(nhf.hbmReadBytes).toBeLessThan(shf.hbmReadBytes * 1.5);
    expect(nhf.l2HitRate).toBeLessThan(shf.l2HitRate);
  });

  it('samples partitions only when no head is shared across them', () => {
    const k = attentionKernel(shape(8192, 1, 64));
    expect(planSimulation(MI300X, k, 'swizzled-head-first').partitions).toBeLessThan(8);
    expect(planSimulation(MI300X, k, 'naive-head-first').partitions).toBe(8);
    expect(planSimulation(H100, k, 'swizzled-head-first').partitions).toBe(8);
  });

  it('runs on MI350 and on H100 (one shared L2: greedy dispatch keeps naive head-first together)', () => {
    for (const b of [MI350, H100]) {
      for (const r of compareMappings(b, shape(8192, 1, 32))) {
        expect(r.l2HitRate).toBeGreaterThan(0);
        expect(r.l2HitRate).toBeLessThanOrEqual(1);
        expect(r.timeMs).toBeGreaterThan(0);
      }
    }
    expect(compareMappings(H100, shape(8192, 1, 32)).find((r) => r.llcHitRate !== undefined)).toBeUndefined();
    const nhf = simulateAttention(H100, shape(32768, 1, 32), 'naive-head-first');
    const shf = simulateAttention(H100, shape(32768, 1, 32), 'swizzled-head-first');
    expect(nhf.l2HitRate).toBeGreaterThanOrEqual(shf.l2HitRate);
  });

  it('simulates the backward pass', () => {
    const s: AttentionShape = { ...shape(8192, 1, 16), pass: 'bwd' };
    const bwd = simulateAttention(MI300X, s, 'swizzled-head-first');
    const fwd = simulateAttention(MI300X, shape(8192, 1, 16), 'swizzled-head-first');
    expect(bwd.timeMs).toBeGreaterThan(2 * fwd.timeMs);
    expect(bwd.l2HitRate).toBeGreaterThan(0.5);
  });

  it('rejects bad shapes with one-line input errors', () => {
    expect(() => checkShape(shape(8192, 1, 12, 8))).toThrow(FleetError);
    expect(() => checkShape(shape(8192, 1, 12, 8))).toThrow(/`kvHeads`: 8 does not divide `heads` 12/);
    expect(() => checkShape(shape(0, 1, 8))).toThrow(expect.objectContaining({ field: 'seq', message: "`seq`: '0' is not an integer in 1..4194304" }));
    expect(() => checkShape({ ...shape(8192, 1, 8), pass: 'sideways' as 'fwd' })).toThrow(/`pass`/);
  });
});
