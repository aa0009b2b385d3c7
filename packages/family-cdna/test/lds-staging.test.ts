import type { RooflineParams, Tile, Topology } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import { CDNA4_CU, CdnaCostModel, MEGAKERNEL_GEMM_TILE, ldsBytesPerFlop, ldsStagingNs, megakernelLdsStaging, megakernelPipeline } from '../src/index.js';

const topology = { computeUnit: { matrixFlopsPerNs: { bf16: 9011.2 }, vectorFlopsPerNs: 563.2 } } as unknown as Topology;
const params = { matrixEfficiency: 0.45, vectorEfficiency: 0.5, tileOverheadNs: { default: 300 } } as unknown as RooflineParams;

describe('LDS staging of the megakernel GEMM tile', () => {
  it('moves (rows + cols) written and (waves · rows + cols) read per K element: 208 / 1024 B/FLOP for 16 × 64 over four waves', () => {
    expect(ldsBytesPerFlop(MEGAKERNEL_GEMM_TILE)).toBeCloseTo(208 / 1024, 12);
    // Splitting K instead (each wave its own A and B slice) reads every byte once.
    expect(ldsBytesPerFlop({ rows: 16, cols: 64, wavesAlongN: 1 })).toBeCloseTo(160 / 1024, 12);
  });

  it('is charged on linear tiles of a pipeline that stages, not on attention or on other pipelines', () => {
    const cm = new CdnaCostModel(topology, params);
    const s = megakernelLdsStaging(256, 2.2);
    const pipe = megakernelPipeline(CDNA4_CU, { ldsStaging: s });
    const tile: Tile = { reads: [], writes: [], flops: 2 * 16 * 64 * 4096, unit: 'matrix' };
    const mfma = cm.tileComputeNs(tile, 'linear', 'chiplet');
    expect(cm.tileComputeNs(tile, 'linear', 'chiplet', pipe)).toBeCloseTo(mfma + ldsStagingNs(tile.flops, s), 9);
    // 1.70 MB of LDS traffic at 563 B/ns ≈ 3.0 µs beside ≈ 2.1 µs of MFMAs at 45% of peak.
    expect(ldsStagingNs(tile.flops, s)).toBeCloseTo(3025, 0);
    expect(cm.tileComputeNs(tile, 'attention', 'cu', pipe)).toBe(mfma);
    expect(cm.tileComputeNs(tile, 'linear', 'chiplet', megakernelPipeline(CDNA4_CU))).toBe(mfma);
  });

  it('refuses a bandwidth or clock that is not positive', () => {
    expect(() => megakernelLdsStaging(0, 2.2)).toThrow(RangeError);
    expect(() => megakernelLdsStaging(256, Number.NaN)).toThrow(RangeError);
  });
});
