import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadBackend, loadModel, simulateGraph } from '@fleet/core';
import { backendCompileOptions, CLUSTERFUSION, compilePolicy } from '@fleet/ops';
import h100 from '@fleet/backend-h100';

const backend = loadBackend(h100, 'h100');
const model = loadModel('llama2-7b');

describe('ClusterFusion’s fused kernel on the H100 backend', () => {
  it('streams through the TMA pipeline: 128 CTAs, one per SM, 32 KB in flight each', () => {
    const g = buildDecodeGraph(model, { batch: 1, contextLen: 1023 });
    const tg = compilePolicy(g, CLUSTERFUSION, backend, { ...backendCompileOptions(backend), layers: [0] });
    const fused = tg.kernels.find((k) => k.name.endsWith('cluster_attention'))!;
    expect(fused.tasks.length).toBe(128);
    const tiles = tg.tasks[fused.tasks[0]!]!.tiles;
    expect(tiles.every((t) => t.pipeline?.inFlightBytes === 2 * 16384)).toBe(true);
  });

  it('a KV group’s request shares read its weights from HBM once: streamed, their lines meet in the L2', () => {
    const g = buildDecodeGraph(model, { batch: 16, contextLen: 63 });
    const tg = compilePolicy(g, CLUSTERFUSION, backend, { ...backendCompileOptions(backend), layers: [0] });
    const fused = tg.kernels.find((k) => k.name.endsWith('cluster_attention'))!;
    // two clusters per KV group at 16 requests (two CTAs per SM)
    expect(fused.tasks.length).toBe(2 * 32 * 4);
    const layer0 = simulateGraph(backend, tg, { launchMode: 'graph' }).counters[1]!.hbmReadBytes;
    const weights = (3 + 1) * 4096 * 4096 * 2 + 3 * 4096 * 11008 * 2;
    const kv = 16 * 2 * 64 * 4096 * 2;
    // a second read of W_qkv by the other share would add a quarter
    expect(layer0).toBeLessThan(1.05 * (weights + kv));
  });
});
