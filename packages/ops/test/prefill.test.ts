import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, buildMixedGraph, buildPrefillGraph, graphRows, loadBackend, loadModel, parameterCount, type AttentionOp } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import {
  DEFAULT_PREFILL_TILING,
  inMappingOrder,
  KERNEL_PER_OP_GRAPH,
  predictDecode,
  predictMixed,
  predictPrefill,
  prefillAttentionTiles,
} from '../src/index.js';

const qwen = loadModel('qwen3-8b');

describe('prefill graphs', () => {
  it('carry batch × prompt rows through the layers and one row per request into the head', () => {
    const g = buildPrefillGraph(qwen, { batch: 2, promptLen: 300, contextLen: 100 });
    const qkv = g.ops.find((o) => o.id === 'L0.qkv_proj')!;
    const att = g.ops.find((o) => o.id === 'L0.attention') as AttentionOp;
    const head = g.ops.find((o) => o.id === 'lm_head')!;
    expect(qkv.kind === 'linear' && qkv.m).toBe(600);
    expect([att.queryLen, att.kvLen]).toEqual([300, 400]);
    expect(head.kind === 'linear' && head.m).toBe(2);
    // a decode step is the one-token case, unchanged
    const d = buildDecodeGraph(qwen, { batch: 2, contextLen: 399 });
    expect((d.ops.find((o) => o.id === 'L0.attention') as AttentionOp).queryLen).toBeUndefined();
    expect(d.ops.find((o) => o.id === 'L0.qkv_proj')!.kind === 'linear' && (d.ops.find((o) => o.id === 'L0.qkv_proj') as { m: number }).m).toBe(2);
  });
});

describe('causal prefill attention tiles', () => {
  const op = buildPrefillGraph(qwen, { batch: 1, promptLen: 1024 }).ops.find((o) => o.id === 'L0.attention') as AttentionOp;
  const buf = { qkv: 0, k: 1, v: 2, out: 3 };

  it('stream only the KV blocks up to the diagonal: half the square plus the diagonal blocks', () => {
    const tiles = prefillAttentionTiles(op, buf, DEFAULT_PREFILL_TILING);
    const blocks = 1024 / 128;
    expect(tiles).toHaveLength(blocks * op.heads);
    const flops = tiles.reduce((a, t) => a + t.tile.flops, 0);
    const perBlock = 4 * 128 * 128 * op.headDim;
    expect(flops).toBe(op.heads * perBlock * ((blocks * (blocks + 1)) / 2));
  });

  it("hand out one head's query blocks after another, the longest first, in head-major order", () => {
    const tiles = prefillAttentionTiles(op, buf, { ...DEFAULT_PREFILL_TILING, order: 'head-major' });
    const blocks = 1024 / 128;
    expect(tiles.slice(0, blocks).map((t) => t.name)).toEqual(Array.from({ length: blocks }, (_, i) => `${op.id}.q${blocks - 1 - i}r0h0`));
    expect(tiles[blocks]!.name).toBe(`${op.id}.q${blocks - 1}r0h1`);
    expect(new Set(tiles.map((t) => t.name)).size).toBe(tiles.length);
  });

  it('hand out the longest blocks first when the kernel says so', () => {
    const inOrder = prefillAttentionTiles(op, buf, DEFAULT_PREFILL_TILING);
    const longest = prefillAttentionTiles(op, buf, { ...DEFAULT_PREFILL_TILING, order: 'longest-first' });
    expect(inOrder[0]!.tile.steps).toBe(1);
    expect(longest[0]!.tile.steps).toBe(1024 / 128);
  });
});

describe('FlashAttention-3 L2 sections', () => {
  it('keep a section of heads whose K/V fit the budget together, longest blocks first within it', () => {
    const mha = { ...qwen, numKvHeads: 32 };
    const op = buildPrefillGraph(mha, { batch: 4, promptLen: 2048 }).ops.find((o) => o.id === 'L0.attention') as AttentionOp;
    // one head's K and V: 2048 × 128 × 2 B × 2 = 1 MiB, so a 32 MiB budget holds 32 heads
    const tiles = prefillAttentionTiles(op, { qkv: 0, k: 1, v: 2, out: 3 }, { ...DEFAULT_PREFILL_TILING, order: 'l2-sections', l2SectionBytes: 32 * 2 ** 20 });
    expect(tiles.slice(0, 3).map((t) => t.name)).toEqual(['L0.attention.q15r0h0', 'L0.attention.q15r0h1', 'L0.attention.q15r0h2']);
    expect(tiles[32]!.name).toBe('L0.attention.q14r0h0');
    expect(tiles[16 * 32]!.name).toBe('L0.attention.q15r1h0');
  });
});

describe('predictPrefill', () => {
  const backend = loadBackend(h100, 'h100');

  it('chunking a prompt costs time: every chunk reads the weights again', { timeout: 60_000 }, () => {
    const whole = predictPrefill(backend, qwen, { policy: 'kernel-per-op-graph', batch: 1, prompt: 1024, layers: 1 });
    const chunked = predictPrefill(backend, qwen, { policy: 'kernel-per-op-graph', batch: 1, prompt: 1024, chunk: 256, layers: 1 });
    expect(chunked.sampling.chunks).toBe(4);
    expect(chunked.ttftMs).toBeGreaterThan(whole.ttftMs);
    // each of the 4 chunks reads every weight but the embedding table (only its rows are gathered)
    const weights = 2 * (parameterCount(qwen) - qwen.vocabSize * qwen.hiddenSize);
    expect(whole.hbmReadBytes).toBeLessThan(2 * weights);
    expect(chunked.hbmReadBytes).toBeGreaterThan(4 * 0.95 * weights);
  });

  it('megakernels and ClusterFusion have no prefill schedule: unsupported with a reason', () => {
    for (const policy of ['mirage', 'clusterfusion']) {
      const r = predictPrefill(backend, qwen, { policy, batch: 1, prompt: 128, layers: 1 });
      expect(r.status).toBe('unsupported');
      expect(r.reason).toMatch(/decode/);
    }
  });

  it('softmax under wgmma: hiding the vector work behind the matrix pipe makes long prompts faster', { timeout: 60_000 }, () => {
    const lib = backend.kernelLibrary!;
    const serial = {
      ...backend,
      kernelLibrary: {
        ...lib,
        prefillAttention: (s: Parameters<NonNullable<typeof lib.prefillAttention>>[0]) => {
          const k = lib.prefillAttention!(s);
          return { ...k, pipeline: { ...k.pipeline, vectorUnderMatrix: false } };
        },
      },
    };
    const t = (b: typeof backend) => predictPrefill(b, qwen, { policy: 'kernel-per-op-graph', batch: 1, prompt: 4096, layers: 1 }).ttftMs;
    expect(t(serial)).toBeGreaterThan(1.05 * t(backend));
  });

  it("a persistent kernel's CTAs each pay their start once, with the first tile they run", () => {
    const g = buildPrefillGraph(qwen, { batch: 4, promptLen: 1024 });
    const att = g.ops.filter((o) => o.layer === 0 && o.kind === 'attention');
    const def = KERNEL_PER_OP_GRAPH;
    const tg = def.compile({ ...g, ops: att }, backend, def.schedule, { layers: [0], library: backend.kernelLibrary, kernels: backend.tuning.kernels });
    const k = backend.kernelLibrary!.prefillAttention!({ batch: 4, heads: 32, kvHeads: 8, queryLen: 1024, kvLen: 1024, headDim: 128 });
    const fixed = tg.tasks.map((t) => t.tiles[0]!.fixedNs ?? 0);
    expect(fixed.length).toBe(4 * 32 * 8);
    expect(k.persistentCtas).toBe(132);
    expect(fixed.slice(0, 132).every((f) => f === k.tileFixedNs! + k.ctaFixedNs!)).toBe(true);
    expect(fixed.slice(132).every((f) => f === k.tileFixedNs!)).toBe(true);
  });
});

describe('mixed serving steps', () => {
  const backend = loadBackend(h100, 'h100');

  it('stack the decode rows and the chunk in every linear, attention per kind with its own cache and rows', () => {
    const g = buildMixedGraph(qwen, { batch: 8, contextLen: 1000, chunk: 256 });
    expect(graphRows(g)).toBe(8 + 256);
    const atts = g.ops.filter((o) => o.layer === 0 && o.kind === 'attention') as AttentionOp[];
    expect(atts.map((a) => [a.batch, a.queryLen ?? 1, a.kvLen, a.rowOffset ?? 0])).toEqual([
      [8, 1, 1001, 0],
      [1, 256, 256, 8],
    ]);
    expect(new Set(atts.map((a) => a.kCache)).size).toBe(2);
    expect((g.ops.find((o) => o.id === 'lm_head') as { m: number }).m).toBe(9);
  });

  it('cost less than the decode step and the chunk run apart (they share one pass over the weights), more than either', { timeout: 60_000 }, () => {
    const opts = { policy: 'kernel-per-op-graph', layers: 1 } as const;
    const mixed = predictMixed(backend, qwen, { ...opts, batch: 8, context: 1000, chunk: 256 }).stepMs;
    const decode = predictDecode(backend, qwen, { ...opts, batch: 8, prompt: 1000, decode: 1, positions: 1 }).tpotMs;
    const chunk = predictPrefill(backend, qwen, { ...opts, batch: 1, prompt: 256 }).ttftMs;
    expect(mixed).toBeGreaterThan(Math.max(decode, chunk));
    expect(mixed).toBeLessThan(decode + chunk);
  });
});

describe('attention mappings on a launch-order prefill grid', () => {
  const mha = { ...qwen, numKvHeads: 32 };
  const op = buildPrefillGraph(mha, { batch: 2, promptLen: 1024 }).ops.find((o) => o.id === 'L0.attention') as AttentionOp;
  const tiles = prefillAttentionTiles(op, { qkv: 0, k: 1, v: 2, out: 3 }, DEFAULT_PREFILL_TILING);
  const names = (t: readonly { name: string }[]) => t.map((x) => x.name);

  it('naive block-first is the launch order with the request outermost; every mapping is a permutation of the grid', () => {
    const blocks = 1024 / 128;
    const bh = op.batch * op.heads;
    const requestOuter = Array.from({ length: op.batch }, (_, b) =>
      Array.from({ length: blocks }, (_, m) => Array.from({ length: op.heads }, (_, h) => tiles[m * bh + b * op.heads + h]!)),
    ).flat(2);
    expect(names(inMappingOrder(tiles, op, 128, 'naive-block-first', 8))).toEqual(names(requestOuter));
    for (const m of ['swizzled-block-first', 'naive-head-first', 'swizzled-head-first'] as const) {
      expect([...names(inMappingOrder(tiles, op, 128, m, 8))].sort()).toEqual([...names(tiles)].sort());
    }
  });

  it('swizzled head-first sends every block of one head to one partition (launch ids ≡ p mod 8)', () => {
    const mapped = inMappingOrder(tiles, op, 128, 'swizzled-head-first', 8);
    const head0 = mapped.flatMap((t, i) => (/r0h0$/.test(t.name) ? [i % 8] : []));
    expect(head0).toHaveLength(1024 / 128);
    expect(new Set(head0).size).toBe(1);
  });

  it('is refused, naming the option, on a kernel that schedules its own order (cuDNN on H100)', () => {
    const backend = loadBackend(h100, 'h100');
    expect(() =>
      predictPrefill(backend, qwen, {
        policy: 'kernel-per-op-graph',
        batch: 1,
        prompt: 512,
        layers: 1,
        overrides: { attentionMapping: 'swizzled-head-first' },
      }),
    ).toThrow(/`attentionMapping`/);
  });
});
