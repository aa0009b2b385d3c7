import { dramBandwidthAtInFlight, loadBackend } from '@fleet/core';
import { runConformanceSuite } from '@fleet/core/conformance';
import { H100_CALIBRATION, H100_SXM5, NVJET_DRAM_IN_FLIGHT, tuning as hopperTuning } from '@fleet/family-hopper';
import { describe, expect, it } from 'vitest';
import descriptor from '../src/index.js';
import loaded from '../src/calibration/h200-loaded-latency-ours.json' with { type: 'json' };

runConformanceSuite(descriptor);

describe('h200 descriptor', () => {
  const b = loadBackend(descriptor, 'test');
  // the H100 SXM5: the Hopper family's reference part, whose measurements the H200 borrows
  const ref = { topology: H100_SXM5, tuning: hopperTuning, kernelLibrary: H100_CALIBRATION.kernelLibrary };

  it('is the H100 die with HBM3e: only the memory fields differ', () => {
    expect(b.name).toBe('h200');
    expect(b.topology.memory.hbm.capacityBytes).toBe(141e9);
    expect(b.topology.memory.hbm.peakBandwidthBytesPerNs).toBe(4800);
    expect(b.topology.memory.hbm.achievableBandwidthBytesPerNs).toBeGreaterThan(ref.topology.memory.hbm.achievableBandwidthBytesPerNs);
    expect({ ...b.topology, name: '', description: '', memory: null, sources: null }).toEqual({
      ...ref.topology,
      name: '',
      description: '',
      memory: null,
      sources: null,
    });
    expect(b.tuning).toEqual(ref.tuning);
    // the same kernels, each GEMM's DRAM in-flight carried to the HBM3e
    const s = { m: 1, n: 6144, k: 4096, weightBytes: 2 };
    const [here, there] = [b.kernelLibrary!.gemm(s), ref.kernelLibrary!.gemm(s)];
    expect(here.name).toBe(there.name);
    expect(here.pipeline.dramInFlightBytes).toBeGreaterThan(there.pipeline.dramInFlightBytes!);
    expect(b.kernelLibrary!.decodeAttention).toBe(ref.kernelLibrary!.decodeAttention);
  });

  it('queues less at the DRAM than the H100, as its own loaded-latency sweep measured', () => {
    const q = b.topology.memory.hbm.loadedLatency!;
    expect(q).toEqual({ queueNs: loaded.fit.queueNs, saturationBytesPerNs: loaded.fit.saturationBytesPerNs });
    expect(loaded.env.gpu).toContain('H200');
    expect(q.saturationBytesPerNs).toBeGreaterThan(ref.topology.memory.hbm.loadedLatency!.saturationBytesPerNs);
    // the fit describes the sweep it came from
    expect(loaded.fit.rmsRelativeError).toBeLessThan(0.03);
  });

  it('the same GEMV CTAs (same SMs, same bytes in flight) get more bandwidth from HBM3e than from the H100 HBM3', () => {
    // 128 nvjet CTAs of the gate_up GEMV at M = 1, each with its DRAM bytes in flight. Under a
    // constant latency both devices would give them the same bandwidth.
    const w = 128 * NVJET_DRAM_IN_FLIGHT;
    const onH200 = dramBandwidthAtInFlight(b.topology.memory.hbm, w);
    const onH100 = dramBandwidthAtInFlight(ref.topology.memory.hbm, w);
    expect(onH200).toBeGreaterThan(1.1 * onH100);
    expect(onH200).toBeLessThan(b.topology.memory.hbm.loadedLatency!.saturationBytesPerNs);
  });

  it('ships in an HGX H200 node with NVLink through NVSwitch', () => {
    expect(b.node?.topology.device).toBe('h200');
    expect(b.node?.topology.interconnect.kind).toBe('switch');
    expect(b.node!.topology.interconnect.linksPerDevice * b.node!.topology.interconnect.linkBytesPerNsPerDirection).toBe(450);
  });
});
