/**
 * NVIDIA A100 SXM4 80 GB (Ampere, GA100, compute capability 8.0) from its datasheet and
 * whitepaper. Nothing here was measured by us; latencies no datasheet gives are marked UNC.
 */
import type { Sm80DeviceSpec } from '@fleet/family-ampere';

export const A100_SXM4_80GB: Sm80DeviceSpec = {
  name: 'a100',
  description:
    'NVIDIA A100 SXM4 80 GB (Ampere): 108 SMs, mma.sync tensor cores with cp.async, no thread-block clusters, 40 MB L2 in two partitions, 80 GB HBM2e',
  clockGHz: 1.41,
  smsPerGpc: [14, 14, 14, 14, 14, 14, 12, 12],
  sharedPerSm: 164 * 1024,
  sharedPerCta: 163 * 1024,
  maxWarpsPerSm: 64,
  maxBlocksPerSm: 32,
  fp32Lanes: 64,
  fp16Tflops: 312,
  l2Bytes: 40 * 1024 * 1024,
  l2BytesPerClk: 5120,
  l2Halves: 2,
  l2LatencyCycles: 200,
  l2FarExtraCycles: 100,
  dramBytes: 80e9,
  dramPeakBytesPerNs: 2039,
  dramAchievableBytesPerNs: Math.round(2039 * 0.9),
  dramLatencyNs: 480,
  // Mirage MPK on A100 (seeds §5): 96 workers (12 per GPC) + 48 scheduler warps on the other 12 SMs.
  mirage: { workersPerPartition: 12, globalSchedulers: 48 },
  sources: {
    '/clockGHz': 'DS NVIDIA A100 datasheet / GA100 whitepaper: 1410 MHz boost (the peaks are quoted at it)',
    '/partitions/computeUnits': 'DS GA100 whitepaper: 108 SMs (54 TPCs) enabled of 128; UNC: their split over 8 GPCs (14 × 6 + 12 × 2)',
    '/computeUnit/sharedMemoryBytes': 'DS CUDA C programming guide, compute capability 8.0: 164 KB shared memory per SM, 163 KB per block',
    '/computeUnit/matrixFlopsPerNs/fp16': 'DS NVIDIA A100 datasheet: 312 TFLOP/s dense FP16/BF16 tensor (624 with sparsity)',
    '/computeUnit/vectorFlopsPerNs': 'DS 19.5 TFLOP/s FP32 = 64 lanes × 2 × 1.41 GHz × 108 SMs',
    '/memory/l2/capacityBytes': 'DS GA100 whitepaper: 40 MB L2',
    '/memory/l2/bandwidthBytesPerNs': 'DS GA100 whitepaper: 5120 B/clk L2 read bandwidth × 1.41 GHz',
    '/memory/l2/halves': 'DS GA100 whitepaper: the L2 is divided into two partitions, each serving the GPCs directly connected to it',
    '/memory/l2/latencyNs': 'UNC ~200 cycles (third-party Ampere microbenchmarks report roughly this; not measured by us)',
    '/memory/l2/farExtraLatencyNs': 'UNC 100 cycles to the far partition (not measured)',
    '/memory/hbm/capacityBytes': 'DS NVIDIA A100 80GB datasheet: 80 GB HBM2e',
    '/memory/hbm/peakBandwidthBytesPerNs': 'DS NVIDIA A100 80GB SXM datasheet: 2,039 GB/s',
    '/memory/hbm/achievableBandwidthBytesPerNs': 'UNC 90% of the peak (no measurement on this part)',
    '/memory/hbm/latencyNs': 'UNC ~480 ns for a DRAM access (third-party pointer chases report 400–500 ns; not measured by us)',
  },
};
