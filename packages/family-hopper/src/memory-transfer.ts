/**
 * The kernel library on a device whose memory is not the one it was calibrated on.
 *
 * The GEMM kernels' DRAM in-flight (`dramInFlightBytes`) was derived by Little's law from
 * kernels measured on an H100: each sweep fit's stream reached a share of the H100's
 * saturation bandwidth (83–92%), and the loaded latency at that share gave the bytes. The
 * same kernels on an H200 (same GH100 die, HBM3e) reach the same share of the H200's
 * saturation bandwidth, not the same bytes: Little's law over our H200 K-sweep gives
 * 18–23 KB per CTA where the H100's gives 13–18 (`bench/results/h200-ksweep*`). What limits
 * the stream is on the memory's side — a CTA's TMA ring holds 100–200 KB — and scales with
 * it. So a kernel's outstanding bytes transfer to another memory at the same utilisation:
 * W = ρ·Xs·L(ρ·Xs) on each memory's own loaded-latency curve.
 */
import { loadedDramLatencyNs, type GemmKernel, type HbmSpec, type KernelLibrary, type TilePipeline } from '@fleet/core';
import { KSWEEP } from './reference/calibration.js';
import { median } from './stats.js';
import { H100_SXM5 } from './reference/topology.js';

/** The memory the library's kernels were measured on. */
const CALIBRATION_HBM = H100_SXM5.memory.hbm;

/** Bytes in flight in all that keep `hbm` delivering `utilisation` of its saturation bandwidth. */
function inFlightAtUtilisation(hbm: HbmSpec, utilisation: number): number {
  const saturation = hbm.loadedLatency?.saturationBytesPerNs ?? hbm.achievableBandwidthBytesPerNs;
  const x = utilisation * saturation;
  return x * loadedDramLatencyNs(hbm, x);
}

/**
 * DER: how many times the calibrated DRAM in-flight a kernel keeps outstanding on `hbm` — the
 * median, over the H100 K-sweep's fits, of the in-flight at each fit's utilisation on `hbm`
 * over that on the H100. 1 on the H100; 1.37 on the H200.
 */
export function dramInFlightScale(hbm: HbmSpec): number {
  if (hbm === CALIBRATION_HBM) return 1;
  const saturation = CALIBRATION_HBM.loadedLatency!.saturationBytesPerNs;
  return median(KSWEEP.fits.map((f) => (f.TBps * 1000) / saturation).map((u) => inFlightAtUtilisation(hbm, u) / inFlightAtUtilisation(CALIBRATION_HBM, u)));
}

function scaled<K extends { pipeline: TilePipeline }>(kernel: K, scale: number): K {
  const w = kernel.pipeline.dramInFlightBytes;
  return w === undefined ? kernel : { ...kernel, pipeline: { ...kernel.pipeline, dramInFlightBytes: Math.round(w * scale) } };
}

/**
 * `library` as it runs on a device with memory `hbm`: the same selections (cuBLASLt's heuristic
 * is the library's, not the device's), each GEMM's DRAM in-flight transferred to the device's
 * memory. The library itself where the memory is the calibration's.
 *
 * CUTLASS's grouped GEMM keeps its calibrated bytes: our H200 MoE sweep runs it at the H100's
 * in-flight (`fleet validate --suite h200-moe`, 31 of 39 within 10% untransferred, 11 with
 * the transfer), so its stream is the kernel's own limit — one producer warp's four stages
 * against nvjet's ring of up to sixteen. So does the row-wise FP8 kernel (per-channel scales):
 * its stream is held back on the die, by its activation box's boundary check
 * (`rowwiseDramInFlight`), and our H200 sweep times it as the H100's at M = 1 and 16 (within
 * 8% at every shape) where a memory-side limit would have run faster.
 */
export function kernelLibraryOn(library: KernelLibrary, hbm: HbmSpec): KernelLibrary {
  const scale = dramInFlightScale(hbm);
  if (scale === 1) return library;
  return { ...library, gemm: (s): GemmKernel => (s.fp8?.scales === 'channel' ? library.gemm(s) : scaled(library.gemm(s), scale)) };
}
