import { describe, expect, it } from 'vitest';
import * as ops from '@fleet/ops';
import { loadBackend, loadModel } from '@fleet/core';
import h100, { h100PipelineValidation, selectDecodeAttention } from '@fleet/backend-h100';

describe('H100 tile pipeline against our sweep', () => {
  it('quick pipeline suite: GEMMs, decode attention and TPOT within their tolerances', { timeout: 120_000 }, () => {
    const backend = loadBackend(h100, 'h100');
    const rows = h100PipelineValidation(backend, ops, { quick: true });
    const gemm = rows.filter((r) => r.experiment.startsWith('GEMM'));
    expect(gemm.length).toBe(3);
    // the bar for the projection shapes at M = 1…256 is a mean error within 15%
    expect(gemm.reduce((a, r) => a + Math.abs(r.error), 0) / gemm.length).toBeLessThan(15);
    for (const r of rows.filter((x) => !x.experiment.startsWith('GEMM'))) expect(r.ok, `${r.experiment}: ${r.predicted} vs ${JSON.stringify(r.published)}`).toBe(true);
  });

  it('split-KV raises the achieved bandwidth of a long single request', { timeout: 60_000 }, () => {
    const backend = loadBackend(h100, 'h100');
    const noSplit = { ...backend, kernelLibrary: { ...backend.kernelLibrary!, decodeAttention: (s: Parameters<typeof selectDecodeAttention>[0]) => ({ ...selectDecodeAttention(s), splits: 1 }) } };
    const llama2 = loadModel('llama2-7b');
    const tpot = (b: typeof backend) => ops.predictDecode(b, llama2, { policy: 'kernel-per-op-graph', batch: 1, prompt: 16383, decode: 1, positions: 1, layers: 1 }).tpotMs;
    expect(tpot(backend)).toBeLessThan(tpot(noSplit));
  });
});
