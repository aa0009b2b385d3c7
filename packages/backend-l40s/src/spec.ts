/**
 * NVIDIA L40S (Ada Lovelace, AD102, compute capability 8.9) from its datasheet. Nothing here
 * was measured by us; latencies no datasheet gives are marked UNC.
 */
import type { Sm80DeviceSpec } from '@fleet/family-ampere';

export const L40S: Sm80DeviceSpec = {
  name: 'l40s',
  description:
    'NVIDIA L40S 48 GB (Ada Lovelace): 142 SMs, mma.sync tensor cores with cp.async and FP8, no thread-block clusters, 48 MB L2, 48 GB GDDR6, PCIe only (no NVLink)',
  clockGHz: 2.52,
  smsPerGpc: [12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 11, 11],
  sharedPerSm: 100 * 1024,
  sharedPerCta: 99 * 1024,
  maxWarpsPerSm: 48,
  maxBlocksPerSm: 24,
  fp32Lanes: 128,
  fp16Tflops: 362.05,
  fp8Tflops: 733,
  l2Bytes: 48 * 1024 * 1024,
  l2BytesPerClk: 3072,
  l2Halves: 1,
  l2LatencyCycles: 270,
  l2FarExtraCycles: 0,
  dramBytes: 48e9,
  dramPeakBytesPerNs: 864,
  dramAchievableBytesPerNs: Math.round(864 * 0.9),
  dramLatencyNs: 550,
  // Mirage MPK's layout on a part it does not document: 11 workers per GPC (132), the other 10 SMs' 40 warps as schedulers (UNC).
  mirage: { workersPerPartition: 11, globalSchedulers: 40 },
  sources: {
    '/clockGHz': 'DS NVIDIA L40S datasheet: 2520 MHz boost',
    '/partitions/computeUnits': 'DS 142 SMs of AD102 (12 GPCs × 12 SMs full); UNC: which GPCs lose an SM',
    '/computeUnit/sharedMemoryBytes': 'DS CUDA C programming guide, compute capability 8.9: 100 KB shared memory per SM, 99 KB per block',
    '/computeUnit/matrixFlopsPerNs/fp16':
      'DS NVIDIA L40S datasheet: 362.05 TFLOP/s dense FP16/BF16 tensor (733 with sparsity); UNC: that fp32 accumulation runs at this rate (the datasheet gives one number)',
    '/computeUnit/matrixFlopsPerNs/fp8': 'DS NVIDIA L40S datasheet: 733 TFLOP/s dense FP8 (1,466 with sparsity)',
    '/computeUnit/vectorFlopsPerNs': 'DS NVIDIA L40S datasheet: 91.6 TFLOP/s FP32 = 128 lanes × 2 × 2.52 GHz × 142 SMs',
    '/memory/l2/capacityBytes': 'DS (TechPowerUp GPU database, AD102 as L40S): 48 MB L2',
    '/memory/l2/bandwidthBytesPerNs': 'UNC 64 B/clk per 1 MB slice × 48 slices × 2.52 GHz (not published)',
    '/memory/l2/latencyNs': 'UNC ~270 cycles (not measured)',
    '/memory/l2/halves': 'DS one L2 (AD102 has no partitioned L2 as GA100/GH100 do)',
    '/memory/l2/farExtraLatencyNs': 'DS no far half',
    '/memory/hbm/capacityBytes': 'DS NVIDIA L40S datasheet: 48 GB GDDR6 with ECC',
    '/memory/hbm/peakBandwidthBytesPerNs': 'DS NVIDIA L40S datasheet: 864 GB/s (384-bit, 18 Gbps)',
    '/memory/hbm/achievableBandwidthBytesPerNs': 'UNC 90% of the peak (no measurement on this part)',
    '/memory/hbm/latencyNs': 'UNC ~550 ns for a GDDR6 access (not measured)',
  },
};
