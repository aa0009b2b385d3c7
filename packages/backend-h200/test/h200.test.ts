import { loadBackend } from '@fleet/core';
import { runConformanceSuite } from '@fleet/core/conformance';
import h100 from '@fleet/backend-h100';
import { describe, expect, it } from 'vitest';
import descriptor from '../src/index.js';
import sweep from '../src/measured/h200-pipeline-ours.json' with { type: 'json' };

runConformanceSuite(descriptor);

describe('h200 descriptor', () => {
  const b = loadBackend(descriptor, 'test');
  const ref = loadBackend(h100, 'test');

  it('is the H100 die with HBM3e: only the memory fields differ', () => {
    expect(b.name).toBe('h200');
    expect(b.topology.memory.hbm.capacityBytes).toBe(141e9);
    expect(b.topology.memory.hbm.peakBandwidthBytesPerNs).toBe(4800);
    expect(b.topology.memory.hbm.achievableBandwidthBytesPerNs).toBeGreaterThan(ref.topology.memory.hbm.achievableBandwidthBytesPerNs);
    expect({ ...b.topology, name: '', description: '', memory: null, sources: null }).toEqual({ ...ref.topology, name: '', description: '', memory: null, sources: null });
    expect(b.policies.map((p) => p.policy)).toEqual(ref.policies.map((p) => p.policy));
    expect(b.kernelLibrary).toBe(ref.kernelLibrary);
  });

  it('takes its achievable HBM bandwidth from the one calibration point of the sweep, and nothing from the decode numbers', () => {
    expect(b.topology.memory.hbm.achievableBandwidthBytesPerNs).toBe(Math.round(sweep.env.sumReadTBps * 1000));
    expect(b.topology.memory.l2.capacityBytes).toBe(sweep.env.l2Bytes);
  });

  it('ships in an HGX H200 node with NVLink through NVSwitch', () => {
    expect(b.node?.topology.device).toBe('h200');
    expect(b.node?.topology.interconnect.kind).toBe('switch');
    expect(b.node!.topology.interconnect.linksPerDevice * b.node!.topology.interconnect.linkBytesPerNsPerDirection).toBe(450);
  });
});
