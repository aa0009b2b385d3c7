/** Reusable CDNA pieces: MI350 (CDNA4) and other CDNA parts build on these. */
export { MI300X_LATENCY_CYCLES, cyclesToNs, type CdnaLatencyCycles } from './latency.js';
export { cdnaCoherenceScopes, cdnaCoherenceSources, type CdnaCoherenceParams } from './coherence.js';
export { cdnaLevels, cdnaLevelSources } from './levels.js';
export { cdnaTuning } from './policies.js';
export { cdnaRuntimeCosts, type CdnaRuntimeCosts } from './runtime-costs.js';
export { CDNA3_CU, CDNA4_CU, CDNA_MEGAKERNEL_TASKS, CDNA_VENDOR_KERNEL, CDNA_VENDOR_PIPELINE, MEGAKERNEL_OUTSTANDING_BYTES_PER_WAVE, megakernelPipeline, vendorPipeline } from './occupancy.js';
export { CdnaCostModel } from './cost-model.js';
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
  hipblasltEstimateNs,
  hipblasltPipeline,
  hipblasltResources,
  selectCdnaDecodeAttention,
  selectCdnaGemm,
  selectCdnaPrefillAttention,
  type CdnaLibrarySpec,
  type CdnaTilePipeline,
} from './kernel-library.js';
