/**
 * Row-wise and elementwise decoder ops: RMSNorm, residual add, gated activations. Each
 * computes in double and stores through `round` (the storage type's rounding).
 */

export type Round = (v: number) => number;

/** y = x / sqrt(mean(x²) + eps) · w over `cols` elements (one row). */
export function rmsnorm(
  x: ArrayLike<number>,
  xOff: number,
  w: ArrayLike<number> | null,
  cols: number,
  eps: number,
  out: { [i: number]: number },
  outOff: number,
  round: Round = Math.fround,
): void {
  let ss = 0;
  for (let i = 0; i < cols; i++) ss += x[xOff + i]! * x[xOff + i]!;
  const inv = 1 / Math.sqrt(ss / cols + eps);
  for (let i = 0; i < cols; i++) out[outOff + i] = round(x[xOff + i]! * inv * (w ? w[i]! : 1));
}

export function silu(x: number): number {
  return x / (1 + Math.exp(-x));
}

/** GELU, tanh approximation (Gemma's `gelu_pytorch_tanh`). */
export function geluTanh(x: number): number {
  return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
}

export type Activation = 'silu' | 'gelu-tanh';

export function activationFn(a: Activation): (x: number) => number {
  return a === 'silu' ? silu : geluTanh;
}

/**
 * Gated activation of one row: out[i] = act(gate[i]) · up[i], with gate and up the two
 * halves of a [2·cols] row (gate first, as a fused gate+up projection writes them).
 */
export function actMul(
  gateUp: ArrayLike<number>,
  off: number,
  cols: number,
  act: Activation,
  out: { [i: number]: number },
  outOff: number,
  round: Round = Math.fround,
): void {
  const f = activationFn(act);
  for (let i = 0; i < cols; i++) out[outOff + i] = round(f(gateUp[off + i]!) * gateUp[off + cols + i]!);
}

/** out[i] = a[i] + b[i] over `n` elements. */
export function residualAdd(
  a: ArrayLike<number>,
  aOff: number,
  b: ArrayLike<number>,
  bOff: number,
  n: number,
  out: { [i: number]: number },
  outOff: number,
  round: Round = Math.fround,
): void {
  for (let i = 0; i < n; i++) out[outOff + i] = round(a[aOff + i]! + b[bOff + i]!);
}

/** Numerically stable softmax of `n` values, in double. */
export function softmax(x: ArrayLike<number>, off = 0, n = x.length - off): Float64Array {
  let m = -Infinity;
  for (let i = 0; i < n; i++) m = Math.max(m, x[off + i]!);
  const out = new Float64Array(n);
  let s = 0;
  for (let i = 0; i < n; i++) s += out[i] = Math.exp(x[off + i]! - m);
  for (let i = 0; i < n; i++) out[i]! /= s;
  return out;
}

/** Index of the first maximum of `n` values (greedy sampling). */
export function argmax(x: ArrayLike<number>, off = 0, n = x.length - off): number {
  let best = 0;
  let bv = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = x[off + i]!;
    if (v > bv) {
      bv = v;
      best = i;
    }
  }
  return best;
}
