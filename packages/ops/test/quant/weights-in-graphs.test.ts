import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadModel } from '@fleet/core';
import { compilePolicy, decoderLinearBytes, parseWeightType, BUILTIN_POLICIES } from '../../src/index.js';
import { mi350Backend } from '../helpers.js';

const qwen = loadModel('qwen3-8b');
const backend = mi350Backend();
const graph = buildDecodeGraph(qwen, { batch: 1, contextLen: 64 });

/** Bytes a compiled graph reads from layer 0's linear weights and their scales. */
function weightBytesRead(policy: string, weights: string): number {
  const g = compilePolicy(graph, BUILTIN_POLICIES.find((p) => p.name === policy)!, backend, { layers: [0], weights: parseWeightType(weights) });
  const ids = new Set(g.buffers.filter((b) => /^L0\.w_(qkv|o|gate_up|down)(\.scales)?$/.test(b.name)).map((b) => b.id));
  let bytes = 0;
  for (const t of g.tasks) for (const tile of t.tiles) for (const r of tile.reads) if (ids.has(r.buffer)) bytes += r.bytes * (r.rows ?? 1);
  return bytes;
}

describe('quantized weights in compiled graphs', () => {
  it('a layer of Qwen3-8B with u4g128 weights reads a quarter of the bf16 bytes plus the scales, exactly', () => {
    const wt = parseWeightType('u4g128');
    const expected = decoderLinearBytes({ ...qwen, numLayers: 1 }, wt).total;
    const bf16 = 4096 * (6144 + 4096 + 24576) * 2 + 12288 * 4096 * 2;
    expect(expected).toBe(bf16 / 4 + (bf16 / 2 / 128) * 2);
    for (const p of ['fleet-mtile', 'kernel-per-op']) expect(weightBytesRead(p, 'u4g128'), p).toBe(expected);
  });

  it('dense bf16 weights read the layer once', () => {
    expect(weightBytesRead('fleet-mtile', 'bf16')).toBe(4096 * (6144 + 4096 + 24576) * 2 + 12288 * 4096 * 2);
  });
});
