import { describe, expect, it } from 'vitest';
import { CUTLASS_GROUPED, CUTLASS_GROUPED_DRAM_IN_FLIGHT, NVJET_DRAM_IN_FLIGHT, selectGroupedGemm } from '../src/index.js';

describe("CUTLASS's grouped GEMM (torch._grouped_mm)", () => {
  it("keeps the K sweep's latency-limited bytes outstanding: less than its own half of one weight stage, far below its ring", () => {
    expect(CUTLASS_GROUPED_DRAM_IN_FLIGHT).toBe(NVJET_DRAM_IN_FLIGHT);
    const ownHalf = (CUTLASS_GROUPED.tileCols / CUTLASS_GROUPED.clusterRows) * CUTLASS_GROUPED.kTile * 2;
    expect(ownHalf).toBe(16 * 1024);
    expect(CUTLASS_GROUPED_DRAM_IN_FLIGHT).toBeLessThan(ownHalf);
    expect(CUTLASS_GROUPED_DRAM_IN_FLIGHT).toBeLessThan(CUTLASS_GROUPED.stages * ownHalf);
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
