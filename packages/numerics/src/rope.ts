/**
 * Rotary position embedding in the rotate-half convention of the Hugging Face Llama/Qwen
 * code: element i of a head pairs with element i + d/2, rotated by position · θ^(−2i/d).
 */
import type { Round } from './elementwise.js';

/** Rotate one head vector of `headDim` elements at `off`, in place. */
export function ropeInPlace(v: { [i: number]: number }, off: number, headDim: number, position: number, theta: number, round: Round = Math.fround): void {
  const half = headDim / 2;
  for (let i = 0; i < half; i++) {
    const angle = position * theta ** (-(2 * i) / headDim);
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    const x1 = v[off + i]!;
    const x2 = v[off + half + i]!;
    v[off + i] = round(x1 * c - x2 * s);
    v[off + half + i] = round(x2 * c + x1 * s);
  }
}
