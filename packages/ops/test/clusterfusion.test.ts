import { describe, expect, it } from 'vitest';
import {
  buildDecodeGraph,
  gatherTrafficBytes,
  loadModel,
  reduceTrafficBytes,
  simulateGraph,
  type AttentionOp,
  type CollectiveModel,
  type Tile,
} from '@fleet/core';
import { clusterMessages, clusterTrafficBytes, compileClusterFusion, CLUSTERFUSION, KERNEL_PER_OP_GRAPH } from '../src/index.js';
import { mi350Backend } from './helpers.js';
import { hopperLike } from './hopper-like.js';

/** Collective models with latencies easy to check: 1000 ns per round on chip, 5000 off chip. */
const models: CollectiveModel[] = (['reduce', 'gather'] as const).flatMap((k) =>
  [true, false].map((onChip) => ({
    name: `${onChip ? 'cluster' : 'global'}-${k}`,
    onChip,
    latencyNs: (_bytes: number, n: number) => Math.log2(n) * (onChip ? 1000 : 5000),
    trafficBytes: () => 0,
  })),
);

const qwen = loadModel('qwen3-8b');
const llama = loadModel('llama2-7b');
const backend = hopperLike();

function fusedKernel(tg: ReturnType<typeof compileClusterFusion>, layer = 0) {
  const k = tg.kernels.find((x) => x.name === `L${layer}.cluster_attention`)!;
  return { kernel: k, tasks: k.tasks.map((id) => tg.tasks[id]!) };
}

describe('clusterfusion compilation', () => {
  const graph = buildDecodeGraph(qwen, { batch: 1, contextLen: 1000 });

  it('replaces a layer’s QKV projection … output projection kernels with one cluster kernel and keeps the FFN kernels', () => {
    const tg = compileClusterFusion(graph, backend.topology, { layers: [0, 1], collectives: models });
    for (const layer of [0, 1]) {
      const ks = tg.kernels.filter((k) => k.layer === layer);
      const fused = ks.filter((k) => k.name.endsWith('cluster_attention'));
      expect(fused).toHaveLength(1);
      for (const op of ['qkv_proj', 'attention', 'o_proj', 'rope', 'kv_append']) {
        expect(ks.filter((k) => k.opIds.includes(`L${layer}.${op}`))).toEqual(fused);
      }
      expect(ks.some((k) => k.opIds.includes(`L${layer}.gate_up_proj`))).toBe(true);
      expect(ks.some((k) => k.opIds.includes(`L${layer}.down_proj`))).toBe(true);
    }
    // fewer kernels than kernel-per-op-graph, tasks numbered densely
    expect(tg.tasks.every((t, i) => t.id === i)).toBe(true);
    expect(CLUSTERFUSION.schedule.launchMode).toBe(KERNEL_PER_OP_GRAPH.schedule.launchMode);
  });

  it('runs one cluster of N CTAs per KV group, capped by the co-resident clusters', () => {
    const all = fusedKernel(compileClusterFusion(graph, backend.topology, { layers: [0], clusterSize: 4, collectives: models }));
    expect(all.tasks).toHaveLength(8 * 4); // 8 KV groups at batch 1
    const capped = fusedKernel(compileClusterFusion(graph, backend.topology, { layers: [0], clusterSize: 4, collectives: models, maxActiveClusters: () => 3 }));
    expect(capped.tasks).toHaveLength(3 * 4);
    // 8 units over 3 clusters: 3, 3 and 2 units, each unit ending with its output-projection tile
    const oTiles = (ts: Tile[]) => ts.filter((t) => t.writes.some((w) => w.rows === undefined && t.unit === 'matrix' && t.reads[0]?.rows !== undefined)).length;
    expect(capped.tasks.map((t) => oTiles(t.tiles))).toEqual([3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2]);
  });

  it('reads every byte of W_qkv and W_o once per layer, for both dataflows and every cluster size', () => {
    for (const dataflow of ['split-token', 'split-head'] as const) {
      for (const clusterSize of [1, 2, 4, 8, 16]) {
        const tg = compileClusterFusion(graph, backend.topology, { layers: [0], clusterSize, dataflow, collectives: models });
        const { tasks } = fusedKernel(tg);
        const ids = ['L0.w_qkv', 'L0.w_o'].map((n) => tg.buffers.find((b) => b.name === n)!.id);
        const bytes = ids.map((id) =>
          tasks
            .flatMap((t) => t.tiles)
            .flatMap((t) => t.reads)
            .filter((r) => r.buffer === id)
            .reduce((s, r) => s + r.bytes * (r.rows ?? 1), 0),
        );
        expect(bytes, `${dataflow} N=${clusterSize}`).toEqual([6144 * 4096 * 2, 4096 * 4096 * 2]);
      }
    }
  });

  it('one cluster per KV group serves the whole batch: weights read once, activations, attention and collectives per request', () => {
    const one = compileClusterFusion(graph, backend.topology, { layers: [0], clusterSize: 4, collectives: models });
    const B = 8;
    const tg = compileClusterFusion(buildDecodeGraph(qwen, { batch: B, contextLen: 1000 }), backend.topology, {
      layers: [0],
      clusterSize: 4,
      collectives: models,
      requestSplit: 1,
    });
    const { tasks } = fusedKernel(tg);
    expect(tasks).toHaveLength(fusedKernel(one).tasks.length);
    const id = (n: string) => tg.buffers.find((b) => b.name === n)!.id;
    const regions = (buffer: number, rw: 'reads' | 'writes') =>
      tasks
        .flatMap((t) => t.tiles)
        .flatMap((t) => t[rw])
        .filter((r) => r.buffer === buffer);
    const bytes = (buffer: number, rw: 'reads' | 'writes' = 'reads') => regions(buffer, rw).reduce((s, r) => s + r.bytes * (r.rows ?? 1), 0);
    expect([bytes(id('L0.w_qkv')), bytes(id('L0.w_o'))]).toEqual([6144 * 4096 * 2, 4096 * 4096 * 2]);
    expect(bytes(id('L0.k_cache'))).toBe(tg.buffers[id('L0.k_cache')]!.bytes);
    // every QKV tile reads all B input rows; every output tile adds into the same columns of all B output rows
    for (const r of regions(id('x'), 'reads')) expect([r.offset, r.bytes, r.rows, r.strideBytes]).toEqual([0, 4096 * 2, B, 4096 * 2]);
    const o = regions(id('o'), 'writes');
    expect(o.every((r) => r.rows === B && r.strideBytes === 4096 * 2)).toBe(true);
    expect(bytes(id('o'), 'writes')).toBe(8 * B * 4096 * 2); // 8 groups' partial sums per output element
    // B times the flops; one KV append per request and group
    const flops = (g: typeof tg) =>
      fusedKernel(g)
        .tasks.flatMap((t) => t.tiles)
        .filter((t) => !t.reads.some((r) => g.buffers[r.buffer]!.name.endsWith('_cache')))
        .reduce((s, t) => s + t.flops, 0);
    expect(flops(tg)).toBe(B * flops(one));
    expect(regions(id('L0.v_cache'), 'writes')).toHaveLength(B * 8);
    // collective messages grow with the batch, so their latency does not shrink
    const a = buildDecodeGraph(qwen, { batch: B, contextLen: 1000 }).ops.find((x) => x.kind === 'attention') as AttentionOp;
    const a1 = graph.ops.find((x) => x.kind === 'attention') as AttentionOp;
    expect(clusterMessages(a, 4, 'split-token').gather).toBe(B * clusterMessages(a1, 4, 'split-token').gather);
    expect(clusterMessages(a, 4, 'split-head').reduces).toEqual(clusterMessages(a1, 4, 'split-head').reduces.map((x) => B * x));
  });

  it('at batch 8 the fused kernel reads what it reads at batch 1 plus 7 more requests’ KV cache and input rows, not 8× the weights', () => {
    const run = (batch: number) => {
      const g = buildDecodeGraph(qwen, { batch, contextLen: 1000 });
      const att = g.ops.find((x) => x.kind === 'attention') as AttentionOp;
      const { tasks } = fusedKernel(compileClusterFusion(g, backend.topology, { layers: [0], clusterSize: 4, collectives: models, requestSplit: 1 }));
      const read = tasks
        .flatMap((t) => t.tiles)
        .flatMap((t) => t.reads)
        .reduce((s, r) => s + r.bytes * (r.rows ?? 1), 0);
      return { read, kvPerRequest: 2 * att.kvHeads * att.kvLen * att.headDim * 2, qkvTiles: tasks.length };
    };
    const [one, eight] = [run(1), run(8)];
    expect(eight.read - one.read).toBe(7 * (one.kvPerRequest + one.qkvTiles * 4096 * 2));
  });

  it('by default idle clusters share a KV group’s requests: each reads the group’s weights once for its share', () => {
    const B = 8;
    const g = buildDecodeGraph(qwen, { batch: B, contextLen: 1000 });
    // (hopper-like: 132 SMs hold at most 33 clusters of 4, so at most 4 per group)
    for (const [active, split] of [
      [8, 1],
      [16, 2],
      [17, 2],
      [32, 4],
      [1000, 4],
    ] as const) {
      const tg = compileClusterFusion(g, backend.topology, { layers: [0], clusterSize: 4, collectives: models, maxActiveClusters: () => active });
      const { tasks } = fusedKernel(tg);
      expect(tasks, `${active} clusters`).toHaveLength(Math.min(8 * split, active) * 4);
      const id = (n: string) => tg.buffers.find((b) => b.name === n)!.id;
      const tiles = tasks.flatMap((t) => t.tiles);
      const bytes = (buffer: number) =>
        tiles
          .flatMap((t) => t.reads)
          .filter((r) => r.buffer === buffer)
          .reduce((s, r) => s + r.bytes * (r.rows ?? 1), 0);
      expect([bytes(id('L0.w_qkv')), bytes(id('L0.w_o'))]).toEqual([split * 6144 * 4096 * 2, split * 4096 * 4096 * 2]);
      expect(bytes(id('L0.k_cache'))).toBe(tg.buffers[id('L0.k_cache')]!.bytes);
      // each output element gets one partial sum per KV group, whatever the split
      const o = tiles.flatMap((t) => t.writes).filter((r) => r.buffer === id('o'));
      expect(o.reduce((s, r) => s + r.bytes * (r.rows ?? 1), 0)).toBe(8 * B * 4096 * 2);
    }
  });

  it('splits the cached positions over the CTAs of a cluster (SplitToken): every K and V byte read once', () => {
    const tg = compileClusterFusion(graph, backend.topology, { layers: [0], clusterSize: 4, collectives: models });
    const { tasks } = fusedKernel(tg);
    const k = tg.buffers.find((b) => b.name === 'L0.k_cache')!;
    const read = tasks
      .flatMap((t) => t.tiles)
      .flatMap((t) => t.reads)
      .filter((r) => r.buffer === k.id)
      .reduce((s, r) => s + r.bytes * (r.rows ?? 1), 0);
    expect(read).toBe(k.bytes);
  });

  it('prices collective steps with the backend models: gather + three reduces (SplitToken) as fixed-time tiles', () => {
    for (const n of [2, 4, 16]) {
      const { tasks } = fusedKernel(compileClusterFusion(graph, backend.topology, { layers: [0], clusterSize: n, collectives: models }));
      const fixed = tasks[0]!.tiles.map((t) => t.fixedNs ?? 0).filter((x) => x > 0);
      expect(fixed).toEqual([Math.log2(n) * 1000, 3 * Math.log2(n) * 1000]);
    }
    const off = fusedKernel(compileClusterFusion(graph, backend.topology, { layers: [0], clusterSize: 4, collectives: models, offChip: true }));
    expect(off.tasks[0]!.tiles.map((t) => t.fixedNs ?? 0).filter((x) => x > 0)).toEqual([10000, 30000]);
  });

  it('the fused kernel takes longer when its collectives do (DSMEM off), and the graph simulates to completion', () => {
    const time = (offChip: boolean) =>
      simulateGraph(backend, compileClusterFusion(graph, backend.topology, { layers: [0], collectives: models, offChip }), { launchMode: 'graph' }).timeNs;
    const on = time(false);
    const off = time(true);
    // 8 units on 8 clusters: one gather + one reduce tile each; off chip costs 4000 + 12000 ns more per round pair
    expect(off - on).toBeGreaterThan(0.9 * (8000 + 24000));
  });

  it('rejects a cluster size that is not a power of two or exceeds the hardware', () => {
    expect(() => compileClusterFusion(graph, backend.topology, { layers: [0], clusterSize: 3 })).toThrow(/power of two/);
    expect(() => compileClusterFusion(graph, backend.topology, { layers: [0], clusterSize: 32 })).toThrow(/1\.\.16/);
    expect(() => compileClusterFusion(graph, mi350Backend().topology, { layers: [0], clusterSize: 2 })).toThrow(/cluster size/);
    expect(() => compileClusterFusion(graph, backend.topology, { layers: [0], requestSplit: 0 })).toThrow(/requestSplit must be a positive integer/);
  });
});

describe('clusterfusion DSMEM traffic (seeds §3)', () => {
  const att = (model: typeof qwen, ctx: number) =>
    buildDecodeGraph(model, { batch: 1, contextLen: ctx }).ops.find((o) => o.kind === 'attention') as AttentionOp;

  it('SplitToken: Gather of the q/k/v slices + Reduce of the softmax max, sum and the output', () => {
    for (const [model, g] of [
      [llama, 1],
      [qwen, 4],
    ] as const) {
      const a = att(model, 4095);
      for (const n of [2, 4, 8, 16]) {
        const qkvSlice = ((g + 2) * 128 * 2) / n;
        const expected = gatherTrafficBytes(qkvSlice, n) + 2 * reduceTrafficBytes(g * 4, n) + reduceTrafficBytes(g * 128 * 2, n);
        expect(clusterTrafficBytes(a, n, 'split-token')).toBe(expected);
        expect(clusterMessages(a, n, 'split-token').gather).toBe(qkvSlice);
      }
    }
  });

  it('SplitHead: Reduce of the scores over the whole context + Reduce of the output, growing with context', () => {
    const short = att(llama, 1023);
    const long = att(llama, 16383);
    for (const n of [2, 4, 8]) {
      expect(clusterTrafficBytes(long, n, 'split-head')).toBe(reduceTrafficBytes(16384 * 4, n) + reduceTrafficBytes(128 * 2, n));
      expect(clusterTrafficBytes(long, n, 'split-head')).toBeGreaterThan(clusterTrafficBytes(short, n, 'split-head'));
      // at long context SplitHead moves far more than SplitToken
      expect(clusterTrafficBytes(long, n, 'split-head')).toBeGreaterThan(10 * clusterTrafficBytes(long, n, 'split-token'));
    }
  });
});
