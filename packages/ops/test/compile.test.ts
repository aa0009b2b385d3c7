import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, checkTaskGraph, loadModel, simulateGraph, l2HitRate, zeroCounters, addCounters } from '@fleet/core';
import { backendCompileOptions, compilePolicy, BUILTIN_POLICIES, mpkRocmKSplits, TILE_M, type Policy } from '../src/index.js';
import { mi350Backend, singleLinearGraph } from './helpers.js';

const policy = (name: string): Policy => BUILTIN_POLICIES.find((p) => p.name === name)!;
// The policies MI350 runs (clusterfusion needs thread-block clusters).
const MI350_POLICIES = BUILTIN_POLICIES.filter((p) => p.name !== 'clusterfusion');
const backend = mi350Backend();
const qwen = loadModel('qwen3-8b');

describe('policy compilation', () => {
  it('splits every GEMM of a layer into one chiplet-task per XCD under FLEET', () => {
    const g = compilePolicy(buildDecodeGraph(qwen, { batch: 1, contextLen: 64 }), policy('fleet-mtile'), backend, { layers: [0] });
    const linear = g.tasks.filter((t) => t.layer === 0 && t.kind === 'linear');
    expect(linear.every((t) => t.level === 'chiplet')).toBe(true);
    // qkv, o, gate_up (SiLU fused), down: 4 GEMMs × 8 XCDs
    expect(linear.length).toBe(32);
    expect(new Set(linear.map((t) => t.partition))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));
  });

  it('reads each weight byte of a layer exactly once at batch ≤ 16, for every policy', () => {
    const graph = buildDecodeGraph(qwen, { batch: 1, contextLen: 64 });
    for (const p of MI350_POLICIES) {
      const g = compilePolicy(graph, p, backend, { layers: [0] });
      const linearWeights = ['L0.w_qkv', 'L0.w_o', 'L0.w_gate_up', 'L0.w_down'];
      const weightIds = new Set(g.buffers.filter((b) => linearWeights.includes(b.name)).map((b) => b.id));
      let bytes = 0;
      for (const t of g.tasks) for (const tile of t.tiles) for (const r of tile.reads) if (weightIds.has(r.buffer)) bytes += r.bytes * (r.rows ?? 1);
      expect(bytes, p.name).toBe((6144 + 4096 + 24576) * 4096 * 2 + 4096 * 12288 * 2);
    }
  });

  it('produces graphs that pass the static deadlock checks', () => {
    const graph = buildDecodeGraph(qwen, { batch: 8, contextLen: 100 });
    for (const p of MI350_POLICIES) expect(() => checkTaskGraph(compilePolicy(graph, p, backend, { layers: [0, 1] }), 8)).not.toThrow();
  });

  it('orders chiplet-task tiles M-major under fleet-mtile: consecutive tiles share weight columns', () => {
    const g = compilePolicy(singleLinearGraph(64, 4096, 4096), policy('fleet-mtile'), backend, { layers: [0] });
    const tiles = g.tasks[0]!.tiles;
    const mt = 64 / TILE_M;
    for (let i = 0; i < mt; i++) expect(tiles[i]!.reads[0]!.offset).toBe(tiles[0]!.reads[0]!.offset);
    expect(tiles[mt]!.reads[0]!.offset).not.toBe(tiles[0]!.reads[0]!.offset);
  });

  it('rejects layers outside the model', () => {
    expect(() => compilePolicy(buildDecodeGraph(qwen, { batch: 1, contextLen: 0 }), policy('mirage'), backend, { layers: [36] })).toThrow(/out of range/);
  });
});

describe('cooperative tiling, isolated GEMM (analytic oracle)', () => {
  // With R = min(workers, m_tiles) workers sharing each weight tile, the weight hit rate is
  // (R−1)/R. Per 16×64 tile over K = 4096 a worker reads W = 512 KiB of weights and
  // X = 128 KiB of activation rows; activations are re-read by every tile and hit. So the
  // L2 hit rate is ((R−1)/R·W + X)/(W + X): 0.8 for M-tile (R = 4), 0.2 for M-split (R = 1),
  // less the first touch of X in each XCD (≈0.79 and 0.19). Tiles are resolved whole (all
  // of K at once), so an XCD's live weight set is ~4 MiB rather than the ~1 MiB of K-chunk
  // streaming, and a few shared tiles are evicted before their last reader: hence ±0.05.
  const run = (name: string) => {
    const g = compilePolicy(singleLinearGraph(64, 8192, 4096), policy(name), backend, { layers: [0] });
    const r = simulateGraph(backend, g, { persistent: { workersPerPartition: 31, chipletAware: true, schedulers: 8, twoLevelCounting: true } });
    const c = zeroCounters();
    for (const b of r.counters) addCounters(c, b);
    return c;
  };

  it('fleet-mtile reaches the (R−1)/R weight hit rate at batch 64 (R = 4)', () => {
    const c = run('fleet-mtile');
    const weightBytes = 8192 * 4096 * 2;
    // HBM reads the weights about once; every further read of a weight tile hits L2.
    expect(c.hbmReadBytes).toBeGreaterThan(0.95 * weightBytes);
    expect(c.hbmReadBytes).toBeLessThan(1.1 * weightBytes);
    expect(Math.abs(l2HitRate(c) - 0.79)).toBeLessThan(0.05);
  });

  it('fleet-msplit shares no weight tile inside an XCD (only activation rows hit)', () => {
    const c = run('fleet-msplit');
    expect(Math.abs(l2HitRate(c) - 0.19)).toBeLessThan(0.05);
    expect(c.hbmReadBytes).toBeGreaterThan(0.95 * 8192 * 4096 * 2);
  });
});

describe('library decode attention', () => {
  // The MI350's own library, with a decode kernel that has a fixed time outside its KV loop.
  const withFixed = (persistentWorkgroups?: number) => ({
    ...backend.kernelLibrary!,
    decodeAttention: (s: Parameters<NonNullable<typeof backend.kernelLibrary>['decodeAttention']>[0]) => ({
      ...backend.kernelLibrary!.decodeAttention(s),
      splits: 1,
      tileFixedNs: 1000,
      ...(persistentWorkgroups ? { persistentWorkgroups } : {}),
    }),
  });
  const fixedOf = (persistentWorkgroups?: number) => {
    const g = compilePolicy(buildDecodeGraph(qwen, { batch: 8, contextLen: 256 }), policy('kernel-per-op-graph'), backend, {
      layers: [0],
      library: withFixed(persistentWorkgroups),
    });
    const attn = g.tasks.filter((t) => t.layer === 0 && t.kind === 'attention');
    return attn.map((t) => t.tiles.reduce((a, tile) => a + (tile.fixedNs ?? 0), 0));
  };

  it('pays the fixed time once per workgroup: per pair, or spread over the pairs a persistent workgroup loops over', () => {
    // batch 8 × 8 KV heads = 64 (request, head) pairs
    expect(fixedOf()).toEqual(Array(64).fill(1000));
    expect(fixedOf(16)).toEqual(Array(64).fill(250));
    expect(fixedOf(132)).toEqual(Array(64).fill(1000)); // more workgroups than pairs: one each
  });
});

describe('chiplet-task K-split (fleet-ksplit)', () => {
  it("splits a tile's K loop over the idle workers in whole K-chunks, partial sums added in an L2 workspace, the output stored once", () => {
    // 4096 × 4096 at batch 1: 64 column tiles, 8 per XCD, 31 workers → 3 K-parts of ~1365 (whole 256-chunks).
    const graph = singleLinearGraph(1, 4096, 4096);
    const split = compilePolicy(graph, policy('fleet-ksplit'), backend, { layers: [0] });
    const whole = compilePolicy(graph, policy('fleet-mtile'), backend, { layers: [0] });
    const x0 = (g: typeof split) => g.tasks.find((t) => t.partition === 0 && t.kind === 'linear')!;
    expect(x0(whole).tiles).toHaveLength(8);
    expect(x0(split).tiles).toHaveLength(24);
    const ws = split.buffers.find((b) => b.name.endsWith('splitk_partials'))!.id;
    const w = split.buffers.find((b) => b.name === 'L0.w')?.id ?? x0(split).tiles[0]!.reads[0]!.buffer;
    // the three parts of the first tile cover K once, in 256-element chunks
    const weightBytes = x0(split)
      .tiles.slice(0, 3)
      .map((t) => t.reads.filter((r) => r.buffer === w).reduce((a, r) => a + r.bytes * (r.rows ?? 1), 0));
    expect(weightBytes.reduce((a, b) => a + b, 0)).toBe(64 * 4096 * 2);
    for (const b of weightBytes) expect(b % (64 * 256 * 2)).toBe(0);
    // every part adds into the workspace; only the last stores the output
    const parts = x0(split).tiles.slice(0, 3);
    expect(parts.every((t) => t.writes.some((r) => r.buffer === ws))).toBe(true);
    expect(parts.map((t) => t.writes.length)).toEqual([1, 1, 2]);
  });

  it('leaves a partition with as many tiles as workers unsplit (fleet-ksplit = fleet-mtile at batch 64)', () => {
    const graph = singleLinearGraph(64, 4096, 4096);
    const split = compilePolicy(graph, policy('fleet-ksplit'), backend, { layers: [0] });
    const whole = compilePolicy(graph, policy('fleet-mtile'), backend, { layers: [0] });
    expect(split.tasks.map((t) => t.tiles.length)).toEqual(whole.tasks.map((t) => t.tiles.length));
  });
});

describe('wave-level K-split (fleet-wave-ksplit)', () => {
  it("runs fleet-mtile's tiles with the worker's SIMDs as independent contexts, traffic unchanged", () => {
    const graph = singleLinearGraph(32, 4096, 4096);
    const wave = compilePolicy(graph, policy('fleet-wave-ksplit'), backend, { layers: [0] });
    const whole = compilePolicy(graph, policy('fleet-mtile'), backend, { layers: [0] });
    const linear = (g: typeof wave) => g.tasks.filter((t) => t.kind === 'linear');
    const persistent = backend.costModel.pipelines!.persistent;
    const simds = backend.topology.computeUnit.simdsPerUnit;
    for (const t of linear(wave)) for (const tile of t.tiles) expect(tile.pipeline).toEqual({ ...persistent, overlap: persistent.overlap * simds });
    const strip = (g: typeof wave) => linear(g).map((t) => t.tiles.map(({ pipeline: _p, ...rest }) => rest));
    expect(strip(wave)).toEqual(strip(whole));
  });
});

describe("Mirage MPK's linear grid in its ROCm port (CDNA backends)", () => {
  it("splits Qwen3-8B's linears as FLEET's ROCm demo: 96, 256, 192 and 256 CU-tasks, the residual linears 64 columns × 4 K-parts", () => {
    const graph = buildDecodeGraph(qwen, { batch: 1, contextLen: 64 });
    const g = compilePolicy(graph, policy('mirage'), backend, { ...backendCompileOptions(backend), layers: [0] });
    const count = (op: string) => g.tasks.filter((t) => t.opId === `L0.${op}`).length;
    expect([count('qkv_proj'), count('o_proj'), count('gate_up_proj'), count('down_proj')]).toEqual([96, 256, 192, 256]);
    // Every K-part of o_proj streams a quarter of K; the last one of each block also stores the output.
    const o = g.tasks.filter((t) => t.opId === 'L0.o_proj');
    for (const t of o) expect(t.tiles[0]!.flops).toBe(2 * TILE_M * 64 * 1024);
    expect(o.filter((t) => t.tiles[0]!.writes.length === 2)).toHaveLength(64);
    // Without the backend's grid (MPK's CUDA demo): unchanged.
    const cuda = compilePolicy(graph, policy('mirage'), backend, { layers: [0] });
    expect(cuda.tasks.filter((t) => t.opId === 'L0.o_proj')).toHaveLength(128);
  });

  it("picks compute_dynamic_splitk's K split: the divisor of the K-chunks nearest ⌈workers / blocks⌉, the larger on a tie", () => {
    expect(mpkRocmKSplits(64, 4096, 248)).toBe(4); // MI350: 8 × 31 workers
    expect(mpkRocmKSplits(64, 12288, 248)).toBe(4);
    expect(mpkRocmKSplits(64, 12288, 296)).toBe(6); // MI300X: 8 × 37 workers, 48 chunks: 4 and 6 tie at ⌈296/64⌉ = 5
    expect(mpkRocmKSplits(64, 4096, 296)).toBe(4); // 16 chunks: 4 is the nearest divisor
    expect(mpkRocmKSplits(300, 4096, 248)).toBe(1);
    expect(mpkRocmKSplits(1, 128, 248)).toBe(1); // under one K-chunk: nothing to split
  });
});
