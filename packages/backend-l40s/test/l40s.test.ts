import { loadBackend } from '@fleet/core';
import { runConformanceSuite } from '@fleet/core/conformance';
import { describe, expect, it } from 'vitest';
import descriptor from '../src/index.js';

runConformanceSuite(descriptor);

describe('l40s descriptor', () => {
  const b = loadBackend(descriptor, 'test');

  it('is the L40S of its datasheet: 142 SMs, 48 MB L2, 864 GB/s GDDR6, 362 TFLOP/s fp16, FP8', () => {
    expect(b.name).toBe('l40s');
    expect(b.topology.partitions.computeUnits.reduce((a, c) => a + c, 0)).toBe(142);
    expect(b.topology.memory.l2.capacityBytes).toBe(48 * 2 ** 20);
    expect(b.topology.memory.hbm.peakBandwidthBytesPerNs).toBe(864);
    expect(b.topology.computeUnit.matrixFlopsPerNs.fp16 * 142).toBeCloseTo(362050, 0);
    expect(b.topology.computeUnit.matrixFlopsPerNs.fp8! * 142).toBeCloseTo(733000, 0);
  });

  it('has no clusters and no NVLink: chiplet level the SM, no node', () => {
    expect(b.topology.levels.chiplet.unit).toBe('sm');
    expect(b.node).toBeUndefined();
  });
});
