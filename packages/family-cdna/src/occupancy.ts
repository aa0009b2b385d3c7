/**
 * CDNA compute-unit resources and the kernels whose occupancy Fleet derives from them.
 * A persistent megakernel compiles every task type into one function, so it runs at the
 * occupancy of the union of their resources (seeds §FLEET: one wave per SIMD, where every L2
 * miss stalls the MFMA pipe); vendor kernels run at their own.
 */
import { occupancy, unionResources, type ComputeResources, type KernelResources, type TilePipeline } from '@fleet/core';
import type { LdsStaging } from './lds-staging.js';

/** CDNA3 CU (MI300X). */
export const CDNA3_CU: ComputeResources = {
  waveSize: 64, // DS S1
  simds: 4, // DS S1: four SIMD units per CU
  maxWavesPerSimd: 8, // ISA: LLVM AMDGPUBaseInfo.cpp gives 8 waves per SIMD for every gfx90a-family target (gfx942, gfx950); S21's 10 is GCN's
  registersPerSimd: 512 * 64, // DS S1/S20/S21: 512 KiB unified VGPR+AGPR file per CU = 512 regs × 64 lanes per SIMD
  registerGranularity: 8, // ISA (LLVM AMDGPUBaseInfo.cpp): unified VGPRs allocated in steps of 8
  sharedBytes: 64 * 1024, // DS S1: 64 KiB LDS per CU
  maxBlocks: 32, // UNC: workgroups per CU are bounded by the 32 wave slots (8 × 4 SIMDs)
};

/** CDNA4 CU (MI350X/MI355X): the CDNA3 CU with 160 KiB LDS (DS S1b; ISA: LLVM rejects more than 163,840 B per workgroup). */
export const CDNA4_CU: ComputeResources = { ...CDNA3_CU, sharedBytes: 160 * 1024 };

/**
 * Task types of a FLEET / Mirage megakernel on CDNA, as one persistent workgroup of 256
 * threads per CU. UNC (no register report is published): the GEMM task keeps its 16 × 64
 * fp32 accumulators and the double-buffered K-chunk of weights in registers (AGPRs + VGPRs up
 * to the 512-per-lane maximum, DS S20); attention keeps a KV chunk in LDS. FLEET's worker is
 * 256 threads under __launch_bounds__(256, 1) (ROCm/fleet-chiplet-megakernel
 * tasks/common/worker_config.h), so the union gives one wave per SIMD, as the paper says.
 */
export const CDNA_MEGAKERNEL_TASKS: readonly KernelResources[] = [
  { threads: 256, registersPerThread: 512, sharedBytes: 16 * 1024 }, // GEMM/GEMV tile
  { threads: 256, registersPerThread: 128, sharedBytes: 64 * 1024 }, // split-KV attention
  { threads: 256, registersPerThread: 64, sharedBytes: 0 }, // norms, RoPE, SiLU·mul
];

/**
 * CAL: bytes of loads one wave keeps outstanding in the megakernel, solved so that
 * `fleet-mtile` at batch 1 on MI350X reproduces the FLEET paper's 6.82 ms (the dataset's
 * calibration value; `calibration/derive.mjs` in @fleet/backend-mi350 re-derives it) with
 * its GEMM tiles' LDS round trip charged (./lds-staging.ts): ≈ 4 global_load_dwordx4 of
 * 1 KiB (64 lanes × 16 B) per wave (hits on lines still being filled wait for the fill: see
 * `MemorySystem`).
 */
export const MEGAKERNEL_OUTSTANDING_BYTES_PER_WAVE = 4120;

/** The megakernel's pipeline: a core tile pipeline plus how its GEMM tiles stage through LDS. */
export interface MegakernelPipeline extends TilePipeline {
  /** Its GEMM tiles' LDS round trip (./lds-staging.ts), charged as compute; absent: not modelled. */
  ldsStaging?: LdsStaging;
}

/**
 * The megakernel's pipeline: resident waves × outstanding bytes per wave in flight; one
 * context per SIMD and no prefetch across K-chunks (FLEET streams a chunk, then multiplies),
 * so compute and memory do not overlap. With `ldsStaging`, its GEMM tiles also pay their
 * LDS round trip per K-chunk, serial like the MFMAs.
 */
export function megakernelPipeline(cu: ComputeResources, opts: { outstandingBytesPerWave?: number; ldsStaging?: LdsStaging } = {}): MegakernelPipeline {
  const occ = occupancy(cu, unionResources(CDNA_MEGAKERNEL_TASKS));
  const stages = 1;
  const outstanding = opts.outstandingBytesPerWave ?? MEGAKERNEL_OUTSTANDING_BYTES_PER_WAVE;
  // One wave per SIMD: a hit on a weight line another worker's miss is still filling stalls
  // the wave until the fill lands (seeds §FLEET: every L2 miss stalls the MFMA pipe).
  return {
    inFlightBytes: occ.wavesPerSimd * cu.simds * outstanding,
    overlap: occ.wavesPerSimd * stages,
    waitsOnFills: occ.wavesPerSimd <= 1,
    ...(opts.ldsStaging ? { ldsStaging: opts.ldsStaging } : {}),
  };
}

/**
 * Vendor kernels (rocBLAS/hipBLASLt GEMV and GEMM, elementwise). Bytes in flight: DER MEAS S23,
 * rocBLAS wvSpltK sustains 4.87 TB/s at M = 1 on MI300X's 304 CUs with ≈ 424 ns HBM latency,
 * so ≥ 4870 B/ns × 424 ns / 304 ≈ 6.8 KB per CU; 8 KiB assumed. Overlap: UNC, a 256-thread
 * workgroup at 128 VGPRs (typical of the libraries' GEMV/GEMM kernels) is resident 4 waves
 * per SIMD, each double-buffering its loads (2 stages).
 */
export const CDNA_VENDOR_KERNEL: KernelResources = { threads: 256, registersPerThread: 128, sharedBytes: 16 * 1024 };

export function vendorPipeline(cu: ComputeResources): TilePipeline {
  const stages = 2;
  return { inFlightBytes: 8192, overlap: occupancy(cu, CDNA_VENDOR_KERNEL).wavesPerSimd * stages };
}

/** The vendor pipeline on a CDNA3 CU. */
export const CDNA_VENDOR_PIPELINE: TilePipeline = vendorPipeline(CDNA3_CU);
