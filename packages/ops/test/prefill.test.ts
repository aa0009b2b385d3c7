import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, buildPrefillGraph, loadBackend, loadModel, parameterCount, type AttentionOp } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { DEFAULT_PREFILL_TILING, predictPrefill, prefillAttentionTiles } from '../src/index.js';

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

  it('hand out the longest blocks first when the kernel says so', () => {
    const inOrder = prefillAttentionTiles(op, buf, DEFAULT_PREFILL_TILING);
    const longest = prefillAttentionTiles(op, buf, { ...DEFAULT_PREFILL_TILING, order: 'longest-first' });
    expect(inOrder[0]!.tile.steps).toBe(1);
    expect(longest[0]!.tile.steps).toBe(1024 / 128);
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
    const serial = { ...backend, kernelLibrary: { ...lib, prefillAttention: (s: Parameters<NonNullable<typeof lib.prefillAttention>>[0]) => { const k = lib.prefillAttention!(s); return { ...k, pipeline: { ...k.pipeline, vectorUnderMatrix: false } }; } } };
    const t = (b: typeof backend) => predictPrefill(b, qwen, { policy: 'kernel-per-op-graph', batch: 1, prompt: 4096, layers: 1 }).ttftMs;
    expect(t(serial)).toBeGreaterThan(1.05 * t(backend));
  });
});
