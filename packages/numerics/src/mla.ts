/**
 * DeepSeek multi-head latent attention (MLA) at decode. The cache holds, per token, a
 * compressed latent c (kvLoraRank values) and a shared rotary key k_rope (ropeDim). Head h
 * expands keys and values from the latent with W_UK[h] [nopeDim, rank] and
 * W_UV[h] [vDim, rank].
 *
 * Weight absorption moves the expansions onto the query and output sides:
 * q_nope·(W_UK c) = (W_UKᵀ q_nope)·c and Σ p·(W_UV c) = W_UV (Σ p·c), so attention runs
 * directly on the latent — multi-query attention with one "KV head" of width rank + ropeDim
 * — and the cache is never decompressed. Both forms compute the same function.
 */
import { attentionPartial, combinePartials, type SoftmaxPartial } from './attention.js';

export interface MlaShape {
  heads: number;
  nopeDim: number;
  ropeDim: number;
  vDim: number;
  kvLoraRank: number;
  kvLen: number;
}

export interface MlaInputs {
  /** [heads, nopeDim] */
  qNope: ArrayLike<number>;
  /** [heads, ropeDim] */
  qRope: ArrayLike<number>;
  /** [kvLen, kvLoraRank] */
  latent: ArrayLike<number>;
  /** [kvLen, ropeDim] */
  kRope: ArrayLike<number>;
  /** [heads, nopeDim, kvLoraRank] */
  wUk: ArrayLike<number>;
  /** [heads, vDim, kvLoraRank] */
  wUv: ArrayLike<number>;
}

function mlaScale(s: MlaShape): number {
  return 1 / Math.sqrt(s.nopeDim + s.ropeDim);
}

/** Decompress keys and values per head and token, then plain attention. Output [heads, vDim]. */
export function naiveMla(x: MlaInputs, s: MlaShape): Float64Array {
  const { heads: H, nopeDim: dn, ropeDim: dr, vDim: dv, kvLoraRank: R, kvLen: T } = s;
  const out = new Float64Array(H * dv);
  const scores = new Float64Array(T);
  const kN = new Float64Array(dn);
  for (let h = 0; h < H; h++) {
    let m = -Infinity;
    for (let t = 0; t < T; t++) {
      for (let i = 0; i < dn; i++) {
        let acc = 0;
        for (let r = 0; r < R; r++) acc += x.wUk[(h * dn + i) * R + r]! * x.latent[t * R + r]!;
        kN[i] = acc;
      }
      let dot = 0;
      for (let i = 0; i < dn; i++) dot += x.qNope[h * dn + i]! * kN[i]!;
      for (let i = 0; i < dr; i++) dot += x.qRope[h * dr + i]! * x.kRope[t * dr + i]!;
      scores[t] = dot * mlaScale(s);
      m = Math.max(m, scores[t]!);
    }
    let sum = 0;
    for (let t = 0; t < T; t++) sum += scores[t] = Math.exp(scores[t]! - m);
    for (let t = 0; t < T; t++) {
      const w = scores[t]! / sum;
      for (let j = 0; j < dv; j++) {
        let vv = 0;
        for (let r = 0; r < R; r++) vv += x.wUv[(h * dv + j) * R + r]! * x.latent[t * R + r]!;
        out[h * dv + j]! += w * vv;
      }
    }
  }
  return out;
}

/**
 * Absorbed MLA: q_lat = W_UKᵀ q_nope per head; MQA flash-decoding over [latent | k_rope]
 * keys and latent values in chunks of `chunk` tokens; output W_UV · o_lat.
 */
export function absorbedMla(x: MlaInputs, s: MlaShape, chunk = 256): Float64Array {
  const { heads: H, nopeDim: dn, ropeDim: dr, vDim: dv, kvLoraRank: R, kvLen: T } = s;
  const D = R + dr;
  // Absorbed queries [H, R + dr] and the latent cache as one MQA head [T, R + dr].
  const q = new Float64Array(H * D);
  for (let h = 0; h < H; h++) {
    for (let r = 0; r < R; r++) {
      let acc = 0;
      for (let i = 0; i < dn; i++) acc += x.wUk[(h * dn + i) * R + r]! * x.qNope[h * dn + i]!;
      q[h * D + r] = acc;
    }
    for (let i = 0; i < dr; i++) q[h * D + R + i] = x.qRope[h * dr + i]!;
  }
  const k = new Float64Array(T * D);
  const v = new Float64Array(T * D);
  for (let t = 0; t < T; t++) {
    for (let r = 0; r < R; r++) k[t * D + r] = v[t * D + r] = x.latent[t * R + r]!;
    for (let i = 0; i < dr; i++) k[t * D + R + i] = x.kRope[t * dr + i]!;
  }
  const shape = { heads: H, kvHeads: 1, headDim: D, kvLen: T };
  const parts: SoftmaxPartial[] = [];
  for (let t0 = 0; t0 < T; t0 += chunk) parts.push(attentionPartial(q, k, v, shape, 0, t0, Math.min(T, t0 + chunk), mlaScale(s)));
  const oLat = combinePartials(parts);
  const out = new Float64Array(H * dv);
  for (let h = 0; h < H; h++) {
    for (let j = 0; j < dv; j++) {
      let acc = 0;
      for (let r = 0; r < R; r++) acc += x.wUv[(h * dv + j) * R + r]! * oLat[h * D + r]!;
      out[h * dv + j] = acc;
    }
  }
  return out;
}
