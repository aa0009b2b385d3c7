/**
 * @fleet/family-hopper — what every NVIDIA Hopper (GH100) device shares in Fleet: thread-block
 * clusters and DSMEM, the ClusterReduce/ClusterGather collectives, the kernels PyTorch calls
 * (cuBLASLt nvjet, tinygemm, cuDNN SDPA, CUTLASS grouped GEMM), the cost-model parameters,
 * the Hopper runtime tuning, the HGX NVLink 4 fabric with NCCL's constants, and `hopperBackend`,
 * which turns a device's topology and calibration into a backend descriptor.
 *
 * The measurements all of this is calibrated on were taken on one H100 SXM5; they ship here as
 * the reference calibration (`OURS`, `PRIOR`, `PIPELINE`, `KSWEEP`, `LOADED_LATENCY`, `PREFILL_TILES`, `DECODE_BLOCKS`, on `H100_SXM5`).
 */
export { H100_SXM5, H100_CLOCK_GHZ, H100_LATENCY_CYCLES } from './reference/topology.js';
export {
  OURS,
  PRIOR,
  PIPELINE,
  KSWEEP,
  LOADED_LATENCY,
  PREFILL_TILES,
  DECODE_BLOCKS,
  dsmemLatencyCycles,
  clusterBarrierCycles,
} from './reference/calibration.js';
export {
  params,
  BYTES_IN_FLIGHT_PER_SM,
  WGMMA_EFFICIENCY,
  GRAPH_GAP_NS,
  GRAPH_LAUNCH_NS,
  BARRIER_NS,
  TILE_OVERHEAD_NS,
  VECTOR_EFFICIENCY,
} from './cost-params.js';
export {
  tuning,
  MIRAGE_WORKERS_PER_GPC,
  MIRAGE_SCHEDULERS,
  CLUSTERFUSION_DEFAULT_CLUSTER,
  PYTORCH_KERNELS,
  NORM_CTA_IN_FLIGHT,
  NORM_FIXED_NS,
  NORM_KERNEL,
  STRIDED_ELEMENTWISE_FIXED_NS,
} from './hopper-tuning.js';
export { CLUSTER_DOMAINS, MAX_CLUSTER_SIZE, CLUSTERFUSION_CTAS_PER_SM, maxActiveClusters, activeSms, dsmem, type DsmemSpec } from './clusters.js';
export {
  collectives,
  collectiveModel,
  clusterFusionBenchKernel,
  CLUSTERFUSION_BENCH,
  type CollectiveBenchKernel,
  onChipPricing,
  offChipPricing,
  combineNs,
  CLUSTER_CTA_THREADS,
  CLUSTERFUSION_COMBINE_ACCESS_BYTES,
  SHARED_LOAD_NS,
  SHARED_BYTES_PER_NS,
  CTA_STREAM_BYTES_PER_NS,
  OFF_CHIP_ROUND_FIXED_NS,
} from './collectives.js';
export { kernelLibraryOn, dramInFlightScale } from './memory-transfer.js';
export {
  kernelLibrary,
  hopperKernelLibrary,
  type LowBitChoice,
  SDPA_GROUPED_ROWS_LIBRARY,
  selectGemm,
  selectDecodeAttention,
  selectPrefillAttention,
  selectGroupedGemm,
  SOFTMAX_FLOPS_PER_SCORE,
  flashVectorFlopsPerScore,
  TINYGEMM,
  TINYGEMM_IN_FLIGHT,
  CUTLASS_GROUPED,
  CUTLASS_GROUPED_DRAM_IN_FLIGHT,
  nvjetPipeline,
  nvjetKernel,
  nvjetEstimateNs,
  waveDramBytes,
  nvjetStages,
  H100_SM,
  NVJET_DRAM_IN_FLIGHT,
  nvjetTileFixedNs,
  skinnyTile,
  GEMV_STREAM_DRAM_IN_FLIGHT,
  FP8_RELATIVE_EFFICIENCY,
  FP8_MATRIX_FLOPS_SCALE,
  ROWWISE_DRAM_IN_FLIGHT,
  ROWWISE_OOB_ROW_NS,
  rowwiseDramInFlight,
  hopperFp8Refusal,
  CUDNN_FLASH_DRAM_BYTES_PER_NS,
  CUDNN_FLASH_CTA_FIXED_NS,
  CUDNN_FLASH_TILE_FIXED_NS,
  cudnnDecodeVectorFlopsPerScore,
} from './hopper-libraries.js';
export {
  selectLowBitGemm,
  searchSm80,
  sm80Configs,
  sm80EstimateNs,
  sm80Kernel,
  sm80DenseGemm,
  dequantThenGemmNs,
  dequantCycles,
  dequantInstructions,
  withPredequantize,
  quantOf,
  type Sm80Device,
  type Sm80Config,
  type LowBitKernelFamily,
  type DenseGemm,
} from './lowbit-gemm.js';
export {
  h100Sm80Device,
  HOPPER_MMA_SYNC_SHARE,
  SM80_INT_OPS_PER_CLK,
  SM80_ISSUE_RATES,
  SM80_HALF2_OPS_PER_CLK,
  SM80_CVT_PER_CLK,
  SM80_SHARED_BYTES_PER_CLK,
} from './lowbit-h100.js';
export {
  selectFlashDecode,
  flashDecodeSplits,
  numSplitsHeuristic,
  flashKvBlock,
  flashFwdBlocks,
  FLASH_SPLIT_CTAS_PER_SM,
  FLASH_SPLIT_TILE_FIXED_NS,
  FLASH_COMBINE_NS_PER_SPLIT,
  FLASH_COMBINE_FIXED_NS,
  FLASH_FWD_DRAM_BYTES_PER_NS,
} from './flash-decoding.js';
export {
  ncclHopper,
  NCCL_H100_GRAPH_CHANNELS,
  NCCL_H100_COMM_CHANNELS,
  NVLINK4_LINKS,
  NVLINK4_LINK_GBPS,
  NCCL_SM90_NVLINK_GBPS,
  HGX_NVLINK4_INTERCONNECT,
  HGX_NVLINK4_SOURCES,
  NCCL_H100X2_CALIBRATION,
  NCCL_SWEEP_GRAPH_CALLS,
  type NcclCalibrationRow,
} from './nvlink.js';
export { H100_CALIBRATION, type HopperCalibration } from './calibration.js';
export { hopperBackend, hopperModule, type HopperDevice } from './backend.js';
