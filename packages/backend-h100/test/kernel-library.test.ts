import { describe, expect, it } from 'vitest';
import { dramLatencyAtInFlight, loadedDramLatencyNs } from '@fleet/core';
import { CUDNN_SDPA_DRAM_IN_FLIGHT, NVJET_DRAM_IN_FLIGHT, PIPELINE, nvjetStages, selectDecodeAttention, selectGemm, topology } from '../src/index.js';

describe('H100 kernel library', () => {
  it('the GEMM tile follows M: batch rows grow with the batch, split-K only where the grid would leave SMs idle', () => {
    const rows = [1, 16, 64, 128, 256].map((m) => selectGemm({ m, n: 4096, k: 4096, weightBytes: 2 }).tileRows);
    for (let i = 1; i < rows.length; i++) expect(rows[i]).toBeGreaterThanOrEqual(rows[i - 1]!);
    expect(rows[0]).toBe(8);
    expect(rows[4]).toBeGreaterThan(rows[0]!);
    // 64 column tiles fill half the SMs: cuBLAS splits K (measured: 64x8 splitK + splitKreduce)
    expect(selectGemm({ m: 1, n: 4096, k: 4096, weightBytes: 2 }).splitK).toBe(2);
    // a split never makes the grid longer than one wave of 132 SMs
    for (const [m, n, k] of [[1, 6144, 4096], [1, 4096, 12288], [64, 24576, 4096], [16, 1024, 4096]] as const) {
      const g = selectGemm({ m, n, k, weightBytes: 2 });
      if (g.splitK > 1) expect(Math.ceil(n / g.tileCols) * Math.ceil(m / g.tileRows) * g.splitK).toBeLessThanOrEqual(132);
    }
  });

  it('stages fill the shared memory left after the epilogue, as in the tile names cuBLAS shows', () => {
    expect(nvjetStages(64, 8)).toBe(16);
    expect(nvjetStages(128, 128)).toBe(6);
    expect(nvjetStages(256, 128)).toBe(4);
    expect(nvjetStages(192, 8)).toBe(8);
  });

  it('decode attention: GQA groups as one CTA per KV head, no split; one query per head splits a long single request', () => {
    expect(selectDecodeAttention({ batch: 1, heads: 32, kvHeads: 8, kvLen: 32768, headDim: 128 }).splits).toBe(1);
    expect(selectDecodeAttention({ batch: 1, heads: 32, kvHeads: 32, kvLen: 8192, headDim: 128 }).splits).toBe(8);
    expect(selectDecodeAttention({ batch: 4, heads: 32, kvHeads: 32, kvLen: 8192, headDim: 128 }).splits).toBe(1);
  });

  it('derives DRAM bytes in flight at the load of the calibration kernel itself, not at the unloaded latency', () => {
    const hbm = topology.memory.hbm;
    const g = PIPELINE.gemvStream;
    const rate = (64 * g.k * 2) / (g.us * 1000); // one CTA's weight stream, B/ns
    // 96 CTAs at 2.2 TB/s queue at the DRAM: more bytes in flight than the unloaded latency gives
    expect(NVJET_DRAM_IN_FLIGHT).toBeGreaterThan(1.1 * rate * hbm.latencyNs);
    expect(NVJET_DRAM_IN_FLIGHT).toBeCloseTo(rate * loadedDramLatencyNs(hbm, g.ctas * rate), -1);
    // closing the loop: those CTAs in the closed system X · L(X) = W get the calibration's rate back
    expect(NVJET_DRAM_IN_FLIGHT / dramLatencyAtInFlight(hbm, g.ctas * NVJET_DRAM_IN_FLIGHT)).toBeCloseTo(rate, 1);
    // 8 attention CTAs barely load the memory: next to no correction
    const a = PIPELINE.sdpaDecodeStream;
    const aRate = (2 * a.kvLen * 128 * 2) / (a.us * 1000);
    expect(CUDNN_SDPA_DRAM_IN_FLIGHT).toBeGreaterThanOrEqual(Math.floor(aRate * hbm.latencyNs));
    expect(CUDNN_SDPA_DRAM_IN_FLIGHT).toBeLessThan(1.05 * aRate * hbm.latencyNs);
  });
});
