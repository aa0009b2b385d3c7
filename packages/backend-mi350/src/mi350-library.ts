/**
 * The MI350X (gfx950) library model: vLLM's wvSplitK, hipBLASLt, vLLM's ROCm paged attention
 * and CK's FlashAttention forward (the CDNA model in @fleet/family-cdna), on this part's
 * topology and CDNA4 CU (160 KiB of LDS: both of hipBLASLt's prefetched K-slices fit in LDS).
 */
import { CDNA4_CU, cdnaKernelLibrary, type CdnaLibrarySpec } from '@fleet/family-cdna';
import { params } from './cost-params.js';
import { topology } from './topology.js';

/**
 * MEAS/DER: hipBLASLt's bf16 8192³ GEMM (TN, `MT256x256x64_MI16x16x1`, hipBLASLt 1.2) on an
 * MI350X at its 1000 W cap, five published runs (hipblaslt-bench stock 1230.3 and 1292.1, the
 * Tensile-tuned kernel 1298.7, the installed API path 1417.5 and 1478.5 TFLOP/s; public
 * per-shape tuning reports for Llama-3.1-70B's attention projections). The median, 1298.7
 * TFLOP/s, is 56.3% of the 2306.9 TFLOP/s dense peak at 2.2 GHz. Most of the loss is the
 * clock: the same reports' telemetry shows 1.3–1.6 GHz sustained under the power cap for such
 * a GEMM, so the per-clock MFMA issue rate is ≈ 85–90%. Decode-sized GEMMs are memory-bound
 * and do not depend on it.
 */
export const HIPBLASLT_8192_TFLOPS = [1230.3, 1292.1, 1298.7, 1417.5, 1478.5] as const;
export const HIPBLASLT_MFMA_EFFICIENCY =
  HIPBLASLT_8192_TFLOPS[2] / ((topology.computeUnit.matrixFlopsPerNs.bf16 * topology.partitions.computeUnits.reduce((a, b) => a + b, 0)) / 1000);

export const MI350_LIBRARY_SPEC: CdnaLibrarySpec = {
  name: 'hipBLASLt (Tensile, gfx950) + vLLM wvSplitK and ROCm paged attention + CK FlashAttention forward, as PyTorch/vLLM on ROCm call them',
  arch: 'gfx950',
  topology,
  cu: CDNA4_CU,
  mfmaEfficiency: HIPBLASLT_MFMA_EFFICIENCY,
  defaultMatrixEfficiency: params.matrixEfficiency,
  tileOverheadNs: params.tileOverheadNs.default,
};

export const kernelLibrary = cdnaKernelLibrary(MI350_LIBRARY_SPEC);
