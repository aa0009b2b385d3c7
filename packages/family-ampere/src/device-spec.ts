/**
 * What an sm80-model device without thread-block clusters (Ampere, Ada) is described by: its
 * datasheet numbers and the few latencies no datasheet gives. Every field's provenance is in
 * `sources` (JSON pointers into this spec), as in a topology.
 */
export interface Sm80DeviceSpec {
  /** What users type (`--backends a100`). */
  name: string;
  description: string;
  /** Boost clock the peaks are quoted at, GHz. */
  clockGHz: number;
  /** SMs per GPC (the partition). */
  smsPerGpc: number[];
  /** Shared memory per SM and the most one CTA may take, bytes. */
  sharedPerSm: number;
  sharedPerCta: number;
  /** Resident warps and blocks per SM (compute capability 8.0: 64 and 32; 8.9: 48 and 24). */
  maxWarpsPerSm: number;
  maxBlocksPerSm: number;
  /** FP32 lanes per SM (64 on GA100, 128 on GA10x/AD10x). */
  fp32Lanes: number;
  /** Dense tensor peaks of the whole GPU, TFLOP/s (fp16/bf16 with fp32 accumulate; fp8 where the part has it). */
  fp16Tflops: number;
  fp8Tflops?: number;
  l2Bytes: number;
  /** L2 read bandwidth, bytes per clock (whole device). */
  l2BytesPerClk: number;
  /** L2 split into halves with a far-side penalty (GA100), or one (AD10x). */
  l2Halves: number;
  l2LatencyCycles: number;
  l2FarExtraCycles: number;
  dramBytes: number;
  dramPeakBytesPerNs: number;
  dramAchievableBytesPerNs: number;
  dramLatencyNs: number;
  /** Mirage MPK's layout: workers per GPC and scheduler warps. */
  mirage: { workersPerPartition: number; globalSchedulers: number };
  sources: Record<string, string>;
}
