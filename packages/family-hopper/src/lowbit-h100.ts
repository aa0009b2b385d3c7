/**
 * The H100 SXM5 as the sm80-style low-bit kernels see it (lowbit-gemm.ts): its SMs, memory
 * and instruction rates, from the family's reference topology and cost parameters.
 */
import { loadedDramLatencyNs, type ComputeResources } from '@fleet/core';
import { BYTES_IN_FLIGHT_PER_SM, GRAPH_GAP_NS, TILE_OVERHEAD_NS, VECTOR_EFFICIENCY, WGMMA_EFFICIENCY } from './cost-params.js';
import type { Sm80Device } from './lowbit-gemm.js';
import { H100_CLOCK_GHZ, H100_LATENCY_CYCLES as LAT, H100_SXM5 as topology } from './reference/topology.js';

/**
 * UNC: the share of the dense tensor peak the legacy mma.sync path issues on Hopper. wgmma is
 * the instruction that reaches the peak; third-party microbenchmarks of Hopper (Luo et al.,
 * arXiv 2402.13499 / 2501.12084) find mma.sync well below it, about half — taken as 0.5.
 */
export const HOPPER_MMA_SYNC_SHARE = 0.5;

/**
 * DS (CUDA C programming guide, arithmetic instruction throughput, compute capability 8.x/9.0),
 * per SM per clock: 64 32-bit integer/logic/shift instructions, 256 half results (128 half2
 * FMAs), 16 conversions; 128 B/clock of shared memory (32 banks × 4 B).
 */
export const SM80_INT_OPS_PER_CLK = 64;
export const SM80_HALF2_OPS_PER_CLK = 128;
export const SM80_CVT_PER_CLK = 16;
export const SM80_SHARED_BYTES_PER_CLK = 128;

/** The per-SM issue rates above, as an `Sm80Device` carries them (the same on Ampere, Ada and Hopper). */
export const SM80_ISSUE_RATES = {
  intOpsPerClk: SM80_INT_OPS_PER_CLK,
  half2OpsPerClk: SM80_HALF2_OPS_PER_CLK,
  cvtPerClk: SM80_CVT_PER_CLK,
  sharedBytesPerClk: SM80_SHARED_BYTES_PER_CLK,
} as const;

/** DS (CUDA C programming guide, compute capability 9.0): 227 KB of shared memory per block. */
const MAX_SHARED_PER_CTA = 227 * 1024;

/**
 * A low-bit kernel streams near the DRAM's saturation; the latency its CTAs wait is the
 * loaded one at 80% of the achievable bandwidth (UNC: the load point).
 */
const STREAM_LOAD = 0.8;

export function h100Sm80Device(sm: ComputeResources): Sm80Device {
  const cu = topology.computeUnit;
  const hbm = topology.memory.hbm;
  return {
    name: 'h100',
    sms: topology.partitions.computeUnits.reduce((a, b) => a + b, 0),
    clockGhz: H100_CLOCK_GHZ,
    sm,
    maxSharedPerCta: MAX_SHARED_PER_CTA,
    dramBytesPerNs: hbm.achievableBandwidthBytesPerNs,
    dramLatencyNs: loadedDramLatencyNs(hbm, STREAM_LOAD * hbm.achievableBandwidthBytesPerNs),
    l2BytesPerNs: topology.memory.l2.bandwidthBytesPerNs,
    l2LatencyNs: LAT.l2 / H100_CLOCK_GHZ,
    smBytesPerNs: cu.maxBandwidthBytesPerNs,
    mmaSyncFlopsPerNs: cu.matrixFlopsPerNs.fp16 * HOPPER_MMA_SYNC_SHARE,
    denseMatrixFlopsPerNs: cu.matrixFlopsPerNs.bf16 * WGMMA_EFFICIENCY,
    ...SM80_ISSUE_RATES,
    vectorFlopsPerNs: cu.vectorFlopsPerNs * VECTOR_EFFICIENCY,
    tileOverheadNs: TILE_OVERHEAD_NS,
    kernelGapNs: GRAPH_GAP_NS,
    elementwiseInFlightBytes: BYTES_IN_FLIGHT_PER_SM,
  };
}
