import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadModel, type Backend } from '@fleet/core';
import { compilePolicy, backendCompileOptions, BUILTIN_POLICIES, type Policy } from '../src/index.js';
import { mi350Backend } from './helpers.js';

const policy = (name: string): Policy => BUILTIN_POLICIES.find((p) => p.name === name)!;
const qwen = loadModel('qwen3-8b');

/** MI350 with a framework whose norms stream 1 KiB a workgroup and spend 1 µs outside it. */
function withNormKernel(): Backend {
  const b = mi350Backend();
  return { ...b, tuning: { ...b.tuning, kernels: { unfused: true, rowKernels: { rmsnorm: { inFlightBytes: 1024, residentTiles: 16, fixedNs: 1000 } } } } };
}

const normTiles = (backend: Backend, batch: number, name: string) => {
  const g = compilePolicy(buildDecodeGraph(qwen, { batch, contextLen: 64 }), policy(name), backend, { ...backendCompileOptions(backend), layers: [0] });
  return g.tasks.filter((t) => t.kind === 'rmsnorm' && t.layer === 0).flatMap((t) => t.tiles);
};

describe('framework row kernels', () => {
  it('give a kernel-per-op norm its workgroup pipeline and fixed time; one workgroup per unit at batch 1', () => {
    const tiles = normTiles(withNormKernel(), 1, 'kernel-per-op-graph');
    expect(tiles.length).toBeGreaterThan(0);
    for (const t of tiles) {
      expect(t.pipeline).toEqual({ inFlightBytes: 1024, overlap: 1, residentTiles: 1 });
      expect(t.fixedNs).toBe(1000);
    }
  });

  it('let workgroups beyond one per unit share it, up to the occupancy', () => {
    const b = withNormKernel();
    const units = b.topology.partitions.computeUnits.reduce((a, c) => a + c, 0);
    const tiles = normTiles(b, units * 4, 'kernel-per-op-graph');
    for (const t of tiles) expect(t.pipeline).toEqual({ inFlightBytes: 4 * 1024, overlap: 1, residentTiles: 4 });
  });

  it('cut an elementwise kernel into workgroups of a fixed number of elements, whatever the rows', () => {
    const b = mi350Backend();
    const withElementwise = (elementsPerTile?: number): Backend => ({
      ...b,
      tuning: { ...b.tuning, kernels: { unfused: true, rowKernels: { residual: { residentTiles: 16, ...(elementsPerTile ? { elementsPerTile } : {}) } } } },
    });
    const residual = (backend: Backend, batch: number) => {
      const g = compilePolicy(buildDecodeGraph(qwen, { batch, contextLen: 64 }), policy('kernel-per-op-graph'), backend, {
        ...backendCompileOptions(backend),
        layers: [0],
      });
      return g.tasks.filter((t) => t.kind === 'residual' && t.layer === 0);
    };
    const written = (tasks: ReturnType<typeof residual>) => tasks.flatMap((t) => t.tiles).reduce((a, t) => a + t.writes.reduce((x, w) => x + w.bytes, 0), 0);
    for (const batch of [1, 64]) {
      const rows = residual(withElementwise(), batch);
      const cut = residual(withElementwise(1024), batch);
      // two residual adds a layer, each batch × hidden elements over 1024 a workgroup
      expect(cut.length).toBe(2 * Math.ceil((batch * qwen.hiddenSize) / 1024));
      expect(written(cut)).toBe(written(rows));
      for (const t of cut) for (const w of t.tiles[0]!.writes) expect(w.bytes).toBeLessThanOrEqual(1024 * 2);
    }
  });

  it("split RoPE run once per tensor: five kernels move q's elements, five k's, each with its own grid", () => {
    const b = mi350Backend();
    const backend: Backend = {
      ...b,
      tuning: {
        ...b.tuning,
        kernels: { unfused: true, perOp: { rope: 10 }, rowKernels: { rope: { residentTiles: 16, elementsPerTile: 512 } } },
      },
    };
    for (const batch of [1, 64]) {
      const g = compilePolicy(buildDecodeGraph(qwen, { batch, contextLen: 64 }), policy('kernel-per-op-graph'), backend, {
        ...backendCompileOptions(backend),
        layers: [0],
      });
      const rope = g.kernels.filter((k) => k.layer === 0 && k.name.startsWith('L0.rope#'));
      expect(rope.map((k) => k.name)).toEqual(Array.from({ length: 10 }, (_, i) => `L0.rope#${i + 1}`));
      const written = rope.map(
        (k) => k.tasks.reduce((a, t) => a + g.tasks[t]!.tiles.reduce((x, tile) => x + tile.writes.reduce((y, w) => y + w.bytes, 0), 0), 0) / 2,
      );
      const q = batch * qwen.numHeads * qwen.headDim;
      const k = batch * qwen.numKvHeads * qwen.headDim;
      expect(written).toEqual([q, q, q, q, q, k, k, k, k, k]);
      // Each kernel's grid is its own tensor's elements over a workgroup's (or its rows, where fewer).
      expect(rope[0]!.tasks.length).toBeGreaterThan(rope[9]!.tasks.length);
    }
  });

  it("add a strided kernel's index arithmetic per element it writes, so an SM's share grows with the batch", () => {
    const b = mi350Backend();
    const withIndex = (vectorFlopsPerElement?: number): Backend => ({
      ...b,
      tuning: {
        ...b.tuning,
        kernels: {
          unfused: true,
          rowKernels: { rope: { residentTiles: 16, elementsPerTile: 512, ...(vectorFlopsPerElement ? { vectorFlopsPerElement } : {}) } },
        },
      },
    });
    const rope = (backend: Backend, batch: number) =>
      compilePolicy(buildDecodeGraph(qwen, { batch, contextLen: 64 }), policy('kernel-per-op-graph'), backend, {
        ...backendCompileOptions(backend),
        layers: [0],
      })
        .tasks.filter((t) => t.kind === 'rope' && t.layer === 0)
        .flatMap((t) => t.tiles);
    for (const batch of [1, 64]) {
      const plain = rope(withIndex(), batch);
      const indexed = rope(withIndex(10), batch);
      expect(indexed.length).toBe(plain.length);
      for (const [i, t] of indexed.entries()) {
        const elements = t.writes.reduce((a, w) => a + w.bytes, 0) / 2;
        expect((t.vectorFlops ?? 0) - (plain[i]!.vectorFlops ?? 0)).toBe(10 * elements);
      }
    }
  });

  it('leave persistent megakernels and backends without them alone', () => {
    for (const t of normTiles(withNormKernel(), 1, 'mirage')) expect(t.fixedNs ?? 0).toBe(0);
    for (const t of normTiles(mi350Backend(), 1, 'kernel-per-op-graph')) expect(t.pipeline).toBeUndefined();
  });
});
