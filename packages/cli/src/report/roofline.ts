import { activeParameterCount, DTYPE_BYTES, type Backend, type ModelSpec } from '@fleet/core';

/** A backend's roofs: peak matrix throughput for the model's dtype and achievable HBM bandwidth. */
export interface Roof {
  backend: string;
  peakTflops: number;
  hbmTBps: number;
  /** FLOP/byte where the two roofs meet. */
  ridge: number;
}

export function roofOf(backend: Backend, model: ModelSpec): Roof {
  const t = backend.topology;
  const perCu = (t.computeUnit.matrixFlopsPerNs as Record<string, number | undefined>)[model.dtype] ?? t.computeUnit.matrixFlopsPerNs.bf16;
  const cus = t.partitions.computeUnits.reduce((a, b) => a + b, 0);
  const peakTflops = (perCu * cus) / 1000;
  const hbmTBps = t.memory.hbm.achievableBandwidthBytesPerNs / 1000;
  return { backend: backend.name, peakTflops, hbmTBps, ridge: peakTflops / hbmTBps };
}

/**
 * FLOPs of one decode step: 2 per weight of every projection and the LM head per token in
 * the batch, plus attention's QKᵀ and PV over the mean context (prompt + decode / 2).
 */
export function decodeStepFlops(model: ModelSpec, batch: number, meanContext: number): number {
  if (model.moe || model.mla) {
    // 2 FLOP per weight a token touches (its top-k experts, not all), the embedding table aside
    // (the LM head stays); MLA attends over the latent: rank + rope for QKᵀ, rank for PV, per head.
    const v = model.vocabSize * model.hiddenSize;
    const perToken = 2 * (activeParameterCount(model) - (model.tieWordEmbeddings ? 0 : v));
    const d = model.mla ? 2 * model.mla.kvLoraRank + model.mla.ropeDim : 2 * model.headDim;
    return batch * perToken + 2 * batch * model.numLayers * model.numHeads * d * meanContext;
  }
  const { hiddenSize: h, numHeads: nh, numKvHeads: nkv, headDim: hd, intermediateSize: inter, vocabSize: v, numLayers: L } = model;
  const perLayer = (nh + 2 * nkv) * hd * h + nh * hd * h + 3 * inter * h;
  const matmul = 2 * batch * (L * perLayer + v * h);
  const attention = 4 * batch * L * nh * hd * meanContext;
  return matmul + attention;
}

/**
 * Effective arithmetic intensity of batched decode: a weight byte feeds 2·B/bytes-per-weight
 * FLOPs (B for bf16), and only the L2 misses come from HBM: B / (1 − L2 hit rate).
 */
export function effectiveIntensity(model: ModelSpec, batch: number, l2HitRate: number): number {
  const base = (2 * batch) / DTYPE_BYTES[model.dtype];
  return base / Math.max(1e-9, 1 - l2HitRate);
}
