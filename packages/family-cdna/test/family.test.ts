import { API_VERSION, type KernelLibrary, type NodeTopology, type RooflineParams, type Topology } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import { MI300X_LATENCY_CYCLES, cdnaBackend, cdnaRuntimeCosts, cdnaTuning, cyclesToNs, rcclCdna } from '../src/index.js';

describe('CDNA family', () => {
  it('rejects a nonsensical worker count', () => {
    expect(() => cdnaTuning(0)).toThrow(RangeError);
  });

  it('runs the megakernels as workers + one scheduler per XCD, naming no policy', () => {
    const t = cdnaTuning(31);
    expect(t.persistent).toEqual({ workersPerPartition: 31, schedulersPerPartition: 1, linearGrid: 'mpk-rocm' });
    expect(t.policies).toBeUndefined();
  });

  it('derives dispatch and fetch from two L2 round trips at the part clock', () => {
    const r = cdnaRuntimeCosts(MI300X_LATENCY_CYCLES, 2.1);
    expect(r.dispatchNs).toBe(cyclesToNs(224 + 205, 2.1));
    expect(r.fetchNs).toBe(r.dispatchNs);
    expect(r.derivation.fetchNs).toMatch(/429 cycles at 2.1 GHz/);
  });

  it("turns a device into a descriptor under core's API version (the device packages load and conform it)", () => {
    const d = cdnaBackend({
      name: 'cdna-test',
      topology: {} as Topology,
      params: {} as RooflineParams,
      kernelLibrary: {} as KernelLibrary,
      tuning: cdnaTuning(1),
      node: { topology: {} as NodeTopology, library: rcclCdna },
    });
    expect(d.name).toBe('cdna-test');
    expect(d.apiVersion).toBe(API_VERSION);
  });
});

describe('CDNA W8A8 FP8', () => {
  it('gfx942 takes the FNUZ encodings and gfx950 the OCP ones', async () => {
    const { cdnaFp8Refusal } = await import('../src/index.js');
    const ocp = { weights: 'f8e4m3', activations: 'f8e4m3', scales: 'tensor' as const };
    const fnuz = { weights: 'f8e4m3fnuz', activations: 'f8e5m2fnuz', scales: 'channel' as const };
    expect(cdnaFp8Refusal('gfx942', fnuz)).toBeNull();
    expect(cdnaFp8Refusal('gfx942', ocp)).toMatch(/FNUZ/);
    expect(cdnaFp8Refusal('gfx950', ocp)).toBeNull();
    expect(cdnaFp8Refusal('gfx950', fnuz)).toMatch(/OCP/);
  });
});
