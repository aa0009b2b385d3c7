import { coherenceScope, loadBackend, partitionCount, totalComputeUnits, validateTopology } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import descriptor, { cdnaTuning, params, topology, tuning } from '../src/index.js';
import { CLUSTERFUSION, FLEET_MSPLIT, FLEET_MTILE, MIRAGE, unsupportedReason } from '../../ops/src/index.js';
import { numericLeafPointers, PROVENANCE_TAG as TAG, resolvePointer } from '@fleet/core/conformance';

const relErr = (a: number, b: number) => Math.abs(a - b) / b;

describe('mi300x topology', () => {
  it('passes core validation', () => {
    expect(() => validateTopology(topology, 'test')).not.toThrow();
  });

  it('has 304 CUs in 8 XCDs of 38', () => {
    expect(totalComputeUnits(topology)).toBe(304);
    expect(partitionCount(topology)).toBe(8);
    expect(new Set(topology.partitions.computeUnits)).toEqual(new Set([38]));
  });

  it('matches the datasheet peaks within 1% (S2: bf16 1307.4, fp8 2614.9, fp32 vector 163.4 TFLOP/s)', () => {
    const cus = totalComputeUnits(topology);
    // FLOP/ns per CU × CUs = GFLOP/s; / 1000 = TFLOP/s
    expect(relErr((topology.computeUnit.matrixFlopsPerNs.bf16 * cus) / 1000, 1307.4)).toBeLessThan(0.01);
    expect(relErr((topology.computeUnit.matrixFlopsPerNs.fp8! * cus) / 1000, 2614.9)).toBeLessThan(0.01);
    expect(relErr((topology.computeUnit.vectorFlopsPerNs * cus) / 1000, 163.4)).toBeLessThan(0.01);
  });

  it('keeps the memory hierarchy ordered', () => {
    const { l2, llc, hbm } = topology.memory;
    expect(l2.organisation).toBe('per-partition');
    expect(l2.capacityBytes * partitionCount(topology)).toBe(32 * 1024 * 1024);
    expect(llc?.memorySide).toBe(true);
    expect(topology.computeUnit.l1.latencyNs).toBeLessThan(l2.latencyNs);
    expect(l2.latencyNs).toBeLessThan(llc!.latencyNs);
    expect(llc!.latencyNs).toBeLessThan(hbm.latencyNs);
    expect(hbm.achievableBandwidthBytesPerNs).toBeLessThan(hbm.peakBandwidthBytesPerNs);
    expect(hbm.achievableBandwidthBytesPerNs).toBe(4200);
  });

  it('resolves XCD-local atomics in the L2 and device atomics at the MALL, with a write-back release', () => {
    const chiplet = coherenceScope(topology, 'chiplet');
    const device = coherenceScope(topology, 'device');
    expect(chiplet.atomicResolvesAt).toBe('l2');
    expect(chiplet.release.writeBackDirty).toBe(false);
    expect(device.atomicResolvesAt).toBe('llc');
    expect(device.release.writeBackDirty).toBe(true);
    expect(device.acquire.invalidates).toBe(true);
    expect(device.atomicLatencyNs).toBeGreaterThanOrEqual(topology.memory.llc!.latencyNs);
    expect(device.release.fixedNs).toBeGreaterThan(chiplet.release.fixedNs);
  });

  it('gives every numeric field a tagged source, and every source names a field', () => {
    const keys = Object.keys(topology.sources);
    const missing = numericLeafPointers(topology).filter((p) => !keys.includes(p));
    expect(missing).toEqual([]);
    const dangling = keys.filter((k) => resolvePointer(topology, k) === undefined);
    expect(dangling).toEqual([]);
    const untagged = Object.entries(topology.sources).filter(([, s]) => !TAG.test(s));
    expect(untagged).toEqual([]);
  });
});

describe('mi300x policies and costs', () => {
  it('runs FLEET as 8 × 37 workers + 8 schedulers = 304 CUs', () => {
    const p = tuning.persistent!;
    expect(8 * (p.workersPerPartition! + p.schedulersPerPartition!)).toBe(totalComputeUnits(topology));
    const b = loadBackend(descriptor, 'test');
    for (const policy of [MIRAGE, FLEET_MTILE, FLEET_MSPLIT]) expect(unsupportedReason(b, policy)).toBeNull();
    expect(unsupportedReason(b, CLUSTERFUSION)).toMatch(/cluster/i);
  });

  it('rejects a nonsensical worker count', () => {
    expect(() => cdnaTuning(0)).toThrow(RangeError);
  });

  it('exposes the cost parameters through the loaded cost model', () => {
    const { costModel } = loadBackend(descriptor, 'test');
    expect(costModel.hardwareDispatch).toBe('round-robin-partition');
    expect(costModel.endOfKernel.writeBackL2).toBe(true);
    // the eager issue interval is vLLM's (calibrated), never below the bare HIP launch (≈ 4.0 µs, S17)
    expect(costModel.launch.eagerNs).toBeGreaterThanOrEqual(4000);
    // the runtime charges barrier + graph node between dependent kernels: together the
    // measured 1.54 µs hipGraph gap (S16)
    expect(costModel.endOfKernel.barrierNs + costModel.launch.graphNodeNs).toBe(1540);
    expect(costModel.dispatchNs).toBe(params.dispatchNs);
    // 429 cycles at 2.1 GHz
    expect(costModel.fetchNs).toBeCloseTo(204.3, 1);
    const flops = 2 * 16 * 64 * 256;
    const ns = costModel.tileComputeNs({ reads: [], writes: [], flops, unit: 'matrix' }, 'linear', 'cu');
    expect(ns).toBeCloseTo(flops / (2048 * 2.1 * params.matrixEfficiency), 6);
    expect(costModel.tileOverheadNs('attention')).toBe(300);
  });
});
