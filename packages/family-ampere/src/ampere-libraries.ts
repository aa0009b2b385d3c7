/**
 * The kernels an sm80-model device runs under PyTorch: dense GEMMs as cuBLAS's sm80 kernels
 * (mma.sync tiles over a cp.async ring, autotuned by the cost model: lowbit-gemm's search
 * with dense weights), low-bit GEMMs as Tilus or Triton build them (the same module the Hopper
 * library uses), FlashAttention-2-style decode attention.
 */
import type { DecodeAttentionKernel, DecodeAttentionShape, GemmKernel, GemmShape, KernelLibrary, Topology } from '@fleet/core';
import {
  BYTES_IN_FLIGHT_PER_SM,
  GRAPH_GAP_NS,
  SM80_ISSUE_RATES,
  TILE_OVERHEAD_NS,
  VECTOR_EFFICIENCY,
  selectLowBitGemm,
  sm80DenseGemm,
  type LowBitKernelFamily,
  type Sm80Device,
} from '@fleet/family-hopper';
import { SM80_MATRIX_EFFICIENCY } from './cost-params.js';
import type { Sm80DeviceSpec } from './device-spec.js';

/** The device as the sm80 kernels see it. */
export function sm80Device(spec: Sm80DeviceSpec, topology: Topology): Sm80Device {
  const cu = topology.computeUnit;
  const rate = cu.matrixFlopsPerNs.fp16 * SM80_MATRIX_EFFICIENCY;
  return {
    name: spec.name,
    sms: topology.partitions.computeUnits.reduce((a, b) => a + b, 0),
    clockGhz: spec.clockGHz,
    // 64K registers in 4 sub-partitions, allocated per warp in 256-register units; warps and blocks per SM from the spec.
    sm: {
      waveSize: 32,
      simds: 4,
      maxWavesPerSimd: spec.maxWarpsPerSm / 4,
      registersPerSimd: 65536 / 4,
      registerGranularity: 8,
      sharedBytes: spec.sharedPerSm,
      maxBlocks: spec.maxBlocksPerSm,
    },
    maxSharedPerCta: spec.sharedPerCta,
    dramBytesPerNs: spec.dramAchievableBytesPerNs,
    dramLatencyNs: spec.dramLatencyNs,
    l2BytesPerNs: topology.memory.l2.bandwidthBytesPerNs,
    l2LatencyNs: topology.memory.l2.latencyNs,
    smBytesPerNs: cu.maxBandwidthBytesPerNs,
    // mma.sync is these parts' own matrix instruction: the dense rate is its rate.
    mmaSyncFlopsPerNs: rate,
    denseMatrixFlopsPerNs: rate,
    ...SM80_ISSUE_RATES,
    vectorFlopsPerNs: cu.vectorFlopsPerNs * VECTOR_EFFICIENCY,
    tileOverheadNs: TILE_OVERHEAD_NS,
    kernelGapNs: GRAPH_GAP_NS,
    elementwiseInFlightBytes: BYTES_IN_FLIGHT_PER_SM,
  };
}

/**
 * FlashAttention-2's decode (flash_fwd_splitkv): one CTA per (request, KV head), the KV length
 * split so the grid fills the SMs at batch 1 (the FA2 heuristic: splits while the grid is under
 * one wave, at most 8 here), K/V tiles of 128 double-buffered with cp.async.
 */
function decodeAttention(sms: number) {
  return (s: DecodeAttentionShape): DecodeAttentionKernel => {
    const ctas = s.batch * s.kvHeads;
    const splits = s.kvLen >= 1024 ? Math.max(1, Math.min(8, Math.floor(sms / Math.max(1, ctas)))) : 1;
    return {
      name: splits > 1 ? 'flash_fwd_splitkv_kernel (FA2, sm80) + combine' : 'flash_fwd_splitkv_kernel (FA2, sm80)',
      splits,
      pipeline: { inFlightBytes: 2 * 2 * 128 * s.headDim * 2, overlap: 4 },
    };
  };
}

/** The library of an sm80 device; `lowBit` picks the low-bit GEMM (Tilus by default). */
export function sm80KernelLibrary(spec: Sm80DeviceSpec, topology: Topology, lowBit: LowBitKernelFamily = 'tilus'): KernelLibrary {
  const dev = sm80Device(spec, topology);
  const dense = sm80DenseGemm(dev);
  return {
    name: `cuBLAS sm80 GEMMs (mma.sync, cp.async; autotuned by the cost model), ${lowBit === 'tilus' ? 'Tilus' : 'Triton split-K'} low-bit GEMMs, FlashAttention-2 decode`,
    gemm: (s: GemmShape): GemmKernel => (s.quant || s.weightBytes < 1 ? selectLowBitGemm(dev, s, lowBit, dense) : dense.kernel(s)),
    decodeAttention: decodeAttention(dev.sms),
  };
}
