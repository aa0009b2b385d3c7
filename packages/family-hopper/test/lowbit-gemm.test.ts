import { describe, expect, it } from 'vitest';
import { dequantCycles, dequantInstructions, H100_SM, h100Sm80Device, searchSm80, selectGemm, sm80Configs, sm80EstimateNs } from '../src/index.js';

const dev = h100Sm80Device(H100_SM);
const u4 = { bits: 4, kind: 'uint' as const, group: 128, zeroPoint: false };
const gateUp = (m: number) => ({ m, n: 57344, k: 8192, weightBytes: 0.5, quant: u4 });

describe('sm80 low-bit GEMMs (Tilus, Triton)', () => {
  it('dequantizes with fewer cycles per element in registers (Tilus) than through a shared-memory layout conversion (Triton)', () => {
    for (const q of [u4, { ...u4, bits: 6 }, { bits: 6, kind: 'float' as const, group: 128, zeroPoint: false }, { ...u4, bits: 1, zeroPoint: true }]) {
      expect(dequantCycles(dev, 'tilus', q)).toBeLessThan(dequantCycles(dev, 'triton', q) / 3);
    }
    // codes straddling 32-bit words take one more shift per pair
    expect(dequantInstructions('tilus', { ...u4, bits: 6 }).int).toBeGreaterThan(dequantInstructions('tilus', u4).int);
    // Triton's conversion moves every fp16 element through shared memory twice
    expect(dequantInstructions('triton', u4).sharedBytes).toBe(0.5 + 4);
  });

  it('searches the tile space: many configurations tried, each feasible one priced, the cheapest kept', () => {
    const configs = sm80Configs(gateUp(16), u4);
    expect(configs.length).toBeGreaterThan(200);
    const best = searchSm80(dev, gateUp(16), u4, 'tilus');
    expect(best.tried).toBeGreaterThan(100);
    for (const c of configs) {
      const ns = sm80EstimateNs(dev, gateUp(16), u4, 'tilus', c);
      if (ns !== null) expect(ns).toBeGreaterThanOrEqual(best.ns * 0.99);
    }
    // no tile taller than the batch needs (the mma's 16 rows at most for M = 16)
    expect(configs.every((c) => c.bm === 16)).toBe(true);
  });

  it('splits K when the columns alone leave most SMs idle', () => {
    // 512 columns are 16 CTAs of 32 on 132 SMs: too few bytes in flight without a split
    const narrow = { m: 1, n: 512, k: 16384, weightBytes: 0.5, quant: u4 };
    const split = searchSm80(dev, narrow, u4, 'tilus');
    expect(split.config.splitK).toBeGreaterThan(1);
    expect(split.ns).toBeLessThan(sm80EstimateNs(dev, narrow, u4, 'tilus', { ...split.config, splitK: 1 })!);
  });

  it('the H100 library picks Tilus fused at decode, dequantize-then-GEMM (nvjet) at prefill, and keeps tinygemm and Triton as choices', () => {
    expect(selectGemm(gateUp(16)).name).toMatch(/^tilus_matmul_f16xu4_/);
    const prefill = selectGemm(gateUp(4096));
    expect(prefill.predequantize?.name).toBe('tilus_dequant_u4_to_f16');
    expect(prefill.name).toMatch(/nvjet_sm90/);
    expect(selectGemm(gateUp(16), 'tinygemm').name).toBe('tinygemm_m16n8k16_chunk_kernel');
    expect(selectGemm(gateUp(16), 'triton').name).toMatch(/^triton_splitk_w4a16_/);
    // mma.sync on Hopper: the fused kernel's matrix FLOPs cost more than wgmma's
    expect(selectGemm(gateUp(16)).matrixFlopsScale).toBeGreaterThan(1);
  });
});
