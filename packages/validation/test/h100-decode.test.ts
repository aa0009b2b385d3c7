import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadBackend, loadModel, simulateGraph } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { cudnnDecodeVectorFlopsPerScore, DECODE_BLOCKS } from '@fleet/family-hopper';
import { KERNEL_PER_OP_GRAPH } from '@fleet/ops';
import { groupedRows, h100DecodeValidation } from '../src/index.js';

describe('H100 split-KV decode against our sweep', () => {
  it('quick suite: FlashAttention-2 at batch 1 and Qwen3-8B at KV 32K within 10%', { timeout: 120_000 }, () => {
    const rows = h100DecodeValidation(loadBackend(h100, 'h100'), { quick: true });
    // two attention points, head dim 64 through both kernels (cuDNN's priced on its 64-row tile), one step
    expect(rows.length).toBe(5);
    // cuDNN's grouped-rows kernel at head dim 64 included: its block per head dim comes from a
    // batch-1 microbenchmark on 1-4 CTAs (family-hopper's DECODE_BLOCKS), these rows run 8 CTAs.
    for (const r of rows) expect(r.ok, `${r.experiment}: ${r.predicted} vs ${JSON.stringify(r.published)}`).toBe(true);
    // the split kernel, not cuDNN's unsplit one: Qwen3-8B at KV 32K near 10 ms, not 21
    const tpot = rows.find((r) => r.experiment.startsWith('qwen3-8b'))!;
    expect(tpot.predicted).toBeLessThan(12);
  });

  it("cuDNN's grouped-rows kernel on one CTA takes the microbenchmark's time at every head dim measured", { timeout: 60_000 }, () => {
    const backend = groupedRows(loadBackend(h100, 'h100'));
    for (const r of DECODE_BLOCKS.rows.filter((x) => x.kvHeads === 1 && x.kvLen === 32768)) {
      const model = { ...loadModel('qwen3-8b'), numHeads: 4, numKvHeads: 1, headDim: r.headDim };
      const g = buildDecodeGraph(model, { batch: 1, contextLen: r.kvLen - 1 });
      const def = KERNEL_PER_OP_GRAPH;
      const tg = def.compile({ ...g, ops: g.ops.filter((o) => o.layer === 0 && o.kind === 'attention') }, backend, def.schedule, {
        layers: [0],
        library: backend.kernelLibrary,
        kernels: backend.tuning.kernels,
      });
      const us = simulateGraph(backend, tg, { launchMode: 'graph' }).timeNs / 1000;
      expect(Math.abs(us / r.kernelUs - 1), `head dim ${r.headDim}: ${us} vs ${r.kernelUs} µs`).toBeLessThan(0.05);
    }
    // the softmax and rescale a score costs grows past head dim 128 (measured), not below it
    expect(cudnnDecodeVectorFlopsPerScore(256)).toBeGreaterThan(1.3 * cudnnDecodeVectorFlopsPerScore(128));
    expect(Math.abs(cudnnDecodeVectorFlopsPerScore(64) / cudnnDecodeVectorFlopsPerScore(128) - 1)).toBeLessThan(0.05);
  });
});
