import type { ModelSpec } from './model-spec.js';
import { isMoeLayer } from './moe.js';

/** Parameters of one layer's attention block (projections, biases, q/k norms; MLA's compressions and their norms). */
export function attentionParameters(spec: ModelSpec): number {
  const { hiddenSize: h, numHeads: nh, numKvHeads: nkv, headDim: hd } = spec;
  if (spec.mla) {
    const { qLoraRank: ql, kvLoraRank: r, ropeDim, nopeDim, vDim } = spec.mla;
    const q = ql === null ? h * nh * hd : h * ql + ql + ql * nh * hd;
    return q + h * (r + ropeDim) + r + r * nh * (nopeDim + vDim) + nh * vDim * h;
  }
  const qkvOut = (nh + 2 * nkv) * hd;
  return qkvOut * h + nh * hd * h + (spec.qkvBias ? qkvOut : 0) + (spec.qkNorm ? 2 * hd : 0);
}

/** Parameters of layer `l`'s FFN: dense, or router + every routed expert + shared experts (+ their gate). */
export function ffnParameters(spec: ModelSpec, l: number): number {
  const h = spec.hiddenSize;
  const moe = spec.moe;
  if (!moe || !isMoeLayer(spec, l)) return 3 * spec.intermediateSize * h;
  return moe.numExperts * h + moe.numExperts * 3 * moe.expertIntermediateSize * h + 3 * moe.sharedIntermediateSize * h + (moe.sharedExpertGate ? h : 0);
}

/**
 * Number of parameters of a model, counted from its shapes (embeddings, projections,
 * biases, norms, experts), so that sizes can be sanity-checked and reported without weights.
 */
export function parameterCount(spec: ModelSpec): number {
  const { hiddenSize: h, vocabSize: v } = spec;
  const norms = spec.normsPerLayer * h;
  const attn = attentionParameters(spec);
  let ffn = 0;
  if (spec.moe) for (let l = 0; l < spec.numLayers; l++) ffn += ffnParameters(spec, l);
  else ffn = spec.numLayers * 3 * spec.intermediateSize * h;
  const embeddings = v * h * (spec.tieWordEmbeddings ? 1 : 2);
  return spec.numLayers * (attn + norms) + ffn + embeddings + h;
}

/** Parameters one token touches: attention, dense FFNs, and only its top-k routed experts (+ shared) in MoE layers. */
export function activeParameterCount(spec: ModelSpec): number {
  const moe = spec.moe;
  if (!moe) return parameterCount(spec);
  let inactive = 0;
  for (let l = 0; l < spec.numLayers; l++) {
    if (isMoeLayer(spec, l)) inactive += (moe.numExperts - moe.expertsPerToken) * 3 * moe.expertIntermediateSize * spec.hiddenSize;
  }
  return parameterCount(spec) - inactive;
}
