import { describe, expect, it } from 'vitest';
import { dramBandwidthAtInFlight, inFlightFromRate, type HbmSpec } from '@fleet/core';
import { dramInFlightScale, H100_SXM5, kernelLibrary, kernelLibraryOn, KSWEEP } from '../src/index.js';

const h100 = H100_SXM5.memory.hbm;
const saturation = (m: HbmSpec) => m.loadedLatency!.saturationBytesPerNs;
/** A faster memory behind the same die: HBM3e at the H200's fitted curve (same chase latency). */
const hbm3e: HbmSpec = { ...h100, achievableBandwidthBytesPerNs: 4289, loadedLatency: { queueNs: 28, saturationBytesPerNs: 4826 } };

describe('the kernel library on another memory', () => {
  it('is the calibrated library itself on the memory it was measured on', () => {
    expect(dramInFlightScale(h100)).toBe(1);
    expect(kernelLibraryOn(kernelLibrary, h100)).toBe(kernelLibrary);
  });

  it('transfers a GEMM stream at the utilisation it reached: the same share of either memory', () => {
    const scale = dramInFlightScale(hbm3e);
    expect(scale).toBeGreaterThan(1.2);
    for (const f of KSWEEP.fits.filter((x) => x.m <= 8)) {
      // The bytes the fit's whole grid kept in flight on the H100, by Little's law at its load.
      const w = inFlightFromRate(h100, f.TBps * 1000, f.TBps * 1000);
      const here = dramBandwidthAtInFlight(h100, w) / saturation(h100);
      const there = dramBandwidthAtInFlight(hbm3e, w * scale) / saturation(hbm3e);
      expect(Math.abs(there - here)).toBeLessThan(0.03);
    }
  });

  it('keeps the selection and scales only the DRAM in-flight of the GEMMs', () => {
    const on = kernelLibraryOn(kernelLibrary, hbm3e);
    const s = { m: 1, n: 6144, k: 4096, weightBytes: 2 };
    const [a, b] = [kernelLibrary.gemm(s), on.gemm(s)];
    expect(b.name).toBe(a.name);
    expect(b.pipeline.inFlightBytes).toBe(a.pipeline.inFlightBytes);
    expect(b.pipeline.dramInFlightBytes).toBe(Math.round(a.pipeline.dramInFlightBytes! * dramInFlightScale(hbm3e)));
    expect(on.groupedGemm).toBe(kernelLibrary.groupedGemm);
  });

  it('leaves the row-wise FP8 kernel its calibrated bytes: its stream is held back on the die', () => {
    const on = kernelLibraryOn(kernelLibrary, hbm3e);
    const s = { m: 1, n: 6144, k: 4096, weightBytes: 1, fp8: { weights: 'f8e4m3', activations: 'f8e4m3', scales: 'channel' } } as const;
    expect(on.gemm(s)).toEqual(kernelLibrary.gemm(s));
    const t = { ...s, fp8: { ...s.fp8, scales: 'tensor' } } as const;
    expect(on.gemm(t).pipeline.dramInFlightBytes).toBe(Math.round(kernelLibrary.gemm(t).pipeline.dramInFlightBytes! * dramInFlightScale(hbm3e)));
  });
});
