import type { ModelSpec } from './model-spec.js';

/**
 * Number of parameters of a model, counted from its shapes (embeddings, projections,
 * biases, norms), so that sizes can be sanity-checked and reported without weights.
 */
export function parameterCount(spec: ModelSpec): number {
  const { hiddenSize: h, numHeads: nh, numKvHeads: nkv, headDim: hd, intermediateSize: inter, vocabSize: v } = spec;
  const qkvOut = (nh + 2 * nkv) * hd;
  const attn = qkvOut * h + nh * hd * h + (spec.qkvBias ? qkvOut : 0) + (spec.qkNorm ? 2 * hd : 0);
  const mlp = 3 * inter * h;
  const norms = spec.normsPerLayer * h;
  const perLayer = attn + mlp + norms;
  const embeddings = v * h * (spec.tieWordEmbeddings ? 1 : 2);
  return spec.numLayers * perLayer + embeddings + h;
}
