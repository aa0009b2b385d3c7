/**
 * Prefill attention over a prompt: causal self-attention of `seq` tokens. FlashAttention-2
 * tiles the queries into blocks of `blockQ` rows (one thread block each) and streams the
 * keys/values in blocks of `blockKv`, keeping a running max, sum and unnormalised output
 * per query row and normalising once at the end; blocks above the diagonal are skipped.
 *
 * Layouts (token-major, as activations are stored): q [seq, heads·headDim],
 * k and v [seq, kvHeads·headDim]; output [seq, heads·headDim].
 */
export interface PrefillShape {
  seq: number;
  heads: number;
  kvHeads: number;
  headDim: number;
}

/** Causal softmax attention, row by row (the reference). */
export function naiveCausalAttention(
  q: ArrayLike<number>,
  k: ArrayLike<number>,
  v: ArrayLike<number>,
  s: PrefillShape,
  scale = 1 / Math.sqrt(s.headDim),
): Float64Array {
  const { seq: S, heads: H, kvHeads: KH, headDim: d } = s;
  const group = H / KH;
  const out = new Float64Array(S * H * d);
  const p = new Float64Array(S);
  for (let h = 0; h < H; h++) {
    const kh = Math.floor(h / group);
    for (let i = 0; i < S; i++) {
      let m = -Infinity;
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += q[(i * H + h) * d + c]! * k[(j * KH + kh) * d + c]!;
        p[j] = dot * scale;
        m = Math.max(m, p[j]!);
      }
      let sum = 0;
      for (let j = 0; j <= i; j++) sum += p[j] = Math.exp(p[j]! - m);
      for (let j = 0; j <= i; j++) {
        const w = p[j]! / sum;
        for (let c = 0; c < d; c++) out[(i * H + h) * d + c]! += w * v[(j * KH + kh) * d + c]!;
      }
    }
  }
  return out;
}

/** FlashAttention-2 forward with causal masking, tile by tile. */
export function flashAttention2(
  q: ArrayLike<number>,
  k: ArrayLike<number>,
  v: ArrayLike<number>,
  s: PrefillShape,
  blockQ = 64,
  blockKv = 64,
  scale = 1 / Math.sqrt(s.headDim),
): Float64Array {
  const { seq: S, heads: H, kvHeads: KH, headDim: d } = s;
  const group = H / KH;
  const out = new Float64Array(S * H * d);
  const m = new Float64Array(blockQ);
  const l = new Float64Array(blockQ);
  const o = new Float64Array(blockQ * d);
  const sc = new Float64Array(blockKv);
  for (let h = 0; h < H; h++) {
    const kh = Math.floor(h / group);
    for (let q0 = 0; q0 < S; q0 += blockQ) {
      const q1 = Math.min(S, q0 + blockQ);
      m.fill(-Infinity);
      l.fill(0);
      o.fill(0);
      // Key blocks up to the diagonal block only.
      for (let k0 = 0; k0 < q1; k0 += blockKv) {
        const k1 = Math.min(S, k0 + blockKv);
        for (let i = q0; i < q1; i++) {
          const r = i - q0;
          let rowMax = -Infinity;
          for (let j = k0; j < k1; j++) {
            if (j > i) {
              sc[j - k0] = -Infinity;
              continue;
            }
            let dot = 0;
            for (let c = 0; c < d; c++) dot += q[(i * H + h) * d + c]! * k[(j * KH + kh) * d + c]!;
            sc[j - k0] = dot * scale;
            rowMax = Math.max(rowMax, sc[j - k0]!);
          }
          if (rowMax === -Infinity) continue;
          const mNew = Math.max(m[r]!, rowMax);
          const alpha = Math.exp(m[r]! - mNew);
          let rowSum = 0;
          for (let c = 0; c < d; c++) o[r * d + c]! *= alpha;
          for (let j = k0; j < k1; j++) {
            if (sc[j - k0] === -Infinity) continue;
            const p = Math.exp(sc[j - k0]! - mNew);
            rowSum += p;
            for (let c = 0; c < d; c++) o[r * d + c]! += p * v[(j * KH + kh) * d + c]!;
          }
          l[r] = l[r]! * alpha + rowSum;
          m[r] = mNew;
        }
      }
      for (let i = q0; i < q1; i++) {
        const r = i - q0;
        for (let c = 0; c < d; c++) out[(i * H + h) * d + c] = o[r * d + c]! / l[r]!;
      }
    }
  }
  return out;
}
