import { validateTopology } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import { sm80KernelLibrary, sm80Topology, type Sm80DeviceSpec } from '../src/index.js';

/** A made-up sm80 part: the family must build any spec, not only the shipped ones. */
const spec: Sm80DeviceSpec = {
  name: 'sm80-test',
  description: 'a test part',
  clockGHz: 1.5,
  smsPerGpc: [10, 10],
  sharedPerSm: 100 * 1024,
  sharedPerCta: 99 * 1024,
  maxWarpsPerSm: 48,
  maxBlocksPerSm: 24,
  fp32Lanes: 128,
  fp16Tflops: 100,
  l2Bytes: 8 * 2 ** 20,
  l2BytesPerClk: 2048,
  l2Halves: 1,
  l2LatencyCycles: 250,
  l2FarExtraCycles: 0,
  dramBytes: 16e9,
  dramPeakBytesPerNs: 500,
  dramAchievableBytesPerNs: 450,
  dramLatencyNs: 500,
  mirage: { workersPerPartition: 9, globalSchedulers: 8 },
  sources: {},
};

describe('family-ampere', () => {
  it('builds a valid topology whose chiplet level is the SM (no clusters)', () => {
    const t = sm80Topology(spec);
    expect(() => validateTopology(t, 'sm80-test')).not.toThrow();
    expect(t.levels.chiplet.unit).toBe('sm');
    expect(t.computeUnit.matrixFlopsPerNs.fp16 * 20).toBeCloseTo(100_000, 6);
    expect(t.computeUnit.matrixFlopsPerNs.fp8).toBeUndefined();
  });

  it("its library runs dense GEMMs as autotuned sm80 kernels and quantized weights as Tilus's (or Triton's) kernels", () => {
    const t = sm80Topology(spec);
    const lib = sm80KernelLibrary(spec, t);
    const q = { bits: 4, kind: 'int' as const, group: 128, zeroPoint: false };
    expect(lib.gemm({ m: 8, n: 4096, k: 4096, weightBytes: 2 }).name).toMatch(/^cutlass_80_tensorop_f16_s16816gemm_/);
    expect(lib.gemm({ m: 8, n: 4096, k: 4096, weightBytes: 0.5, quant: q }).name).toMatch(/^tilus_matmul_f16xi4_/);
    expect(sm80KernelLibrary(spec, t, 'triton').gemm({ m: 8, n: 4096, k: 4096, weightBytes: 0.5, quant: q }).name).toMatch(/^triton_splitk_w4a16_/);
    // mma.sync is the part's own instruction: no extra matrix cost
    expect(lib.gemm({ m: 8, n: 4096, k: 4096, weightBytes: 0.5, quant: q }).matrixFlopsScale).toBeUndefined();
  });
});
