/**
 * Tensor parallelism run with numbers: one decode step as `tp` ranks, each with its shard of
 * the weights and KV cache (column-parallel QKV and gate+up, row-parallel O and down,
 * vocab-parallel embedding and LM head), meeting at the op graph's collectives — an
 * all-reduce sums the ranks' partial tensors, the logits all-gather concatenates their
 * vocabulary shards. The result must equal the single-device reference: `fleet verify --tp`.
 */
import { buildDecodeGraph, inputError, tensorParallelProblem, tensorParallelShapes, type CollectiveOp, type ModelSpec, type OpGraph } from '@fleet/core';
import { Rng, rounder } from '@fleet/numerics';
import { DecodeOps, DEFAULT_SEMANTICS, type DecodeSemantics } from './decode-ops.js';
import { allocateState, referenceStep, tensorsOf, type DecodeState } from './reference.js';
import { checkRunnable, defaultTolerance, type VerifyOptions, type VerifyResult, type VerifyStep } from './verify.js';
import { modelFloatDType, randomWeights, type ModelWeights } from './weights.js';

/** Rows [r0, r1) of a row-major [rows, cols] matrix (rows past the end are zeros: a padded vocabulary shard). */
function rowsOf(m: Float32Array, cols: number, r0: number, r1: number): Float32Array {
  const out = new Float32Array((r1 - r0) * cols);
  const have = Math.max(0, Math.min(r1, m.length / cols) - r0);
  out.set(m.subarray(r0 * cols, (r0 + have) * cols));
  return out;
}

/** Columns [c0, c1) of a row-major [rows, cols] matrix. */
function colsOf(m: Float32Array, cols: number, c0: number, c1: number): Float32Array {
  const rows = m.length / cols;
  const w = c1 - c0;
  const out = new Float32Array(rows * w);
  for (let r = 0; r < rows; r++) out.set(m.subarray(r * cols + c0, r * cols + c1), r * w);
  return out;
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** The KV heads rank `rank` holds: its share, or the one head its query heads use when replicated. */
export function rankKvHeads(spec: ModelSpec, tp: number, rank: number): number[] {
  const s = tensorParallelShapes(spec, tp);
  if (spec.numKvHeads >= tp) return Array.from({ length: s.kvHeads }, (_, i) => rank * s.kvHeads + i);
  return [Math.floor((rank * spec.numKvHeads) / tp)];
}

/** Rank `rank`'s weights under the op graph's names, cut from the whole model's. */
export function shardWeights(spec: ModelSpec, weights: ModelWeights, tp: number, rank: number): ModelWeights {
  const s = tensorParallelShapes(spec, tp);
  const { hiddenSize: h, headDim: d, numHeads: nh, numKvHeads: nkv, intermediateSize: inter } = spec;
  const out: ModelWeights = new Map();
  const kv = rankKvHeads(spec, tp, rank);
  for (const [name, w] of weights) {
    const m = /^L(\d+)\.(.*)$/.exec(name);
    const base = m ? m[2]! : name;
    const at = (x: Float32Array) => out.set(name, x);
    switch (base) {
      case 'w_embed':
      case 'w_lm_head':
        at(rowsOf(w, h, rank * s.vocab, (rank + 1) * s.vocab));
        break;
      case 'w_qkv': {
        const q = rowsOf(w, h, rank * s.heads * d, (rank + 1) * s.heads * d);
        const k = concat(kv.map((j) => rowsOf(w, h, (nh + j) * d, (nh + j + 1) * d)));
        const v = concat(kv.map((j) => rowsOf(w, h, (nh + nkv + j) * d, (nh + nkv + j + 1) * d)));
        at(concat([q, k, v]));
        break;
      }
      case 'w_o':
        at(colsOf(w, nh * d, rank * s.heads * d, (rank + 1) * s.heads * d));
        break;
      case 'w_gate_up':
        at(
          concat([
            rowsOf(w, h, rank * s.intermediate, (rank + 1) * s.intermediate),
            rowsOf(w, h, inter + rank * s.intermediate, inter + (rank + 1) * s.intermediate),
          ]),
        );
        break;
      case 'w_down':
        at(colsOf(w, inter, rank * s.intermediate, (rank + 1) * s.intermediate));
        break;
      default:
        at(w); // norms: replicated
    }
  }
  if (spec.tieWordEmbeddings) out.set('w_embed', rowsOf(weights.get('w_embed')!, h, rank * s.vocab, (rank + 1) * s.vocab));
  return out;
}

/** A rank's KV cache [b, kvh_r, len, d], cut from the whole [b, kvh, len, d]. */
export function shardCache(cache: Float32Array, spec: ModelSpec, tp: number, rank: number, batch: number, len: number): Float32Array {
  const kv = rankKvHeads(spec, tp, rank);
  const d = spec.headDim;
  const out = new Float32Array(batch * kv.length * len * d);
  for (let b = 0; b < batch; b++) {
    kv.forEach((j, i) => {
      out.set(cache.subarray((b * spec.numKvHeads + j) * len * d, (b * spec.numKvHeads + j + 1) * len * d), (b * kv.length + i) * len * d);
    });
  }
  return out;
}

/**
 * Run one step on every rank, in op order; at a collective every rank has reached it
 * (the ranks run the same op sequence), so it is applied across their states at once.
 */
export function tensorParallelStep(
  graphs: readonly OpGraph[],
  weights: readonly ModelWeights[],
  sem: DecodeSemantics,
  states: readonly DecodeState[],
  vocab: number,
): void {
  const tp = graphs.length;
  const round = rounder(sem.dtype);
  const ops = graphs.map((g, r) => new DecodeOps(g, weights[r]!, sem));
  const t = states.map((s, r) => tensorsOf(s, weights[r]!));
  const shard = Math.ceil(vocab / tp);
  const n = graphs[0]!.ops.length;
  for (let i = 0; i < n; i++) {
    const op0 = graphs[0]!.ops[i]!;
    if (op0.kind === 'all-reduce') {
      const bufs = states.map((_, r) => t[r]!((graphs[r]!.ops[i] as CollectiveOp).inputs[0]!));
      for (let e = 0; e < bufs[0]!.length; e++) {
        let sum = 0;
        for (const b of bufs) sum += b[e]!;
        const v = round(sum);
        for (const b of bufs) b[e] = v;
      }
      continue;
    }
    if (op0.kind === 'all-gather') {
      const c = op0 as CollectiveOp;
      for (let r = 0; r < tp; r++) {
        const out = t[r]!(c.outputs[0]!);
        for (let q = 0; q < tp; q++) {
          const part = t[q]!(c.inputs[0]!);
          for (let row = 0; row < c.rows; row++) {
            for (let col = 0; col < c.cols; col++) {
              // Padding rows of the last vocabulary shard never win the argmax.
              out[row * c.cols * tp + q * c.cols + col] = q * shard + col < vocab ? part[row * c.cols + col]! : -Infinity;
            }
          }
        }
      }
      continue;
    }
    if (op0.kind === 'embedding') {
      // Vocab-parallel lookup: a token outside the rank's shard contributes zeros (the all-reduce adds the owner's row).
      for (let r = 0; r < tp; r++) {
        const table = t[r]!(op0.inputs[0]!);
        const tokens = t[r]!(op0.inputs[1]!);
        const h = t[r]!(op0.outputs[0]!);
        const cols = (graphs[r]!.ops[i] as { cols: number }).cols;
        for (let row = 0; row < tokens.length; row++) {
          const local = tokens[row]! - r * shard;
          for (let col = 0; col < cols; col++) h[row * cols + col] = local >= 0 && local < shard ? round(table[local * cols + col]!) : 0;
        }
      }
      continue;
    }
    for (let r = 0; r < tp; r++) ops[r]!.run(graphs[r]!.ops[i]!, t[r]!);
  }
}

/** `verify`'s run options (batch, context, steps, seed, weights, semantics, tolerance) over `tp` ranks. */
export interface TensorParallelVerifyOptions extends Pick<VerifyOptions, 'batch' | 'contextLen' | 'steps' | 'seed' | 'weights' | 'semantics' | 'tolerance'> {
  tp: number;
}

/**
 * `fleet verify --tp N`: decode steps of a small model on `tp` ranks against the
 * single-device reference, from the same weights, prefilled KV cache and tokens. The runs
 * differ only in where partial sums are rounded (each rank's O/down/LM-head partials, then
 * their sum), so the logits agree to the storage type's rounding.
 */
export function verifyTensorParallel(spec: ModelSpec, opts: TensorParallelVerifyOptions): VerifyResult {
  const dtype = modelFloatDType(spec);
  const tolerance = opts.tolerance ?? defaultTolerance(dtype);
  const base = { backend: 'reference', policy: `tp${opts.tp}`, tolerance, steps: [] as VerifyStep[] };
  const problem = tensorParallelProblem(spec, opts.tp);
  if (problem) throw inputError(`\`tp\`: ${problem} (model ${spec.name})`, 'tp');
  checkRunnable(spec);
  const tp = opts.tp;
  const batch = opts.batch ?? 2;
  const context = opts.contextLen ?? 300;
  const steps = opts.steps ?? 2;
  const seed = opts.seed ?? 1;
  const sem: DecodeSemantics = { ...DEFAULT_SEMANTICS, dtype, ...opts.semantics };
  const round = rounder(sem.dtype);
  const weights = opts.weights ?? randomWeights(spec, seed);
  const rankWeights = Array.from({ length: tp }, (_, r) => shardWeights(spec, weights, tp, r));
  const rng = new Rng((Math.imul(seed, 0x9e3779b1) + 1) >>> 0);
  const { numLayers: L, numKvHeads: kvh, headDim: d, vocabSize: vocab } = spec;
  const graphSpec: ModelSpec = spec.dtype === 'fp32' ? { ...spec, dtype: 'bf16' } : spec;
  const cacheNames = Array.from({ length: L }, (_, l) => [`L${l}.k_cache`, `L${l}.v_cache`]).flat();
  // The whole cache (random, a prefilled prompt); both runs grow it with their own appends.
  let refCache = new Map<string, Float32Array>();
  for (const n of cacheNames)
    refCache.set(
      n,
      Float32Array.from(rng.normals(batch * kvh * context * d), (x) => round(x)),
    );
  let rankCache = Array.from({ length: tp }, (_, r) => new Map(cacheNames.map((n) => [n, shardCache(refCache.get(n)!, spec, tp, r, batch, context)])));
  let tokens = Float32Array.from({ length: batch }, () => rng.int(vocab));
  const kvr = rankKvHeads(spec, tp, 0).length;
  let worst = 0;
  for (let step = 0; step < steps; step++) {
    const ctx = context + step;
    const grow = (c: Float32Array, heads: number) => {
      const out = new Float32Array(batch * heads * (ctx + 1) * d);
      for (let e = 0; e < batch * heads; e++) out.set(c.subarray(e * ctx * d, (e + 1) * ctx * d), e * (ctx + 1) * d);
      return out;
    };
    const g1 = buildDecodeGraph(graphSpec, { batch, contextLen: ctx });
    const ref = allocateState(g1);
    for (const n of cacheNames) ref.set(n, grow(refCache.get(n)!, kvh));
    ref.get('tokens')!.set(tokens);
    referenceStep(g1, weights, sem, ref);
    const gs = Array.from({ length: tp }, () => buildDecodeGraph(graphSpec, { batch, contextLen: ctx, tp }));
    const states = gs.map((g, r) => {
      const s = allocateState(g);
      for (const n of cacheNames) s.set(n, grow(rankCache[r]!.get(n)!, kvr));
      s.get('tokens')!.set(tokens);
      return s;
    });
    tensorParallelStep(gs, rankWeights, sem, states, vocab);
    const want = ref.get('logits')!;
    const cols = gs[0]!.ops.find((o) => o.kind === 'argmax')!;
    const width = (cols as { cols: number }).cols;
    const got = new Float32Array(want.length);
    for (let b = 0; b < batch; b++) got.set(states[0]!.get('logits')!.subarray(b * width, b * width + vocab), b * vocab);
    let abs = 0;
    let scale = 0;
    for (let i = 0; i < want.length; i++) {
      const e = Math.abs(got[i]! - want[i]!);
      abs = Number.isNaN(e) ? Infinity : Math.max(abs, e);
      scale = Math.max(scale, Math.abs(want[i]!));
    }
    const rel = scale > 0 ? abs / scale : abs;
    const refTokens = ref.get('tokens')!;
    let mismatches = 0;
    for (let b = 0; b < batch; b++) {
      const ft = states[0]!.get('tokens')![b]!;
      if (ft !== refTokens[b] && !(want[b * vocab + ft]! >= want[b * vocab + refTokens[b]!]! - 2 * abs)) mismatches++;
    }
    base.steps.push({
      step,
      contextLen: ctx,
      maxRelError: rel,
      maxAbsError: abs,
      tokenMismatches: mismatches,
      cacheRelError: 0,
      tasks: gs[0]!.ops.length,
      simulatedNs: 0,
    });
    worst = Math.max(worst, rel);
    refCache = new Map(cacheNames.map((n) => [n, ref.get(n)!]));
    rankCache = states.map((s) => new Map(cacheNames.map((n) => [n, s.get(n)!])));
    tokens = refTokens.slice();
  }
  const bad = base.steps.reduce((n, s) => n + s.tokenMismatches, 0);
  const reason =
    worst > tolerance
      ? `max relative error ${worst.toExponential(2)} exceeds the tolerance ${tolerance.toExponential(2)}`
      : bad > 0
        ? `${bad} greedy tokens differ from the single-device reference without a near-tie`
        : undefined;
  return { ...base, status: reason ? 'fail' : 'pass', ...(reason ? { reason } : {}), maxRelError: worst };
}
