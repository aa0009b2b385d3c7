/**
 * Decode attention for one request: `heads` query heads attend over `kvLen` cached keys and
 * values of `kvHeads` KV heads (MHA: kvHeads = heads; GQA: fewer; MQA: one). Query head h
 * reads KV head ⌊h / (heads/kvHeads)⌋.
 *
 * Two ways to compute it: the plain softmax (the reference), and split-KV flash-decoding,
 * where each chunk of the KV sequence yields an online-softmax partial (running max, sum of
 * exponentials, unnormalised output) and the partials are combined as ClusterFusion does
 * on a thread-block cluster: a max-reduction, a rescale of every partial to the global max,
 * then a sum-reduction of sums and outputs.
 *
 * Layouts: q [heads, headDim]; k and v [kvHeads, kvLen, headDim] (Fleet's cache layout for
 * one request); outputs [heads, headDim].
 */

/** One request's decode attention (no batch: the kernel library's `DecodeAttentionShape` has one). */
export interface RequestAttentionShape {
  heads: number;
  kvHeads: number;
  headDim: number;
  kvLen: number;
}

export function checkDecodeAttentionShape(s: RequestAttentionShape): void {
  if (s.heads % s.kvHeads !== 0) throw new RangeError(`heads (${s.heads}) must be a multiple of kvHeads (${s.kvHeads})`);
}

function defaultScale(s: RequestAttentionShape): number {
  return 1 / Math.sqrt(s.headDim);
}

/** Plain attention: scores, softmax, weighted sum, in double. */
export function naiveDecodeAttention(
  q: ArrayLike<number>,
  k: ArrayLike<number>,
  v: ArrayLike<number>,
  s: RequestAttentionShape,
  scale = defaultScale(s),
): Float64Array {
  checkDecodeAttentionShape(s);
  const { heads, kvHeads, headDim: d, kvLen: T } = s;
  const group = heads / kvHeads;
  const out = new Float64Array(heads * d);
  const p = new Float64Array(T);
  for (let h = 0; h < heads; h++) {
    const kvh = Math.floor(h / group);
    let m = -Infinity;
    for (let t = 0; t < T; t++) {
      let dot = 0;
      for (let i = 0; i < d; i++) dot += q[h * d + i]! * k[(kvh * T + t) * d + i]!;
      p[t] = dot * scale;
      m = Math.max(m, p[t]!);
    }
    let sum = 0;
    for (let t = 0; t < T; t++) sum += p[t] = Math.exp(p[t]! - m);
    for (let t = 0; t < T; t++) {
      const w = p[t]! / sum;
      for (let i = 0; i < d; i++) out[h * d + i]! += w * v[(kvh * T + t) * d + i]!;
    }
  }
  return out;
}

/** An online-softmax partial over a slice of the KV sequence, for `rows` query heads. */
export interface SoftmaxPartial {
  rows: number;
  headDim: number;
  /** Running maximum of the scaled scores, per row (−∞ for an empty slice). */
  max: Float64Array;
  /** Σ exp(score − max), per row. */
  sum: Float64Array;
  /** Σ exp(score − max) · v, per row (unnormalised output). */
  acc: Float64Array;
}

/**
 * The partial of the query heads of KV head `kvHead` over tokens [t0, t1), computed with the
 * online softmax (one token at a time, rescaling the running output when the max grows).
 */
export function attentionPartial(
  q: ArrayLike<number>,
  k: ArrayLike<number>,
  v: ArrayLike<number>,
  s: RequestAttentionShape,
  kvHead: number,
  t0: number,
  t1: number,
  scale = defaultScale(s),
): SoftmaxPartial {
  checkDecodeAttentionShape(s);
  const d = s.headDim;
  const T = s.kvLen;
  const group = s.heads / s.kvHeads;
  const part: SoftmaxPartial = {
    rows: group,
    headDim: d,
    max: new Float64Array(group).fill(-Infinity),
    sum: new Float64Array(group),
    acc: new Float64Array(group * d),
  };
  for (let r = 0; r < group; r++) {
    const h = kvHead * group + r;
    let m = -Infinity;
    let l = 0;
    const acc = part.acc;
    for (let t = t0; t < t1; t++) {
      const base = (kvHead * T + t) * d;
      let dot = 0;
      for (let i = 0; i < d; i++) dot += q[h * d + i]! * k[base + i]!;
      const x = dot * scale;
      const mNew = Math.max(m, x);
      const alpha = Math.exp(m - mNew);
      const p = Math.exp(x - mNew);
      l = l * alpha + p;
      for (let i = 0; i < d; i++) acc[r * d + i] = acc[r * d + i]! * alpha + p * v[base + i]!;
      m = mNew;
    }
    part.max[r] = m;
    part.sum[r] = l;
  }
  return part;
}

/**
 * Combine partials of the same rows into normalised outputs [rows, headDim]: global max
 * (a max-reduction), rescale each partial by exp(max_i − max), sum-reduce sums and outputs,
 * divide. Empty partials (max −∞) contribute nothing.
 */
export function combinePartials(parts: readonly SoftmaxPartial[]): Float64Array {
  const rows = parts[0]!.rows;
  const d = parts[0]!.headDim;
  const out = new Float64Array(rows * d);
  for (let r = 0; r < rows; r++) {
    let m = -Infinity;
    for (const p of parts) m = Math.max(m, p.max[r]!);
    let sum = 0;
    for (const p of parts) {
      if (p.max[r] === -Infinity) continue;
      const f = Math.exp(p.max[r]! - m);
      sum += p.sum[r]! * f;
      for (let i = 0; i < d; i++) out[r * d + i]! += p.acc[r * d + i]! * f;
    }
    for (let i = 0; i < d; i++) out[r * d + i]! /= sum;
  }
  return out;
}

/** Split-KV flash-decoding: one partial per `chunk` tokens and KV head, then combined. */
export function flashDecodeAttention(
  q: ArrayLike<number>,
  k: ArrayLike<number>,
  v: ArrayLike<number>,
  s: RequestAttentionShape,
  chunk: number,
  scale = defaultScale(s),
): Float64Array {
  checkDecodeAttentionShape(s);
  const d = s.headDim;
  const group = s.heads / s.kvHeads;
  const out = new Float64Array(s.heads * d);
  for (let kvh = 0; kvh < s.kvHeads; kvh++) {
    const parts: SoftmaxPartial[] = [];
    for (let t0 = 0; t0 < s.kvLen; t0 += chunk) parts.push(attentionPartial(q, k, v, s, kvh, t0, Math.min(s.kvLen, t0 + chunk), scale));
    out.set(combinePartials(parts), kvh * group * d);
  }
  return out;
}
