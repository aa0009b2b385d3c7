import { describe, expect, it } from 'vitest';
import { buildPrefillGraph, loadBackend, loadModel, type AttentionOp, type ModelSpec } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { DEFAULT_PREFILL_TILING, layerKinds, layersToSample, predictDecode, predictPrefill, prefillAttentionTiles, residentBytes } from '../src/index.js';

const backend = loadBackend(h100, 'h100');
const mistral = loadModel('mistral-7b');
const gemma = loadModel('gemma2-9b');
const global = (m: ModelSpec): ModelSpec => {
  const { slidingWindow: _w, ...rest } = m;
  return { ...rest, name: `${m.name} without window` };
};
const tpot = (model: ModelSpec, prompt: number) =>
  predictDecode(backend, model, { policy: 'kernel-per-op-graph', batch: 1, prompt, decode: 1, positions: 1, layers: 3 });

describe('sliding-window layers in the sampled step', () => {
  it('sample every kind of layer: past the first global layer of a 5:1 pattern, past the dense layers of an MoE', () => {
    const pattern = Array.from({ length: 48 }, (_, l) => ((l + 1) % 6 === 0 ? 'dense' : 'dense window 1024'));
    expect(layersToSample(pattern, 3)).toBe(7);
    expect(layersToSample(['dense', 'dense', 'dense', 'moe', 'moe', 'moe'], 3)).toBe(5);
    expect(layersToSample(['dense', 'dense', 'dense'], 3)).toBe(3);
    // A window the context does not reach leaves every layer one kind.
    expect(new Set(layerKinds(gemma, 4096)).size).toBe(1);
    expect(new Set(layerKinds(gemma, 4097))).toEqual(new Set(['dense window 4096', 'dense']));
  });

  it('a fully windowed model decodes as fast at 32K tokens as at 8K: the window is all it reads', () => {
    const at8k = tpot(mistral, 8191);
    const at32k = tpot(mistral, 32767);
    expect(at32k.tpotMs).toBe(at8k.tpotMs);
    expect(at32k.hbmReadBytes).toBe(at8k.hbmReadBytes);
    expect(tpot(global(mistral), 32767).tpotMs).toBeGreaterThan(at32k.tpotMs * 1.1);
  });

  it("a windowed layer's cache holds its window: device memory stops growing with the context there", () => {
    expect(residentBytes(mistral, 4, 32768, undefined)).toBe(residentBytes(mistral, 4, 4096, undefined));
    // Gemma 2: only the 21 global layers' caches grow (8 KV heads × 256 wide, K and V, bf16).
    const perToken = 2 * 8 * 256 * 2;
    expect(residentBytes(gemma, 1, 8192, undefined) - residentBytes(gemma, 1, 4096, undefined)).toBe(21 * 4096 * perToken);
    expect(residentBytes(global(gemma), 1, 8192, undefined) - residentBytes(global(gemma), 1, 4096, undefined)).toBe(42 * 4096 * perToken);
  });

  it('alternating local and global layers: the global half keeps growing with the context', () => {
    const windowed = tpot(gemma, 32767);
    const full = tpot(global(gemma), 32767);
    expect(windowed.sampling.layersSimulated).toBe(3);
    expect(windowed.tpotMs).toBeLessThan(full.tpotMs);
    expect(windowed.tpotMs).toBeGreaterThan(tpot(gemma, 8191).tpotMs);
    // Within the window the two specs are one model.
    expect(tpot(gemma, 2047).tpotMs).toBe(tpot(global(gemma), 2047).tpotMs);
  });
});

describe('sliding-window prefill', () => {
  const op = buildPrefillGraph(mistral, { batch: 1, promptLen: 16384 }).ops.find((o) => o.id === 'L0.attention') as AttentionOp;
  const buf = { qkv: 0, k: 1, v: 2, out: 3 };

  it('a query block streams at most the window and the blocks it straddles, starting where its window does', () => {
    const tiles = prefillAttentionTiles(op, buf, DEFAULT_PREFILL_TILING);
    const kv = 128;
    const span = (t: (typeof tiles)[number]) => t.tile.reads[1]!.bytes / (op.headDim * 2);
    expect(Math.max(...tiles.map(span))).toBe(4096 + kv);
    const last = tiles.find((t) => t.name.startsWith(`${op.id}.q${16384 / 128 - 1}r0`))!;
    expect(span(last)).toBe(4096 + kv);
    expect(last.tile.reads[1]!.offset).toBe((16384 - 4096 - kv) * op.headDim * 2);
    // The first blocks see less than the window, as without one.
    expect(span(tiles[0]!)).toBe(kv);
  });

  it('chunked prefill simulates the chunks either side of where the window fills', () => {
    const r = predictPrefill(backend, mistral, { policy: 'kernel-per-op-graph', batch: 1, prompt: 16384, chunk: 2048, layers: 3 });
    expect(r.sampling.chunksSimulated).toEqual([0, 2048, 4096, 14336]);
    const all = predictPrefill(backend, mistral, { policy: 'kernel-per-op-graph', batch: 1, prompt: 16384, chunk: 2048, layers: 3, chunksSimulated: 8 });
    expect(Math.abs(r.ttftMs / all.ttftMs - 1)).toBeLessThan(0.005);
  });
});
