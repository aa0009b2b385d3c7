/**
 * Linear layers in nn.Linear layout: y[m, n] = Σ_k x[m, k] · W[n, k] (the weight is
 * [out, in], row-major). GEMV is the m = 1 case. Sums are formed in double in k order and
 * rounded once on store.
 */

/** A sub-block of the output and the K range it sums over (all of K unless split). */
export interface LinearBox {
  m0: number;
  m1: number;
  n0: number;
  n1: number;
  k0?: number;
  k1?: number;
}

/**
 * Unrounded partial sums of one output box: a [m1−m0, n1−n0] row-major array. Split-K
 * tiles call this with their K range and add the partials.
 */
export function linearBox(x: ArrayLike<number>, w: ArrayLike<number>, k: number, box: LinearBox): Float64Array {
  const k0 = box.k0 ?? 0;
  const k1 = box.k1 ?? k;
  const cols = box.n1 - box.n0;
  const out = new Float64Array((box.m1 - box.m0) * cols);
  for (let m = box.m0; m < box.m1; m++) {
    const xo = m * k;
    for (let n = box.n0; n < box.n1; n++) {
      const wo = n * k;
      let s = 0;
      for (let kk = k0; kk < k1; kk++) s += x[xo + kk]! * w[wo + kk]!;
      out[(m - box.m0) * cols + (n - box.n0)] = s;
    }
  }
  return out;
}

/** y = x Wᵀ for x [m, k] and W [n, k], each output rounded by `round` (default: fp32). */
export function linear(x: ArrayLike<number>, w: ArrayLike<number>, m: number, n: number, k: number, round: (v: number) => number = Math.fround): Float32Array {
  const p = linearBox(x, w, k, { m0: 0, m1: m, n0: 0, n1: n });
  const y = new Float32Array(m * n);
  for (let i = 0; i < y.length; i++) y[i] = round(p[i]!);
  return y;
}

/** Matrix–vector product y = W x (x of length k). */
export function gemv(w: ArrayLike<number>, x: ArrayLike<number>, n: number, k: number, round: (v: number) => number = Math.fround): Float32Array {
  return linear(x, w, 1, n, k, round);
}
