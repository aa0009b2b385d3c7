import { describe, expect, it } from 'vitest';
import { dramLatencyAtInFlight, loadedDramLatencyNs } from '@fleet/core';
import {
  CUDNN_FLASH_CTA_FIXED_NS,
  CUDNN_FLASH_DRAM_BYTES_PER_NS,
  CUDNN_FLASH_TILE_FIXED_NS,
  FP8_MATRIX_FLOPS_SCALE,
  FP8_RELATIVE_EFFICIENCY,
  GEMV_STREAM_DRAM_IN_FLIGHT,
  hopperFp8Refusal,
  NVJET_DRAM_IN_FLIGHT,
  nvjetTileFixedNs,
  ROWWISE_DRAM_IN_FLIGHT,
  ROWWISE_OOB_ROW_NS,
  rowwiseDramInFlight,
  KSWEEP,
  PIPELINE,
  nvjetEstimateNs,
  nvjetKernel,
  nvjetStages,
  waveDramBytes,
  selectDecodeAttention,
  selectFlashDecode,
  selectPrefillAttention,
  selectGemm,
  H100_SXM5 as topology,
} from '../src/index.js';
import { TILE_OVERHEAD_NS } from '../src/cost-params.js';
import { CUDNN_SDPA_MEMSET_NODE_NS } from '../src/hopper-libraries.js';
import { GAPS } from '../src/reference/calibration.js';

describe('H100 kernel library', () => {
  it('nvjetKernel builds any candidate as the selection builds its pick', () => {
    for (const [m, n, k] of [
      [1, 4096, 4096],
      [64, 4096, 4096],
      [256, 4096, 4096],
      [256, 24576, 8192],
    ] as const) {
      const s = { m, n, k, weightBytes: 2 };
      const pick = selectGemm(s);
      expect(nvjetKernel(s, pick.tileCols, pick.tileRows, pick.splitK)).toEqual(pick);
      expect(nvjetEstimateNs(s, pick.tileCols, pick.tileRows, pick.splitK)).toBeGreaterThan(0);
    }
  });

  it('the GEMM tile follows M: batch rows grow with the batch, split-K only where the grid would leave SMs idle', () => {
    const rows = [1, 16, 64, 128, 256].map((m) => selectGemm({ m, n: 4096, k: 4096, weightBytes: 2 }).tileRows);
    for (let i = 1; i < rows.length; i++) expect(rows[i]).toBeGreaterThanOrEqual(rows[i - 1]!);
    expect(rows[0]).toBe(8);
    expect(rows[4]).toBeGreaterThan(rows[0]!);
    // 64 column tiles fill half the SMs: cuBLAS splits K (measured: 64x8 splitK + splitKreduce)
    expect(selectGemm({ m: 1, n: 4096, k: 4096, weightBytes: 2 }).splitK).toBe(2);
    // a split never makes the grid longer than one wave of 132 SMs
    for (const [m, n, k] of [
      [1, 6144, 4096],
      [1, 4096, 12288],
      [64, 24576, 4096],
      [16, 1024, 4096],
    ] as const) {
      const g = selectGemm({ m, n, k, weightBytes: 2 });
      if (g.splitK > 1) expect(Math.ceil(n / g.tileCols) * Math.ceil(m / g.tileRows) * g.splitK).toBeLessThanOrEqual(132);
    }
  });

  it('a grid of several waves: the weight swept along N past half the L2 is read again by every round', () => {
    const s = { m: 8192, n: 4096, k: 12288, weightBytes: 2 };
    const weight = s.n * s.k * 2;
    const act = s.m * s.k * 2;
    // 256 × 128 tiles: 16 column tiles < 64 row tiles, so the raster walks along N and each round
    // of 132 CTAs spans the whole 100 MB weight, more than a 25 MB half of the L2.
    const tiles = 16 * 64;
    expect(waveDramBytes(s, 256, 128) * tiles).toBeCloseTo(weight * (tiles / 132) + act, -3);
    // A weight that fits half the L2 is read once, whatever the rounds.
    const small = { m: 8192, n: 1024, k: 4096, weightBytes: 2 };
    expect(waveDramBytes(small, 256, 128) * 4 * 64).toBeCloseTo(small.n * small.k * 2 + small.m * small.k * 2, -3);
    // Priced per round, the 112-column tile's 18 rounds of L2 traffic lose to 256 × 128's 8.
    expect(nvjetEstimateNs(s, 256, 128, 1)).toBeLessThan(nvjetEstimateNs(s, 112, 128, 1));
    expect(selectGemm(s).tileRows).toBe(128);
    expect(selectGemm(s).tileCols).toBeGreaterThanOrEqual(192);
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
    // the same kernel's profiled run in a replayed graph
    const us = GAPS.layer.kinds.find((k) => k.name === g.kernel && k.grid[0]! * k.grid[1]! === g.ctas)!.us;
    // one CTA's weight stream, B/ns, over the kernel's run less what the simulation charges apart
    const rate = (64 * g.k * 2) / (us * 1000 - hbm.latencyNs - TILE_OVERHEAD_NS);
    // 96 CTAs at 2.2 TB/s queue at the DRAM: more bytes in flight than the unloaded latency gives
    expect(GEMV_STREAM_DRAM_IN_FLIGHT).toBeGreaterThan(1.1 * rate * hbm.latencyNs);
    expect(GEMV_STREAM_DRAM_IN_FLIGHT).toBeCloseTo(rate * loadedDramLatencyNs(hbm, g.ctas * rate), -1);
    // closing the loop: those CTAs in the closed system X · L(X) = W get the calibration's rate back
    expect(GEMV_STREAM_DRAM_IN_FLIGHT / dramLatencyAtInFlight(hbm, g.ctas * GEMV_STREAM_DRAM_IN_FLIGHT)).toBeCloseTo(rate, 1);
  });

  it('the sweep over K separates the skinny kernels fixed cost from their stream, whose rate the in-flight gives back', () => {
    const hbm = topology.memory.hbm;
    const fits = KSWEEP.fits;
    // 20 fits at M = 1 and 8 set the figures; 14 at M = 16–64 (tiles of 16–64 rows) check them
    expect(fits.filter((f) => f.m <= 8).length).toBe(20);
    expect(fits.filter((f) => f.m > 8).length).toBe(14);
    // the whole-call figure folded the fixed cost in: the stream alone keeps more bytes in flight
    expect(NVJET_DRAM_IN_FLIGHT).toBeGreaterThan(1.3 * GEMV_STREAM_DRAM_IN_FLIGHT);
    // closing the loop: each fit's grid at the median in-flight streams within 8% of its measured
    // rate, the M = 16–64 tiles' too: one figure covers every tile up to 64 rows
    for (const f of fits) {
      const x = (f.ctas * NVJET_DRAM_IN_FLIGHT) / dramLatencyAtInFlight(hbm, f.ctas * NVJET_DRAM_IN_FLIGHT);
      expect(Math.abs(x / (f.TBps * 1000) - 1)).toBeLessThan(0.08);
    }
    // the intercept less the first access and the per-tile overhead the simulation charges apart,
    // by the tile's width: the 64- and 192-column fits' medians, a line between them (the
    // profiler's kernel time holds neither the graph's gap nor its node)
    const medianOf = (cols: number) => {
      const xs = fits
        .filter((f) => f.m <= 8 && f.kernel.startsWith(`nvjet_sm90_tst_${cols}x8_`))
        .map((f) => f.fixedUs)
        .sort((a, b) => a - b);
      return xs.length % 2 ? xs[xs.length >> 1]! : (xs[xs.length / 2 - 1]! + xs[xs.length / 2]!) / 2;
    };
    expect(nvjetTileFixedNs(64)).toBe(Math.round(medianOf(64) * 1000 - hbm.latencyNs - TILE_OVERHEAD_NS));
    expect(nvjetTileFixedNs(192)).toBe(Math.round(medianOf(192) * 1000 - hbm.latencyNs - TILE_OVERHEAD_NS));
    expect(nvjetTileFixedNs(128)).toBeCloseTo((nvjetTileFixedNs(64) + nvjetTileFixedNs(192)) / 2, -1);
    // the tiles the sweeps measured pay it: up to 64 batch rows in one row tile, a single wave
    for (const m of [1, 16, 64]) {
      const g = selectGemm({ m, n: 6144, k: 4096, weightBytes: 2 });
      expect(g.tileFixedNs).toBe(nvjetTileFixedNs(g.tileCols));
      expect(g.pipeline.dramInFlightBytes).toBe(NVJET_DRAM_IN_FLIGHT);
    }
    const wide = selectGemm({ m: 256, n: 6144, k: 4096, weightBytes: 2 });
    expect(wide.tileFixedNs).toBeUndefined();
    expect(wide.pipeline.dramInFlightBytes).toBe(GEMV_STREAM_DRAM_IN_FLIGHT * Math.min(2, Math.ceil(256 / wide.tileRows)));
  });

  it("M = 16–64: one row tile of the menu's widths, as cuBLAS runs it (64x16, 64x32, then 64 rows)", () => {
    const tile = (m: number) => selectGemm({ m, n: 6144, k: 4096, weightBytes: 2 });
    expect([16, 32, 64].map((m) => tile(m).tileRows)).toEqual([16, 32, 64]);
    const menu = new Set(PIPELINE.nvjetTileMenu.tiles.map((t) => t.split('_')[0]));
    for (const m of [1, 8, 16, 24, 40, 56, 64, 96, 160, 200, 1024]) {
      const g = selectGemm({ m, n: 4096, k: 4096, weightBytes: 2 });
      expect(menu.has(`${g.tileCols}x${g.tileRows}`)).toBe(true);
    }
  });

  it("cuDNN's grouped-rows decode computes a 64-row tile per KV block, its loads hidden under the compute", () => {
    const a = PIPELINE.sdpaDecodeStream;
    // prefill's issued rate, its fixed time and first access taken out
    expect(CUDNN_FLASH_DRAM_BYTES_PER_NS).toBeGreaterThan((2 * a.kvLen * 128 * 2) / (a.us * 1000));
    const one = selectDecodeAttention({ batch: 1, heads: 32, kvHeads: 8, kvLen: 32768, headDim: 128 });
    expect(one.queryRowTile).toBe(64);
    expect(one.pipeline.dramBytesPerNs).toBeUndefined();
    expect(one.pipeline.overlap).toBe(Infinity);
    // every CTA also waits for the memset node cuDNN runs before the kernel (0.77 µs, and a
    // replayed call idles about a µs more around it than a kernel boundary)
    expect(one.tileFixedNs! - CUDNN_FLASH_CTA_FIXED_NS - CUDNN_FLASH_TILE_FIXED_NS).toBe(CUDNN_SDPA_MEMSET_NODE_NS);
    expect(CUDNN_SDPA_MEMSET_NODE_NS).toBeGreaterThan(770);
    expect(CUDNN_SDPA_MEMSET_NODE_NS).toBeLessThan(3000);
  });

  it("cuDNN's persistent prefill kernel: a CTA starts once, each further tile costs little beyond its KV blocks", () => {
    // The batch-1 microbenchmark's line (3.3 µs once, 7.6 a 4-block tile) split into what the
    // machine charges and the rest: most of the old per-tile fixed time (3.9 µs) is the CTA's.
    expect(CUDNN_FLASH_CTA_FIXED_NS).toBeGreaterThan(2000);
    expect(CUDNN_FLASH_CTA_FIXED_NS).toBeLessThan(4000);
    expect(CUDNN_FLASH_TILE_FIXED_NS).toBeLessThan(1000);
    const k = (batch: number, promptLen: number) =>
      selectPrefillAttention({ batch, heads: 32, kvHeads: 8, queryLen: promptLen, kvLen: promptLen, headDim: 128 });
    expect(k(1, 512).persistentCtas).toBe(128);
    expect(k(16, 512).persistentCtas).toBe(132);
    expect(k(1, 512).ctaFixedNs).toBe(CUDNN_FLASH_CTA_FIXED_NS);
  });

  it("FlashAttention-2's combine merges 4 query rows a CTA at head dim 128, whatever the GQA group", () => {
    const split = (heads: number, kvHeads: number, headDim = 128) => selectFlashDecode({ batch: 1, heads, kvHeads, kvLen: 8192, headDim });
    expect(split(32, 4).splits).toBeGreaterThan(1);
    // grid 8 for 32 query heads (measured), with 4 or 8 KV heads
    expect(split(32, 4).combineRows).toBe(4);
    expect(split(32, 8).combineRows).toBe(4);
    expect(split(32, 8, 64).combineRows).toBe(8);
  });

  it("FlashAttention-2's unsplit kernel streams one K/V block per iteration: its rate follows the block's bytes", () => {
    const unsplit = (headDim: number) => selectFlashDecode({ batch: 64, heads: 32, kvHeads: 8, kvLen: 32768, headDim });
    expect(unsplit(128).splits).toBe(1);
    expect(unsplit(128).name).toBe('flash_fwd_kernel<128,128,64,4>');
    expect(unsplit(256).name).toBe('flash_fwd_kernel<256,64,64,4>');
    // head dim 64's 128-token blocks hold the bytes of head dim 128's 64-token ones
    expect(unsplit(64).pipeline.dramBytesPerNs).toBe(unsplit(128).pipeline.dramBytesPerNs);
    expect(unsplit(256).pipeline.dramBytesPerNs).toBe(2 * unsplit(128).pipeline.dramBytesPerNs!);
  });
});

describe('H100 W8A8 FP8 GEMMs', () => {
  const fp8 = (m: number, scales: 'tensor' | 'channel', activations = 'f8e4m3') => ({
    m,
    n: 6144,
    k: 4096,
    weightBytes: 1,
    fp8: { weights: 'f8e4m3', activations, scales },
  });

  it('per-tensor scales: the nvjet menu on FP8 operands, K-tiles of 128 bytes, priced at the FP8 rate', () => {
    const k = selectGemm(fp8(16, 'tensor'));
    expect(k.name).toMatch(/^nvjet_sm90_qqtst_\d+x\d+_128x\d+/);
    expect(selectGemm(fp8(16, 'tensor', 'f8e5m2')).name).toMatch(/^nvjet_sm90_qrtst_/);
    // Twice the bf16 peak, at the calibrated fraction of bf16's efficiency.
    expect(k.matrixFlopsScale).toBeCloseTo(
      topology.computeUnit.matrixFlopsPerNs.bf16 / topology.computeUnit.matrixFlopsPerNs.fp8! / FP8_RELATIVE_EFFICIENCY,
      12,
    );
    expect(FP8_MATRIX_FLOPS_SCALE).toBe(k.matrixFlopsScale);
  });

  it('row-wise scales: one 128 × 128 kernel at every M, no cluster and no split-K, as cuBLASLt ran it', () => {
    for (const m of [1, 64, 4096]) {
      const k = selectGemm(fp8(m, 'channel'));
      expect(k).toMatchObject({ tileRows: 128, tileCols: 128, splitK: 1, name: 'nvjet_sm90_qqtst_128x128_128x6_1x1_ovscale' });
      expect(k.pipeline.dramInFlightBytes).toBe(rowwiseDramInFlight(m, 6144, 128, 128));
    }
    // Its producer keeps twice the calibrated GEMV's outstanding bytes: a weight stage twice as large.
    expect(ROWWISE_DRAM_IN_FLIGHT).toBe(2 * GEMV_STREAM_DRAM_IN_FLIGHT);
  });

  it('row-wise scales: the activation box filled past the tensor edge holds the weight stream back, more with more CTAs', () => {
    // Whole row tiles cross no edge: the full in-flight.
    for (const m of [128, 256, 4096]) expect(rowwiseDramInFlight(m, 6144, 128, 128)).toBe(ROWWISE_DRAM_IN_FLIGHT);
    // Fewer batch rows, more rows filled: less in flight.
    const at = (m: number, n: number) => rowwiseDramInFlight(m, n, 128, 128);
    expect(at(1, 6144)).toBeLessThan(at(16, 6144));
    expect(at(16, 6144)).toBeLessThan(at(64, 6144));
    expect(at(64, 6144)).toBeLessThan(ROWWISE_DRAM_IN_FLIGHT);
    // More CTAs (N / 128 of them) loading such boxes at once: less in flight each.
    expect(at(1, 8192)).toBeLessThan(at(1, 4096));
    // A grid beyond the SMs runs in waves: 192 tiles on 132 SMs load 96 at a time on average.
    expect(at(1, 24576)).toBe(at(1, 96 * 128));
    expect(ROWWISE_OOB_ROW_NS).toBeGreaterThan(0);
  });

  it('refuses FNUZ types and e5m2 × e5m2', () => {
    expect(hopperFp8Refusal({ weights: 'f8e4m3', activations: 'f8e5m2', scales: 'tensor' })).toBeNull();
    expect(hopperFp8Refusal({ weights: 'f8e4m3fnuz', activations: 'f8e4m3fnuz', scales: 'tensor' })).toMatch(/OCP/);
    expect(hopperFp8Refusal({ weights: 'f8e5m2', activations: 'f8e5m2', scales: 'tensor' })).toMatch(/e4m3 operand/);
  });
});
