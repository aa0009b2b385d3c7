import { loadBackend } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import {
  CDNA3_CU,
  CDNA_VENDOR_PIPELINE,
  CdnaCostModel,
  hipblasltResources,
  selectCdnaGemm,
  CDNA_SOFTMAX_FLOPS_PER_SCORE,
  wvSplitKLaunch,
  wvSplitKMindiv,
} from '@fleet/family-cdna';
import descriptor, { MI300X_LIBRARY_SPEC, kernelLibrary } from '../src/index.js';
import { occupancy } from '@fleet/core';

const gemm = (m: number, n = 4096, k = 4096) => selectCdnaGemm(MI300X_LIBRARY_SPEC, { m, n, k, weightBytes: 2 });

describe('MI300X kernel library (hipBLASLt, wvSplitK, paged attention, CK FlashAttention)', () => {
  it('is bound to the backend', () => {
    expect(loadBackend(descriptor, 'test').kernelLibrary).toBe(kernelLibrary);
  });

  it('batches of 1–4 rows run wvSplitK as vLLM launches it: one workgroup per CU per round, K split inside each wave', () => {
    for (const m of [1, 4]) {
      const g = gemm(m);
      expect(g.name).toBe('wvSplitK');
      // 4096 columns: YT = ceil(4096 / (304 × 16)) = 1 → YTILE 2, 2 K-steps unrolled; mindiv
      // trims 16 waves to 7 (4096 / (608 × 7) still rounds down to 0 whole rounds): 14 columns
      // per workgroup, 293 workgroups, no partial sums
      expect([g.tileCols, g.splitK, g.maskedRows]).toEqual([14, 1, true]);
      // 7 waves × 2 columns × 2 K-steps × 64 lanes × 16 B in flight, 2 waves per SIMD
      expect(g.pipeline).toEqual({ inFlightBytes: 7 * 2 * 2 * 1024, overlap: 2, residentTiles: 1 });
    }
    // Qwen3-8B's gate+up (24576 columns): YTILE 4, 11 waves, 44 columns per round — 559
    // workgroups, so 255 CUs run a second round (the old 64-column tiles left 80 of 304 busy)
    const gu = gemm(4, 24576);
    expect([gu.tileCols, gu.pipeline.inFlightBytes]).toEqual([44, 11 * 4 * 1024]);
  });

  it('wvSplitK follows the host code: YTILE from the columns per wave, mindiv keeps the whole rounds', () => {
    expect(wvSplitKMindiv(6144, 608, 16)).toBe(11);
    expect(wvSplitKMindiv(24576, 1216, 16)).toBe(11);
    // 76032 × 13312 (the GEMV validation's 2 GB matrix): YTILE 4, all 16 waves
    expect(wvSplitKLaunch(76032, 13312, 1, 304, false, 64 * 1024)).toEqual({ ytile: 4, unroll: 1, waves: 16, colsPerRound: 64 });
    // wvSplitKQ (FP8): YTILE 2 for 1–2 rows; 4 for 3–4 rows where the activation fits the LDS, else 7
    expect(wvSplitKLaunch(4096, 4096, 2, 304, true, 64 * 1024).ytile).toBe(2);
    expect(wvSplitKLaunch(4096, 4096, 4, 304, true, 64 * 1024).ytile).toBe(4);
    expect(wvSplitKLaunch(4096, 32768, 4, 304, true, 64 * 1024).ytile).toBe(7);
  });

  it('the hipBLASLt tile grows with M: 16 rows for a decode batch, 128 or more for a large GEMM', () => {
    expect(gemm(16).tileRows).toBe(16);
    const big = gemm(8192, 8192, 8192);
    expect(big.tileRows * big.tileCols).toBeGreaterThanOrEqual(128 * 256);
    const areas = [16, 256, 8192].map((m) => {
      const g = gemm(m, 8192, 8192);
      return g.tileRows * g.tileCols;
    });
    expect(areas[2]).toBeGreaterThan(areas[0]!);
  });

  it('every chosen tile fits a CDNA3 CU (64 KiB LDS): the largest keep one K-slice in LDS, the second prefetch in VGPRs', () => {
    expect(hipblasltResources('gfx942', CDNA3_CU, 256, 256).sharedBytes).toBe(64 * 1024);
    // K not a multiple of the split granularity still gets a tile (no split)
    expect(gemm(8, 256, 96).splitK).toBe(1);
    for (const m of [8, 64, 512, 4096]) {
      const g = gemm(m, 14336, 4096);
      expect(occupancy(CDNA3_CU, hipblasltResources('gfx942', CDNA3_CU, g.tileRows, g.tileCols)).blocks).toBeGreaterThanOrEqual(1);
    }
  });

  it('decode attention streams 256-token partitions in one workgroup per KV head; prefill runs 128 × 128 CK tiles', () => {
    const d = kernelLibrary.decodeAttention({ batch: 1, heads: 32, kvHeads: 8, kvLen: 1000, headDim: 128 });
    expect(d.splits).toBe(1);
    expect(d.pipeline).toEqual(CDNA_VENDOR_PIPELINE);
    const p = kernelLibrary.prefillAttention!({ batch: 1, heads: 32, kvHeads: 8, queryLen: 2048, kvLen: 2048, headDim: 128 });
    expect([p.queryRows, p.kvCols, p.order]).toEqual([128, 128, 'in-order']);
    // the quarter-rate exp alone costs 16 FLOP-equivalents at the packed FMA rate
    expect(p.softmaxFlopsPerScore).toBe(CDNA_SOFTMAX_FLOPS_PER_SCORE);
    expect(CDNA_SOFTMAX_FLOPS_PER_SCORE).toBeGreaterThan(16);
  });
});

describe('CdnaCostModel', () => {
  it("prices a library tile at its kernel's MFMA efficiency and every other tile at the backend's", async () => {
    const { params, topology } = await import('../src/index.js');
    const cm = new CdnaCostModel(topology, params);
    const flops = 2 * 256 * 256 * 512;
    const peak = topology.computeUnit.matrixFlopsPerNs.bf16;
    const plain = { reads: [], writes: [], flops, unit: 'matrix' as const };
    expect(cm.tileComputeNs(plain)).toBeCloseTo(flops / (peak * params.matrixEfficiency), 6);
    const lib = { ...plain, pipeline: { inFlightBytes: 1, overlap: 1, mfmaEfficiency: 0.5 }, vectorFlops: 1000 };
    expect(cm.tileComputeNs(lib)).toBeCloseTo(flops / (peak * 0.5) + 1000 / (topology.computeUnit.vectorFlopsPerNs * params.vectorEfficiency), 6);
  });
});
