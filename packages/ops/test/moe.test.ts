import { describe, expect, it } from 'vitest';
import {
  addCounters,
  buildDecodeGraph,
  l2HitRate,
  loadBackend,
  zeroCounters,
  loadModel,
  parseRouting,
  simulateGraph,
  type AttentionOp,
  type GroupedLinearOp,
  type OpGraph,
  type Region,
} from '@fleet/core';
import mi300x from '@fleet/backend-mi300x';
import h100 from '@fleet/backend-h100';
import {
  compileClusterFusion,
  compilePolicy,
  groupedTileUnits,
  libraryGroupedDrafts,
  mlaClusterMessages,
  mlaClusterTrafficBytes,
  mlaDecodeDrafts,
  BUILTIN_POLICIES,
  predictDecode,
} from '../src/index.js';
import { mi350Backend } from './helpers.js';

const qwen = loadModel('qwen3-30b-a3b');
const dsv2 = loadModel('deepseek-v2-lite');
const policy = (name: string) => BUILTIN_POLICIES.find((p) => p.name === name)!;
const sum = (rs: readonly Region[]) => rs.reduce((a, r) => a + r.bytes * (r.rows ?? 1), 0);

describe('MoE decode', () => {
  const backend = mi350Backend();
  const predict = (batch: number, routing = 'uniform', model = qwen) =>
    predictDecode(backend, model, { policy: 'kernel-per-op-graph', batch, prompt: 255, decode: 1, positions: 1, routing: parseRouting(routing) });

  it('HBM bytes grow with the experts reached: from the active experts at batch 1 toward all of them', { timeout: 60_000 }, () => {
    const r = [1, 8, 64].map((b) => predict(b));
    expect(r[0]!.activeExperts).toBe(8);
    expect(r[1]!.activeExperts!).toBeGreaterThan(r[0]!.activeExperts!);
    expect(r[2]!.activeExperts!).toBeGreaterThan(120);
    expect(r[1]!.hbmReadBytes).toBeGreaterThan(r[0]!.hbmReadBytes * 3);
    expect(r[2]!.hbmReadBytes).toBeGreaterThan(r[1]!.hbmReadBytes * 1.5);
    // at batch 64 nearly every expert is read: the step reads close to the whole model
    expect(r[2]!.hbmReadBytes).toBeGreaterThan(0.9 * 2 * 30.5e9);
    expect(r[2]!.tpotMs).toBeGreaterThan(r[0]!.tpotMs);
  });

  it('skewed routing reaches fewer experts and reads fewer bytes', { timeout: 60_000 }, () => {
    const u = predict(16);
    const z = predict(16, 'zipf:1.5');
    expect(z.activeExperts!).toBeLessThan(u.activeExperts!);
    expect(z.hbmReadBytes).toBeLessThan(u.hbmReadBytes);
  });

  it('is deterministic', { timeout: 60_000 }, () => {
    expect(predict(4)).toEqual(predict(4));
  });

  it('a grouped GEMM reads the weight slices of the experts that received tokens, once each', () => {
    const g = buildDecodeGraph(qwen, { batch: 4, contextLen: 10 });
    const op = g.ops.find((o) => o.id === 'L0.experts_gate_up') as GroupedLinearOp;
    const units = groupedTileUnits(
      op,
      { x: 0, w: 1, y: 2 },
      { tileRows: 64, tileCols: 128, clusterRows: 2, maskedRows: true, weightPolicy: 'default', storePolicy: 'default' },
    );
    const weightBytes = units.flat().reduce((a, t) => a + sum(t.tile.reads.filter((r) => r.buffer === 1)), 0);
    expect(weightBytes).toBe(op.groups.length * op.n * op.k * 2);
    const touched = new Set(units.flat().flatMap((t) => t.tile.reads.filter((r) => r.buffer === 1).map((r) => Math.floor(r.offset / (op.n * op.k * 2)))));
    expect([...touched].sort((a, b) => a - b)).toEqual(op.groups.map((x) => x.group));
    // a persistent grid never has more workgroups than it launches
    const drafts = libraryGroupedDrafts(
      op,
      { x: 0, w: 1, y: 2 },
      { name: 'k', tileRows: 64, tileCols: 128, ctas: 132, clusterRows: 2, pipeline: { inFlightBytes: 1e5, overlap: 4 } },
      { tileRows: 64, tileCols: 128, clusterRows: 2, maskedRows: true, weightPolicy: 'default', storePolicy: 'default' },
    );
    expect(drafts.length).toBeLessThanOrEqual(132);
  });

  it('chiplet GPUs: an expert owned by one XCD keeps its inputs in that L2 (higher hit rate than spreading it)', { timeout: 60_000 }, () => {
    const mi = loadBackend(mi300x, 'mi300x');
    const g = buildDecodeGraph(qwen, { batch: 16, contextLen: 255 });
    const moeOps: OpGraph = {
      ...g,
      ops: g.ops.filter((o) => o.layer === 0 && (o.kind === 'moe-dispatch' || o.kind === 'grouped-linear' || o.id === 'L0.experts_act_mul')),
    };
    const hit = (placement: 'owner' | 'spread') => {
      const tg = compilePolicy(moeOps, policy('fleet-mtile'), mi, { layers: [0] }, { expertPlacement: placement });
      const r = simulateGraph(mi, tg, { persistent: { workersPerPartition: 37, chipletAware: true, schedulers: 8, twoLevelCounting: true } });
      const c = zeroCounters();
      for (const b of r.counters) addCounters(c, b);
      return l2HitRate(c);
    };
    expect(hit('owner')).toBeGreaterThan(hit('spread'));
  });
});

describe('latent attention (MLA)', () => {
  it("FlashMLA-style decode reads each request's latent cache once for all heads, and splits short batches over few parts", () => {
    const g = buildDecodeGraph(dsv2, { batch: 2, contextLen: 4095 });
    const att = g.ops.find((o) => o.id === 'L1.attention') as AttentionOp;
    let ws = 0;
    const { main, combine } = mlaDecodeDrafts(att, { q: 0, cache: 1, out: 2 }, 132, (bytes) => {
      ws = bytes;
      return 3;
    });
    const cacheBytes = main.flatMap((d) => d.tiles).reduce((a, t) => a + sum(t.reads.filter((r) => r.buffer === 1)), 0);
    expect(cacheBytes).toBe(2 * 4096 * (512 + 64) * 2);
    expect(main.length).toBeLessThan(132);
    expect(combine.length).toBe(2);
    expect(ws).toBeGreaterThan(0);
  });

  it('the KV cache per token is the latent plus its rotary key, shared by all heads', () => {
    const g = buildDecodeGraph(dsv2, { batch: 3, contextLen: 99 });
    const cache = g.tensors.find((t) => t.name === 'L1.kv_latent')!;
    expect(cache.shape).toEqual([3, 100, 576]);
  });

  it('ClusterFusion MLA: DSMEM traffic from the seed formulas, one cluster per head reading the whole latent', () => {
    const g = buildDecodeGraph(dsv2, { batch: 1, contextLen: 1023 });
    const att = g.ops.find((o) => o.id === 'L1.attention') as AttentionOp;
    const m = mlaClusterMessages(att, 4);
    expect(m.gather).toBe((2 * 576 * 2) / 4);
    // Gather(size, N) = size·(2^(log2(N/2)+1) − 1)·N over its doubling rounds; Reduce(size, N) = size·log2(N)·N
    const gather = m.gather * (2 ** (Math.log2(4 / 2) + 1) - 1) * 4;
    const reduce = (4 + 4 + 512 * 2) * Math.log2(4) * 4;
    expect(mlaClusterTrafficBytes(att, 4)).toBe(gather + reduce);
    const be = loadBackend(h100, 'h100');
    const tg = compileClusterFusion(g, be.topology, { layers: [1], clusterSize: 4, collectives: be.collectives });
    const fused = tg.kernels.find((k) => k.name === 'L1.cluster_attention')!;
    expect(fused.opIds).toContain('L1.q_absorb');
    const tiles = fused.tasks.flatMap((t) => tg.tasks[t]!.tiles);
    const cacheId = tg.buffers.find((b) => b.name === 'L1.kv_latent')!.id;
    expect(tiles.reduce((a, t) => a + sum(t.reads.filter((r) => r.buffer === cacheId)), 0)).toBe(16 * 1024 * 576 * 2);
    // batch 1: one cluster of 4 CTAs per head
    expect(fused.tasks.length).toBe(16 * 4);
  });

  it('runs under every policy the H100 supports, and ClusterFusion beats the kernel-per-op graph at batch 1', { timeout: 120_000 }, () => {
    const be = loadBackend(h100, 'h100');
    const at = (p: string) => predictDecode(be, dsv2, { policy: p, batch: 1, prompt: 1023, decode: 1, positions: 1 });
    for (const p of ['kernel-per-op', 'kernel-per-op-graph', 'mirage', 'clusterfusion']) expect(at(p).status).toBe('ok');
    expect(at('clusterfusion').tpotMs).toBeLessThan(at('kernel-per-op-graph').tpotMs);
  });
});
