/**
 * The MI300X (gfx942) library model: vLLM's wvSplitK, hipBLASLt, vLLM's ROCm paged attention
 * and CK's FlashAttention forward (the CDNA library model of @fleet/family-cdna), on this part's topology.
 */
import { CDNA3_CU, cdnaKernelLibrary, type CdnaLibrarySpec } from '@fleet/family-cdna';
import { params } from './cost-params.js';
import { topology } from './topology.js';

export const MI300X_LIBRARY_SPEC: CdnaLibrarySpec = {
  name: 'hipBLASLt (Tensile, gfx942) + vLLM wvSplitK and ROCm paged attention + CK FlashAttention forward, as PyTorch/vLLM on ROCm call them',
  arch: 'gfx942',
  topology,
  cu: CDNA3_CU,
  // UNC: no published hipBLASLt large-GEMM measurement on MI300X was found; its tiles use the
  // backend's assumed matrix efficiency (cost-params.ts).
  defaultMatrixEfficiency: params.matrixEfficiency,
  tileOverheadNs: params.tileOverheadNs.default,
};

export const kernelLibrary = cdnaKernelLibrary(MI300X_LIBRARY_SPEC);
