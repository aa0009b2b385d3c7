import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadModel, simulateGraph } from '@fleet/core';
import {
  attentionModuleLatency,
  CLUSTERFUSION,
  clusterFusionOptions,
  compilePolicy,
  backendCompileOptions,
  predictDecode,
  residentClusters,
} from '../src/index.js';
import { hopperLike } from './hopper-like.js';

const backend = hopperLike();
const model = loadModel('llama2-7b');
const g = buildDecodeGraph(model, { batch: 1, contextLen: 4095 });

describe('ClusterFusion reads its cluster size, dataflow and DSMEM from its schedule (the user’s overrides)', () => {
  it('cluster size: an override replaces the backend’s, and the fused kernel has that many CTAs per cluster', () => {
    const opts = { ...backendCompileOptions(backend), layers: [0] };
    const ctas = (clusterSize?: number) => {
      const tg = compilePolicy(g, CLUSTERFUSION, backend, opts, clusterSize ? { clusterSize } : undefined);
      const fused = tg.kernels.find((k) => k.name.endsWith('cluster_attention'))!;
      return new Set(fused.tasks.map((id) => tg.tasks[id]!.name.replace(/.*\.cta/, ''))).size;
    };
    expect(ctas()).toBe(4);
    expect(ctas(2)).toBe(2);
    expect(ctas(8)).toBe(8);
    expect(() => compilePolicy(g, CLUSTERFUSION, backend, opts, { clusterSize: 3 })).toThrow(/`clusterSize`/);
  });

  it('dataflow and DSMEM: the options the compile receives', () => {
    const o = clusterFusionOptions(
      { ...CLUSTERFUSION.schedule, clusterDataflow: 'split-head', dsmem: false },
      { ...backendCompileOptions(backend), layers: [0] },
    );
    expect(o.dataflow).toBe('split-head');
    expect(o.offChip).toBe(true);
    expect(clusterFusionOptions(CLUSTERFUSION.schedule, { ...backendCompileOptions(backend), layers: [0] }).offChip).toBe(false);
  });

  it('DSMEM off routes the collectives through global memory: a slower decode step, the same bytes of weights', () => {
    const at = (dsmem?: boolean) =>
      predictDecode(backend, model, {
        policy: 'clusterfusion',
        batch: 1,
        prompt: 4095,
        decode: 1,
        positions: 1,
        layers: 2,
        overrides: dsmem === undefined ? undefined : { dsmem },
      });
    const on = at();
    const off = at(false);
    expect(off.tpotMs).toBeGreaterThan(on.tpotMs);
    expect(at(true).tpotMs).toBe(on.tpotMs);
  });
});

describe('cluster kernel occupancy', () => {
  it('two CTAs per SM double the clusters that run side by side, and the fused kernel runs them at once', () => {
    const one = residentClusters(backend.topology, { layers: [0] }, 4);
    const two = residentClusters(backend.topology, { layers: [0], ctasPerUnit: 2 }, 4);
    expect(one).toBe(32);
    expect(two).toBe(66);
    const tuned = { ...backend, tuning: { ...backend.tuning, cluster: { size: 4, ctasPerUnit: 2 } } };
    const big = loadModel('llama2-7b');
    const g64 = buildDecodeGraph({ ...big, name: 'h64', numHeads: 64, numKvHeads: 64, hiddenSize: 8192 }, { batch: 1, contextLen: 4095 });
    const fusedUs = (b: typeof backend) => {
      const tg = compilePolicy(g64, CLUSTERFUSION, b, { ...backendCompileOptions(b), layers: [0] });
      const fused = tg.kernels.find((k) => k.name.endsWith('cluster_attention'))!;
      let start = 0;
      let end = 0;
      simulateGraph(b, tg, {
        launchMode: 'graph',
        observers: [
          (es) => {
            for (const e of es) {
              if (e.type === 'launch' && e.kernel === fused.id) start = e.t;
              if (e.type === 'kernel-end' && e.kernel === fused.id) end = e.t;
            }
          },
        ],
      });
      return { us: (end - start) / 1000, clusters: fused.tasks.length / 4, occupancy: fused.workgroupsPerUnit ?? 1 };
    };
    const a = fusedUs(backend);
    const b = fusedUs(tuned);
    // 64 heads: 32 clusters take two units each at one CTA per SM; 64 run at once at two.
    expect(a.clusters).toBe(32);
    expect(b.clusters).toBe(64);
    expect(b.occupancy).toBe(2);
    expect(b.us).toBeLessThan(a.us);
  });
});

describe('attention module latency', () => {
  it('the fused kernel against the same ops as kernel-per-op-graph kernels; a persistent policy has no module kernels', () => {
    const fused = attentionModuleLatency(backend, model, 'clusterfusion', { batch: 1, context: 4096 });
    const base = attentionModuleLatency(backend, model, 'kernel-per-op-graph', { batch: 1, context: 4096 });
    expect(fused.kernels).toBe(1);
    expect(base.kernels).toBeGreaterThan(1);
    expect(fused.moduleUs).toBeGreaterThan(0);
    expect(base.moduleUs).toBeGreaterThan(0);
    expect(() => attentionModuleLatency(backend, model, 'mirage', { batch: 1, context: 4096 })).toThrow(/persistent kernel/);
    expect(() => attentionModuleLatency(backend, model, 'clusterfusion', { batch: 0, context: 4096 })).toThrow(/`batch`/);
  });
});

describe('the cluster kernel’s stream (the backend’s cluster pipeline)', () => {
  const pipeline = { inFlightBytes: 32768, overlap: 2 };
  const tuned = { ...backend, tuning: { ...backend.tuning, cluster: { size: 4, ctasPerUnit: 2, pipeline } } };
  const fusedTasks = (b: typeof backend, batch: number, contextLen = 4095) => {
    const gb = buildDecodeGraph(model, { batch, contextLen });
    const tg = compilePolicy(gb, CLUSTERFUSION, b, { ...backendCompileOptions(b), layers: [0] });
    const fused = tg.kernels.find((k) => k.name.endsWith('cluster_attention'))!;
    return { tg, fused, tasks: fused.tasks.map((id) => tg.tasks[id]!) };
  };

  it('every tile of a CTA streams under the pipeline, its weights in windows of the bytes in flight', () => {
    const { tasks } = fusedTasks(tuned, 1);
    const tiles = tasks[0]!.tiles;
    expect(tiles.every((t) => t.pipeline === pipeline)).toBe(true);
    const qkv = tiles[0]!;
    const bytes = qkv.reads.reduce((s, r) => s + r.bytes * (r.rows ?? 1), 0);
    expect(qkv.steps).toBe(Math.ceil(bytes / pipeline.inFlightBytes));
    // attention over this CTA's quarter of the context (its K and V): one tile, streamed in KV chunks
    const quarter = (4096 / 4) * 128 * 2;
    const attention = tiles.filter((t) => t.reads.length === 2 && t.reads.every((r) => r.bytes === quarter));
    expect(attention.length).toBe(1);
    expect(attention[0]!.steps).toBeGreaterThan(1);
    // without a backend pipeline the tiles keep the kernel pipeline
    expect(fusedTasks(backend, 1).tasks[0]!.tiles.every((t) => t.pipeline === undefined)).toBe(true);
  });
});
