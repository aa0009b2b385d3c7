import { API_VERSION, type KernelLibrary, type NodeTopology, type RooflineParams, type Topology } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import { MI300X_LATENCY_CYCLES, cdnaBackend, cdnaPolicies, cdnaRuntimeCosts, cyclesToNs, rcclCdna } from '../src/index.js';

describe('CDNA family', () => {
  it('rejects a nonsensical worker count', () => {
    expect(() => cdnaPolicies(0)).toThrow(RangeError);
  });

  it('runs FLEET as workers + one scheduler per XCD, and has no clusters', () => {
    const p = cdnaPolicies(31);
    expect(p.find((q) => q.policy === 'fleet-mtile')).toMatchObject({ workersPerPartition: 31, schedulersPerPartition: 1 });
    expect(p.find((q) => q.policy === 'clusterfusion')!.unsupportedReason).toMatch(/cluster/i);
  });

  it('derives dispatch and fetch from two L2 round trips at the part clock', () => {
    const r = cdnaRuntimeCosts(MI300X_LATENCY_CYCLES, 2.1);
    expect(r.dispatchNs).toBe(cyclesToNs(224 + 205, 2.1));
    expect(r.fetchNs).toBe(r.dispatchNs);
    expect(r.derivation.fetchNs).toMatch(/429 cycles at 2.1 GHz/);
  });

  it('turns a device into a descriptor under core\'s API version (the device packages load and conform it)', () => {
    const d = cdnaBackend({ name: 'cdna-test', topology: {} as Topology, params: {} as RooflineParams, kernelLibrary: {} as KernelLibrary, policies: cdnaPolicies(1), node: { topology: {} as NodeTopology, library: rcclCdna } });
    expect(d.name).toBe('cdna-test');
    expect(d.apiVersion).toBe(API_VERSION);
  });
});
