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

  it('leave persistent megakernels and backends without them alone', () => {
    for (const t of normTiles(withNormKernel(), 1, 'mirage')) expect(t.fixedNs ?? 0).toBe(0);
    for (const t of normTiles(mi350Backend(), 1, 'kernel-per-op-graph')) expect(t.pipeline).toBeUndefined();
  });
});
