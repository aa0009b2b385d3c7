import { loadBackend, type Backend } from '@fleet/core';
import mi300x from '@fleet/backend-mi300x';
import { describe, expect, it } from 'vitest';
import { attentionKernel, stepBytes, type AttentionShape } from '../src/decomposition.js';
import { attentionTaskGraph } from '../src/graph.js';
import { simulateAttention, planSimulation } from '../src/study.js';

const MI300X: Backend = loadBackend(mi300x, 'test');
const shape = (seq: number, batch: number, heads: number): AttentionShape => ({ seq, batch, heads, kvHeads: heads, headDim: 128, pass: 'fwd' });

describe('attention on core (task graph + simulateGraph)', () => {
  it('builds one task per simulated workgroup, on launch id mod 8, one stepped tile per phase', () => {
    const k = attentionKernel(shape(8192, 1, 16));
    const plan = { mapping: 'naive-head-first' as const, ...planSimulation(MI300X, k, 'naive-head-first') };
    const g = attentionTaskGraph(k, plan, 8, true);
    expect(g.style).toBe('kernel-per-op');
    expect(g.tasks.length).toBe(g.kernels[0]!.tasks.length);
    g.tasks.forEach((t) => {
      const wid = Number(t.name.slice(2));
      expect(t.partition).toBe(wid % 8);
      expect(t.tiles.length).toBe(1);
      expect(t.tiles[0]!.steps! * t.tiles[0]!.trafficScale!).toBeCloseTo(k.phases[0]!.steps, 6);
    });
  });

  it("a forward step keeps K's or V's tile in flight, not both: AITER loads V only after QKᵀ", () => {
    const k = attentionKernel(shape(8192, 1, 16));
    const plan = { mapping: 'swizzled-head-first' as const, ...planSimulation(MI300X, k, 'swizzled-head-first') };
    const tile = attentionTaskGraph(k, plan, 8, true).tasks[0]!.tiles[0]!;
    expect(k.phases[0]!.serialLoads).toBe(2);
    expect(tile.pipeline!.inFlightBytes).toBe(stepBytes(k.phases[0]!) / 2);
  });

  it('L2 reuse is lost once the K/V live on an XCD at once exceed its L2; swizzled head-first keeps it', () => {
    // 8 heads × 8K: one head per XCD, its 4 MiB K/V fits; 1024 heads: 76 heads live per XCD.
    const fits = simulateAttention(MI300X, shape(8192, 1, 8), 'naive-block-first');
    const spills = simulateAttention(MI300X, shape(8192, 1, 1024), 'naive-block-first');
    const swizzled = simulateAttention(MI300X, shape(8192, 1, 1024), 'swizzled-head-first');
    expect(fits.l2HitRate).toBeGreaterThan(0.9);
    expect(spills.l2HitRate).toBeLessThan(0.05);
    expect(swizzled.l2HitRate).toBeGreaterThan(0.9);
    expect(spills.timeMs).toBeGreaterThan(1.2 * swizzled.timeMs);
  });
});
