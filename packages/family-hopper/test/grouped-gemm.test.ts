import { describe, expect, it } from 'vitest';
import { inFlightFromRate } from '@fleet/core';
import { CUTLASS_GROUPED, CUTLASS_GROUPED_DRAM_IN_FLIGHT, KSWEEP, NVJET_DRAM_IN_FLIGHT, selectGroupedGemm, H100_SXM5 as topology } from '../src/index.js';

describe("CUTLASS's grouped GEMM (torch._grouped_mm)", () => {
  it("keeps the TMA producer's DRAM bytes of the K sweep outstanding, whatever its stage holds", () => {
    // Over the same 128 CTAs, 25 KiB stages (192x8) stream no faster than 9 KiB ones (64x8).
    const at128 = KSWEEP.fits.filter((f) => f.ctas === 128 && f.m <= 8);
    const inFlight = (tile: string) =>
      at128.filter((f) => f.kernel.includes(`_${tile}_`)).map((f) => inFlightFromRate(topology.memory.hbm, (f.TBps * 1000) / f.ctas, f.TBps * 1000));
    expect(Math.max(...inFlight('192x8'))).toBeLessThan(Math.min(...inFlight('64x8')) * 1.1);
    expect(CUTLASS_GROUPED_DRAM_IN_FLIGHT).toBe(NVJET_DRAM_IN_FLIGHT);
    // Less than the CTA's own half of one multicast weight stage, let alone its 4-stage ring.
    expect(CUTLASS_GROUPED_DRAM_IN_FLIGHT).toBeLessThan((CUTLASS_GROUPED.tileCols / CUTLASS_GROUPED.clusterRows) * CUTLASS_GROUPED.kTile * 2);
  });

  it('the decode and prefill configurations share the producer, so the bytes outstanding', () => {
    const decode = selectGroupedGemm({ groups: [1, 4, 16], n: 1536, k: 2048, weightBytes: 2, numGroups: 128 });
    const prefill = selectGroupedGemm({ groups: [512, 700], n: 1536, k: 2048, weightBytes: 2, numGroups: 128 });
    expect(decode.name).toContain('pingpong_64x128x128');
    expect(prefill.name).toContain('cooperative_128x256x64');
    expect(decode.pipeline.dramInFlightBytes).toBe(CUTLASS_GROUPED_DRAM_IN_FLIGHT);
    expect(prefill.pipeline.dramInFlightBytes).toBe(CUTLASS_GROUPED_DRAM_IN_FLIGHT);
  });
});
