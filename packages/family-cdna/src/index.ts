/**
 * @fleet/family-cdna — what every AMD CDNA device (MI300X, MI350, …) shares in Fleet: coherence
 * scopes, task-level mapping, occupancy, the PyTorch/vLLM-on-ROCm kernel library model, the
 * cost model, runtime and launch costs, RCCL's constants, the CDNA runtime tuning, and `cdnaBackend`,
 * which turns a device's topology and calibration into a backend descriptor.
 */
export { MI300X_LATENCY_CYCLES, cyclesToNs, type CdnaLatencyCycles } from './latency.js';
export { MI300X_MEASURED_CLOCK_GHZ, MI300X_L2_BYTES_PER_NS_PER_XCD, MI300X_L2_BYTES_PER_CLK_PER_XCD, MI300X_MALL_BYTES_PER_NS } from './bandwidth.js';
export { GRAPH_GAP_NS, BARRIER_NS, VLLM_EAGER_LAUNCH_NS, TILE_OVERHEAD_NS } from './launch.js';
export { cdnaTopology, type CdnaTopologySpec } from './topology.js';
export { cdnaOamNode, type CdnaOamNodeSpec } from './oam-node.js';
export { cdnaRooflineParams, type CdnaRooflineSpec } from './roofline-params.js';
export { cdnaCoherenceScopes, cdnaCoherenceSources, type CdnaCoherenceParams } from './coherence.js';
export { cdnaLevels, cdnaLevelSources } from './levels.js';
export { cdnaTuning } from './cdna-tuning.js';
export { cdnaRuntimeCosts, type CdnaRuntimeCosts } from './runtime-costs.js';
export {
  CDNA3_CU,
  CDNA4_CU,
  CDNA_MEGAKERNEL_TASKS,
  CDNA_VENDOR_KERNEL,
  CDNA_VENDOR_PIPELINE,
  MEGAKERNEL_OUTSTANDING_BYTES_PER_WAVE,
  megakernelPipeline,
  vendorPipeline,
  type MegakernelPipeline,
} from './occupancy.js';
export {
  CDNA3_LDS_BYTES_PER_CLK,
  CDNA4_LDS_BYTES_PER_CLK,
  MEGAKERNEL_GEMM_TILE,
  ldsBytesPerFlop,
  ldsStagingNs,
  megakernelLdsStaging,
  type LdsStagedTile,
  type LdsStaging,
} from './lds-staging.js';
export { CdnaCostModel } from './cost-model.js';
export { rcclCdna, RCCL_GFX94_XGMI_GBPS, RCCL_MI300X_GRAPH_CHANNELS } from './rccl.js';
export { cdnaBackend, cdnaModule, type CdnaDevice } from './backend.js';
export {
  CDNA_SOFTMAX_FLOPS_PER_SCORE,
  HIPBLASLT_DEPTH_U,
  HIPBLASLT_PREFETCH_GLOBAL,
  HIPBLASLT_THREADS,
  HIPBLASLT_TILE_SIDES,
  MFMA_ROWS,
  PAGED_ATTENTION_PARTITION,
  WVSPLITK_MAX_ROWS,
  cdnaKernelLibrary,
  cdnaFp8FlopsScale,
  cdnaFp8Refusal,
  hipblasltEstimateNs,
  hipblasltPipeline,
  hipblasltResources,
  selectCdnaDecodeAttention,
  selectCdnaGemm,
  selectCdnaPrefillAttention,
  type CdnaLibrarySpec,
  type CdnaTilePipeline,
} from './cdna-libraries.js';
export {
  WVSPLITK_LANE_LOAD_BYTES,
  WVSPLITK_WAVES,
  wvSplitKLaunch,
  wvSplitKMindiv,
  wvSplitKPipeline,
  type WvSplitKLaunch,
} from './wvsplitk.js';
