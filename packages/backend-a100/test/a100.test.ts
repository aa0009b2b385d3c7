import { loadBackend } from '@fleet/core';
import { runConformanceSuite } from '@fleet/core/conformance';
import { describe, expect, it } from 'vitest';
import descriptor from '../src/index.js';

runConformanceSuite(descriptor);

describe('a100 descriptor', () => {
  const b = loadBackend(descriptor, 'test');

  it('is the A100 SXM4 80 GB of its datasheet: 108 SMs, 40 MB L2, 2.039 TB/s, 312 TFLOP/s', () => {
    expect(b.name).toBe('a100');
    expect(b.topology.partitions.computeUnits.reduce((a, c) => a + c, 0)).toBe(108);
    expect(b.topology.memory.l2.capacityBytes).toBe(40 * 2 ** 20);
    expect(b.topology.memory.hbm.peakBandwidthBytesPerNs).toBe(2039);
    expect(b.topology.computeUnit.matrixFlopsPerNs.fp16 * 108).toBeCloseTo(312000, 0);
    expect(b.topology.computeUnit.matrixFlopsPerNs.fp8).toBeUndefined();
  });

  it('has no thread-block clusters: its chiplet level is the SM, and no cluster collectives or node are bound', () => {
    expect(b.topology.levels.chiplet.unit).toBe('sm');
    expect(b.collectives).toHaveLength(0);
    expect(b.node).toBeUndefined();
  });

  it("runs a Tilus-style u4 GEMM at M = 16 faster than its dense fp16 GEMM, by less than the bytes' ratio", () => {
    const lib = b.kernelLibrary!;
    const q = lib.gemm({ m: 16, n: 57344, k: 8192, weightBytes: 0.5, quant: { bits: 4, kind: 'uint', group: 128, zeroPoint: false } });
    expect(q.name).toMatch(/^tilus_matmul_f16xu4_/);
    expect(lib.gemm({ m: 16, n: 57344, k: 8192, weightBytes: 2 }).name).toMatch(/^cutlass_80_tensorop_f16_s16816gemm_/);
  });
});
