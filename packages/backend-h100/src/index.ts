/** @fleet/backend-h100 — NVIDIA H100 SXM5 (Hopper) for Fleet: GPCs, clusters, DSMEM collectives, partitioned L2. */
import { API_VERSION, defineBackend } from '@fleet/core';
import { module } from './module.js';

export { topology, H100_CLOCK_GHZ, H100_LATENCY_CYCLES } from './topology.js';
export { params, BYTES_IN_FLIGHT_PER_SM, WGMMA_EFFICIENCY } from './cost-params.js';
export { tuning, PYTORCH_KERNELS, MIRAGE_WORKERS_PER_GPC, MIRAGE_SCHEDULERS, CLUSTERFUSION_DEFAULT_CLUSTER } from './policies.js';
export { CLUSTER_DOMAINS, MAX_CLUSTER_SIZE, CLUSTERFUSION_CTAS_PER_SM, maxActiveClusters, activeSms, dsmem, type DsmemSpec } from './clusters.js';
export {
  collectives,
  collectiveModel,
  clusterFusionBenchKernel,
  CLUSTERFUSION_BENCH,
  type CollectiveBenchKernel,
  onChipPricing,
  offChipPricing,
  SHARED_BYTES_PER_NS,
  CTA_STREAM_BYTES_PER_NS,
  OFF_CHIP_ROUND_FIXED_NS,
} from './collectives.js';
export { OURS, PRIOR, PIPELINE, LOADED_LATENCY } from './calibration.js';
export { kernelLibrary, selectGemm, selectDecodeAttention, selectPrefillAttention, selectGroupedGemm, SOFTMAX_FLOPS_PER_SCORE, TINYGEMM, TINYGEMM_IN_FLIGHT, CUTLASS_GROUPED, CUTLASS_GROUPED_DRAM_IN_FLIGHT, nvjetPipeline, nvjetStages, H100_SM, NVJET_DRAM_IN_FLIGHT, CUDNN_FLASH_DRAM_BYTES_PER_NS, CUDNN_FLASH_TILE_FIXED_NS } from './kernel-library.js';
export { module } from './module.js';
export { node, hgxH100, ncclHopper, NVLINK4_LINKS, NVLINK4_LINK_GBPS, NCCL_SM90_NVLINK_GBPS } from './node.js';

export default defineBackend({ name: 'h100', apiVersion: API_VERSION, module });
export { h100PipelineValidation, pipelineValidationPoints } from './pipeline-validation.js';
export { h100PrefillValidation, prefillValidationPoints } from './prefill-validation.js';
export { h100Validation, clusterFusionTableValidation, TABLE1_TOLERANCE, linearOpUs, row as validationRow, clusterKernelUs, clusterFusionTpotMs, type OpsForValidation, type PolicyLike, type H100ValidationOptions } from './validation.js';
export { h100MoeValidation, moeValidationPoints, groupedGemmUs } from './moe-validation.js';
export { clusterFusionValidation, clusterFusionClaimPoints, clusterFusionSpeedup, CLUSTERFUSION_CLAIMS } from './clusterfusion-validation.js';
