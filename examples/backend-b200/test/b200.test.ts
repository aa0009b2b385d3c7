import { coherenceScope, loadBackend, partitionCount, totalComputeUnits, validateTopology } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import b200, { B200_LATENCY_NS, params, topology, tuning } from '../src/index.js';
import { BUILTIN_POLICIES, unsupportedReason } from '@fleet/ops';
import { numericLeafPointers, PROVENANCE_TAG as TAG, resolvePointer } from '@fleet/core/conformance';

const relErr = (a: number, b: number) => Math.abs(a - b) / b;

describe('b200 topology', () => {
  it('passes core validation', () => {
    expect(() => validateTopology(topology, 'test')).not.toThrow();
  });

  it('has 148 SMs on 2 dies of 74 (S51)', () => {
    expect(totalComputeUnits(topology)).toBe(148);
    expect(partitionCount(topology)).toBe(2);
    expect(topology.partitions).toEqual({ kind: 'die', computeUnits: [74, 74] });
  });

  it('matches the dense peaks within 1% (S53: bf16 2.25 PF, fp8 4.5 PF)', () => {
    const sms = totalComputeUnits(topology);
    expect(relErr((topology.computeUnit.matrixFlopsPerNs.bf16 * sms) / 1e6, 2.25)).toBeLessThan(0.01);
    expect(relErr((topology.computeUnit.matrixFlopsPerNs.fp8! * sms) / 1e6, 4.5)).toBeLessThan(0.01);
  });

  it('models the 126 MB L2 as one coherent cache with one half per die and a cross-die penalty', () => {
    const { l2, llc, hbm } = topology.memory;
    expect(l2.organisation).toBe('shared');
    expect(l2.capacityBytes).toBe(126 * 2 ** 20);
    // One half per partition: core maps die p to half p, so "near" means "on my die".
    expect(l2.halves).toBe(partitionCount(topology));
    expect(l2.latencyNs).toBe(150);
    expect(l2.farExtraLatencyNs!).toBeGreaterThan(0);
    expect(llc).toBeUndefined();
    expect(hbm.peakBandwidthBytesPerNs).toBe(8000);
    expect(hbm.achievableBandwidthBytesPerNs).toBeLessThan(hbm.peakBandwidthBytesPerNs);
  });

  it('counts die-local completions in the near half and device-wide ones at the cross-die average', () => {
    const die = coherenceScope(topology, 'chiplet');
    const device = coherenceScope(topology, 'device');
    expect(topology.levels.chiplet.unit).toBe('die');
    expect(die.atomicResolvesAt).toBe('l2');
    expect(die.atomicLatencyNs).toBe(B200_LATENCY_NS.l2);
    expect(device.atomicLatencyNs).toBeGreaterThan(die.atomicLatencyNs);
    expect(device.atomicLatencyNs).toBeLessThan(die.atomicLatencyNs + B200_LATENCY_NS.l2CrossDieExtra);
    // A coherent L2: no scope writes dirty lines back.
    expect(topology.coherence.every((s) => !s.release.writeBackDirty)).toBe(true);
  });

  it('gives every numeric field a tagged source, and every source names a field', () => {
    const keys = Object.keys(topology.sources);
    expect(numericLeafPointers(topology).filter((p) => !keys.includes(p))).toEqual([]);
    expect(keys.filter((k) => resolvePointer(topology, k) === undefined)).toEqual([]);
    expect(Object.entries(topology.sources).filter(([, s]) => !TAG.test(s))).toEqual([]);
  });
});

describe('b200 policies and costs', () => {
  it('runs Mirage MPK as 128 workers + 80 schedulers, 4 scheduler warps per SM, on 148 SMs', () => {
    const m = tuning.policies!.mirage!.persistent!;
    const workers = m.workersPerPartition! * partitionCount(topology);
    expect(workers).toBe(128);
    expect(m.globalSchedulers).toBe(80);
    // MPK's rule: workers + schedulers / 4 = SMs.
    expect(workers + m.globalSchedulers! / 4).toBe(totalComputeUnits(topology));
  });

  it('runs FLEET with one scheduler SM and the rest workers on each die', () => {
    const p = tuning.persistent!;
    for (const sms of topology.partitions.computeUnits) expect(p.workersPerPartition! + p.schedulersPerPartition!).toBe(sms);
  });

  it('runs every policy its topology allows: all but ClusterFusion (its chiplet level is the die, not a cluster)', () => {
    const b = loadBackend(b200, 'test');
    const refused = BUILTIN_POLICIES.filter((p) => unsupportedReason(b, p) !== null).map((p) => p.name);
    expect(refused).toEqual(['clusterfusion']);
    expect(unsupportedReason(b, BUILTIN_POLICIES.find((p) => p.name === 'clusterfusion')!)).toMatch(/thread-block clusters/);
  });

  it('exposes its cost parameters through the loaded cost model', () => {
    const { costModel } = loadBackend(b200, 'test');
    expect(costModel.hardwareDispatch).toBe('greedy');
    expect(costModel.endOfKernel.writeBackL2).toBe(false);
    expect(costModel.endOfKernel.barrierNs + costModel.launch.graphNodeNs).toBe(1200);
    expect(costModel.dispatchNs).toBe(2 * topology.memory.l2.latencyNs);
    const flops = 2 * 16 * 64 * 256;
    expect(costModel.tileComputeNs({ reads: [], writes: [], flops, unit: 'matrix' }, 'linear', 'cu')).toBeCloseTo(
      flops / ((2250e3 / 148) * params.matrixEfficiency),
      6,
    );
  });
});
