import { topology as mi300x } from '@fleet/backend-mi300x';
import { coherenceScope, loadBackend, partitionCount, totalComputeUnits, validateTopology } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import descriptor, { params, topology, tuning } from '../src/index.js';
import { CLUSTERFUSION, FLEET_MSPLIT, FLEET_MTILE, MIRAGE, unsupportedReason } from '../../ops/src/index.js';
import { numericLeafPointers, PROVENANCE_TAG as TAG, resolvePointer } from '@fleet/core/conformance';

const relErr = (a: number, b: number) => Math.abs(a - b) / b;

describe('mi350 topology', () => {
  it('passes core validation', () => {
    expect(() => validateTopology(topology, 'test')).not.toThrow();
  });

  it('has 256 CUs in 8 XCDs of 32', () => {
    expect(totalComputeUnits(topology)).toBe(256);
    expect(partitionCount(topology)).toBe(8);
    expect(new Set(topology.partitions.computeUnits)).toEqual(new Set([32]));
  });

  it('matches the MI350X peaks within 1% (bf16 2306.9 DER, FP32 vector 144.2 TFLOP/s DS)', () => {
    const cus = totalComputeUnits(topology);
    expect(relErr((topology.computeUnit.matrixFlopsPerNs.bf16 * cus) / 1000, 2306.9)).toBeLessThan(0.01);
    expect(relErr((topology.computeUnit.vectorFlopsPerNs * cus) / 1000, 144.2)).toBeLessThan(0.01);
    // twice CDNA3's per-CU matrix rate per clock
    expect(topology.computeUnit.matrixFlopsPerNs.bf16 / topology.clockGHz).toBeCloseTo(
      (2 * mi300x.computeUnit.matrixFlopsPerNs.bf16) / mi300x.clockGHz,
      6,
    );
  });

  it('uses the paper-stated 5.3 TB/s HBM and 160 KiB LDS', () => {
    expect(topology.memory.hbm.achievableBandwidthBytesPerNs).toBe(5300);
    expect(topology.memory.hbm.peakBandwidthBytesPerNs).toBe(8000);
    expect(topology.computeUnit.sharedMemoryBytes).toBe(160 * 1024);
    expect(topology.memory.l2.capacityBytes).toBe(4 * 1024 * 1024);
    expect(topology.memory.llc!.capacityBytes).toBe(256 * 1024 * 1024);
  });

  it('reuses the CDNA coherence scopes, latencies at its own clock', () => {
    expect(topology.coherence.map((c) => c.scope)).toEqual(mi300x.coherence.map((c) => c.scope));
    expect(topology.coherence.map((c) => c.atomicResolvesAt)).toEqual(mi300x.coherence.map((c) => c.atomicResolvesAt));
    // same cycle count, faster clock
    expect(topology.memory.l2.latencyNs).toBeLessThan(mi300x.memory.l2.latencyNs);
    expect(topology.memory.l2.latencyNs * topology.clockGHz).toBeCloseTo(mi300x.memory.l2.latencyNs * mi300x.clockGHz, 0);
    expect(coherenceScope(topology, 'chiplet').atomicLatencyNs).toBe(95);
    expect(coherenceScope(topology, 'device').release.writeBackDirty).toBe(true);
    expect(topology.levels).toEqual(mi300x.levels);
  });

  it('gives every numeric field a tagged source, and every source names a field', () => {
    const keys = Object.keys(topology.sources);
    expect(numericLeafPointers(topology).filter((p) => !keys.includes(p))).toEqual([]);
    expect(keys.filter((k) => resolvePointer(topology, k) === undefined)).toEqual([]);
    expect(Object.entries(topology.sources).filter(([, s]) => !TAG.test(s))).toEqual([]);
  });
});

describe('mi350 policies and costs', () => {
  it('runs FLEET as 8 × 31 workers + 8 schedulers = 256 CUs', () => {
    const p = tuning.persistent!;
    expect(p.workersPerPartition).toBe(31);
    expect(8 * p.workersPerPartition! + 8 * p.schedulersPerPartition!).toBe(256);
    const b = loadBackend(descriptor, 'test');
    for (const policy of [MIRAGE, FLEET_MTILE, FLEET_MSPLIT]) expect(unsupportedReason(b, policy)).toBeNull();
    expect(unsupportedReason(b, CLUSTERFUSION)).toBeTruthy();
  });

  it('exposes its cost parameters through the loaded cost model', () => {
    const { costModel } = loadBackend(descriptor, 'test');
    expect(costModel.hardwareDispatch).toBe('round-robin-partition');
    expect(costModel.endOfKernel.writeBackL2).toBe(true);
    expect(costModel.dispatchNs).toBe(params.dispatchNs);
    // (224 + 205) cycles at 2.2 GHz
    expect(costModel.fetchNs).toBeCloseTo(195, 0);
    const flops = 2 * 16 * 64 * 256;
    expect(costModel.tileComputeNs({ reads: [], writes: [], flops, unit: 'matrix' }, 'linear', 'cu')).toBeCloseTo(
      flops / (4096 * 2.2 * params.matrixEfficiency),
      6,
    );
  });
});
