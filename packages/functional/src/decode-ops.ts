/**
 * The numerics of each op of a decode op graph, on whole tensors. The straight-line
 * reference runs them op after op; the functional executor runs the same functions on a
 * task's view of memory and keeps the part the task writes. Every op stores its outputs
 * rounded to the model's dtype, as a kernel writing activations to memory does (fused
 * kernels included: a value a fused kernel keeps in registers is rounded as if it were
 * stored, so fusion alone never changes a number and the comparison stays tight).
 *
 * Semantics (the Hugging Face Llama/Qwen3 computation restricted to what the op graph
 * models): RMSNorm with weight; per-head q/k RMSNorm (Qwen3); rotate-half RoPE at the
 * position of the new token; gated SiLU/GELU MLP; greedy argmax. Biases and Gemma's extra
 * scalings are not part of the op graph and are not applied.
 */
import type { AttentionOp, GroupedLinearOp, LinearOp, OpGraph, OpNode, RowOp } from '@fleet/core';
import {
  actMul,
  argmax,
  attentionPartial,
  combinePartials,
  type RequestAttentionShape,
  type FloatDType,
  type FloatType,
  type Fp8Scaling,
  dequantizeFp8,
  quantizeFp8,
  linearBox,
  type LinearBox,
  naiveDecodeAttention,
  residualAdd,
  rmsnorm,
  ropeInPlace,
  rounder,
  type SoftmaxPartial,
} from '@fleet/numerics';
import type { ModelWeights } from './weights.js';

export interface DecodeSemantics {
  dtype: FloatDType;
  /** RMSNorm epsilon. */
  eps: number;
  /** RoPE base θ. */
  ropeTheta: number;
}

export const DEFAULT_SEMANTICS: DecodeSemantics = { dtype: 'bf16', eps: 1e-6, ropeTheta: 10000 };

/**
 * W8A8 FP8 linears: the decoder layers' projections (layers 0..layers−1; the LM head stays
 * in the model's dtype) multiply FP8 codes of the weight and of the activation, each with
 * fp32 scales per tensor or per row (weight output channel, activation token), as
 * `torch._scaled_mm` does; the activation's scales are taken over the whole input tensor.
 */
export interface Fp8Linears {
  weights: FloatType;
  activations: FloatType;
  scaling: Fp8Scaling;
  layers: number;
}

/** Whole tensors by name (activations and caches of a view, or weights). */
export type Tensors = (name: string) => Float32Array;

/** A KV-sequence slice [t0, t1) of one flash-decoding tile. */
export interface KvChunk {
  t0: number;
  t1: number;
}

export class DecodeOps {
  readonly round: (x: number) => number;
  private readonly attentionOfLayer = new Map<number, AttentionOp>();

  private readonly fp8Weights = new Map<string, Float64Array>();

  constructor(
    readonly graph: OpGraph,
    readonly weights: ModelWeights,
    readonly sem: DecodeSemantics,
    readonly fp8?: Fp8Linears,
  ) {
    this.round = rounder(sem.dtype);
    for (const op of graph.ops) if (op.kind === 'attention') this.attentionOfLayer.set(op.layer, op);
  }

  /** Heads, KV heads and head size of a layer (from its attention op). */
  heads(layer: number): AttentionOp {
    const a = this.attentionOfLayer.get(layer);
    if (!a) throw new Error(`op graph has no attention op in layer ${layer}`);
    return a;
  }

  /** Columns of one request's row of `qkv`. */
  qkvCols(layer: number): number {
    const a = this.heads(layer);
    return (a.heads + 2 * a.kvHeads) * a.headDim;
  }

  /**
   * Elements of head-row `j` of a q/k-norm or RoPE op (rows run over requests, then the
   * query and key heads of each): the first element in `qkv` and the count.
   */
  headRowElements(op: RowOp, j: number): { start: number; count: number } {
    const a = this.heads(op.layer);
    const per = a.heads + a.kvHeads;
    return { start: Math.floor(j / per) * this.qkvCols(op.layer) + (j % per) * a.headDim, count: a.headDim };
  }

  /** The KV-cache entry (request, KV head) written by KV-append row `j` (a K row and a V row per entry). */
  kvAppendEntry(op: RowOp, j: number): { request: number; kvHead: number } {
    const a = this.heads(op.layer);
    const e = j >> 1;
    return { request: Math.floor(e / a.kvHeads), kvHead: e % a.kvHeads };
  }

  /** First element of cache entry (request, KV head, position). */
  cacheElement(layer: number, request: number, kvHead: number, position: number): number {
    const a = this.heads(layer);
    return ((request * a.kvHeads + kvHead) * a.kvLen + position) * a.headDim;
  }

  /** Run a row-wise op over all its rows, in place in `t`. */
  rowOp(op: RowOp, t: Tensors): void {
    const r = this.round;
    switch (op.kind) {
      case 'embedding': {
        const table = t(op.inputs[0]!);
        const tokens = t(op.inputs[1]!);
        const h = t(op.outputs[0]!);
        const vocab = table.length / op.cols;
        for (let row = 0; row < op.rows; row++) {
          const tok = tokens[row]!;
          if (!(Number.isInteger(tok) && tok >= 0 && tok < vocab)) throw new RangeError(`embedding: token ${tok} of request ${row} is outside 0..${vocab - 1}`);
          for (let c = 0; c < op.cols; c++) h[row * op.cols + c] = r(table[tok * op.cols + c]!);
        }
        return;
      }
      case 'rmsnorm': {
        const x = t(op.inputs[0]!);
        const w = op.inputs[1] ? t(op.inputs[1]) : null;
        const y = t(op.outputs[0]!);
        // Rows may be wider than the normed part (MLA: the latent before its rotary key).
        const ld = Math.max(op.cols, this.rowWidth(op.outputs[0]!, op.rows));
        for (let row = 0; row < op.rows; row++) rmsnorm(x, row * ld, w, op.cols, this.sem.eps, y, row * ld, r);
        return;
      }
      case 'qk-norm': {
        const qkv = t(op.inputs[0]!);
        const a = this.heads(op.layer);
        const wq = this.weights.get(`L${op.layer}.w_q_norm`) ?? null;
        const wk = this.weights.get(`L${op.layer}.w_k_norm`) ?? null;
        for (let j = 0; j < op.rows; j++) {
          const { start } = this.headRowElements(op, j);
          const isQ = j % (a.heads + a.kvHeads) < a.heads;
          rmsnorm(qkv, start, isQ ? wq : wk, op.cols, this.sem.eps, qkv, start, r);
        }
        return;
      }
      case 'rope': {
        if (op.inputs.length > 1) {
          // MLA: the rotary tail of each head's q row and of the new latent's key.
          const q = t(op.inputs[0]!);
          const kv = t(op.inputs[1]!);
          const b = this.graph.batch;
          const nh = op.rows / b - 1;
          const qCols = this.rowWidth(op.inputs[0]!, b);
          const kvCols = this.rowWidth(op.inputs[1]!, b);
          for (let req = 0; req < b; req++) {
            for (let h = 0; h < nh; h++) ropeInPlace(q, req * qCols + (h + 1) * (qCols / nh) - op.cols, op.cols, this.graph.contextLen, this.sem.ropeTheta, r);
            ropeInPlace(kv, req * kvCols + kvCols - op.cols, op.cols, this.graph.contextLen, this.sem.ropeTheta, r);
          }
          return;
        }
        const qkv = t(op.inputs[0]!);
        for (let j = 0; j < op.rows; j++) ropeInPlace(qkv, this.headRowElements(op, j).start, op.cols, this.graph.contextLen, this.sem.ropeTheta, r);
        return;
      }
      case 'kv-append': {
        if (op.outputs.length === 1) {
          // MLA: the new latent row into each request's cache at position kvLen − 1.
          const src = t(op.inputs[0]!);
          const cache = t(op.outputs[0]!);
          const kvLen = cache.length / (op.rows * op.cols);
          for (let req = 0; req < op.rows; req++) {
            for (let i = 0; i < op.cols; i++) cache[(req * kvLen + kvLen - 1) * op.cols + i] = r(src[req * op.cols + i]!);
          }
          return;
        }
        const qkv = t(op.inputs[0]!);
        const [kName, vName] = op.outputs;
        const k = t(kName!);
        const v = t(vName!);
        const a = this.heads(op.layer);
        const cols = this.qkvCols(op.layer);
        for (let j = 0; j < op.rows; j++) {
          const { request, kvHead } = this.kvAppendEntry(op, j);
          const dst = this.cacheElement(op.layer, request, kvHead, a.kvLen - 1);
          const ks = request * cols + (a.heads + kvHead) * a.headDim;
          const vs = request * cols + (a.heads + a.kvHeads + kvHead) * a.headDim;
          for (let i = 0; i < a.headDim; i++) {
            k[dst + i] = r(qkv[ks + i]!);
            v[dst + i] = r(qkv[vs + i]!);
          }
        }
        return;
      }
      case 'residual': {
        const a = t(op.inputs[0]!);
        const b = t(op.inputs[1]!);
        const y = t(op.outputs[0]!);
        residualAdd(a, 0, b, 0, op.rows * op.cols, y, 0, r);
        return;
      }
      case 'act-mul': {
        const gu = t(op.inputs[0]!);
        const y = t(op.outputs[0]!);
        for (let row = 0; row < op.rows; row++) actMul(gu, row * 2 * op.cols, op.cols, op.activation ?? 'silu', y, row * op.cols, r);
        return;
      }
      case 'argmax': {
        const logits = t(op.inputs[0]!);
        const tokens = t(op.outputs[0]!);
        for (let row = 0; row < op.rows; row++) tokens[row] = argmax(logits, row * op.cols, op.cols);
        return;
      }
      case 'moe-topk':
        this.moeTopk(op, t);
        return;
      case 'moe-dispatch': {
        // Slot s (expert order) holds token s mod batch (see `slotExperts`).
        const x = t(op.inputs[0]!);
        const y = t(op.outputs[0]!);
        const b = this.graph.batch;
        for (let s = 0; s < op.rows; s++) for (let c = 0; c < op.cols; c++) y[s * op.cols + c] = r(x[(s % b) * op.cols + c]!);
        return;
      }
      case 'moe-combine':
        this.moeCombine(op, t);
        return;
    }
  }

  /**
   * The expert of each token slot of layer `layer`, in expert order. The op graph fixes which
   * experts receive how many tokens (routing is an input); slot s goes to token s mod batch,
   * which gives every token exactly k distinct experts (no expert has more rows than tokens).
   */
  slotExperts(layer: number): number[] {
    const g = this.graph.ops.find((o) => o.layer === layer && o.kind === 'grouped-linear' && o.role === 'experts') as GroupedLinearOp | undefined;
    if (!g) throw new Error(`op graph has no expert GEMM in layer ${layer}`);
    return g.groups.flatMap((x) => new Array<number>(x.rows).fill(x.group));
  }

  /**
   * Gating weights of each token's experts: the router's scores (softmax or sigmoid over all
   * experts) at the experts the step routes it to, renormalised if the model does so, scaled.
   * Stored per token as (expert, weight) pairs in slot order.
   */
  private moeTopk(op: RowOp, t: Tensors): void {
    const logits = t(op.inputs[0]!);
    const out = t(op.outputs[0]!);
    const k = op.topK ?? 1;
    const E = op.cols;
    const gating = op.gating ?? { scoring: 'softmax', normalize: true, scale: 1 };
    const slots = this.slotExperts(op.layer);
    for (let tok = 0; tok < op.rows; tok++) {
      const row = logits.subarray(tok * E, (tok + 1) * E);
      let score: (e: number) => number;
      if (gating.scoring === 'sigmoid') score = (e) => 1 / (1 + Math.exp(-row[e]!));
      else {
        let m = -Infinity;
        for (let e = 0; e < E; e++) m = Math.max(m, row[e]!);
        let sum = 0;
        for (let e = 0; e < E; e++) sum += Math.exp(row[e]! - m);
        score = (e) => Math.exp(row[e]! - m) / sum;
      }
      const mine = slots.flatMap((e, s) => (s % op.rows === tok ? [e] : []));
      const w = mine.map(score);
      const norm = gating.normalize ? w.reduce((a, x) => a + x, 0) : 1;
      for (let j = 0; j < k; j++) {
        out[tok * 2 * k + 2 * j] = mine[j] ?? 0;
        out[tok * 2 * k + 2 * j + 1] = Math.fround(((w[j] ?? 0) / norm) * gating.scale);
      }
    }
  }

  /** Each token's output: Σ weight × its expert rows, plus the shared experts' row (× its sigmoid gate). */
  private moeCombine(op: RowOp, t: Tensors): void {
    const e = t(op.inputs[0]!);
    const topk = t(op.inputs[1]!);
    const shared = op.inputs[2] ? t(op.inputs[2]) : null;
    const gate = op.inputs[3] ? t(op.inputs[3]) : null;
    const y = t(op.outputs[0]!);
    const k = op.topK ?? 1;
    const b = op.rows;
    const H = op.cols;
    const slots = this.slotExperts(op.layer).length;
    const seen = new Array<number>(b).fill(0);
    const acc = new Float64Array(b * H);
    for (let s = 0; s < slots; s++) {
      const tok = s % b;
      const w = topk[tok * 2 * k + 2 * seen[tok]!++ + 1]!;
      for (let c = 0; c < H; c++) acc[tok * H + c]! += w * e[s * H + c]!;
    }
    for (let tok = 0; tok < b; tok++) {
      const g = gate ? 1 / (1 + Math.exp(-gate[tok]!)) : 1;
      for (let c = 0; c < H; c++) y[tok * H + c] = this.round(acc[tok * H + c]! + (shared ? g * shared[tok * H + c]! : 0));
    }
  }

  /** Elements per row of a graph tensor with `rows` rows, or 0. */
  rowWidth(tensor: string, rows: number): number {
    const spec = this.graph.tensors.find((x) => x.name === tensor);
    return spec && spec.shape.length === 2 && spec.shape[0] === rows ? spec.shape[1]! : 0;
  }

  /** A whole grouped GEMM (each group's rows times its weight slice), stored rounded. */
  grouped(op: GroupedLinearOp, t: Tensors): void {
    const x = t(op.inputs[0]!);
    const w = t(op.weight);
    const y = t(op.outputs[0]!);
    const lay = op.layout;
    if (lay) {
      // Per-head GEMMs on strided views: gather the group's rows, multiply, scatter.
      for (const g of op.groups) {
        const xs = new Float32Array(g.rows * op.k);
        for (let r = 0; r < g.rows; r++)
          for (let c = 0; c < op.k; c++) xs[r * op.k + c] = x[r * lay.in.rowStride + g.group * lay.in.groupStride + lay.in.offset + c]!;
        const slice = w.subarray(g.group * op.n * op.k, (g.group + 1) * op.n * op.k);
        const p = linearBox(xs, slice, op.k, { m0: 0, m1: g.rows, n0: 0, n1: op.n });
        for (let r = 0; r < g.rows; r++)
          for (let c = 0; c < op.n; c++) y[r * lay.out.rowStride + g.group * lay.out.groupStride + lay.out.offset + c] = this.round(p[r * op.n + c]!);
      }
      return;
    }
    let row0 = 0;
    for (const g of op.groups) {
      const slice = w.subarray(g.group * op.n * op.k, (g.group + 1) * op.n * op.k);
      const p = linearBox(x.subarray(row0 * op.k, (row0 + g.rows) * op.k), slice, op.k, { m0: 0, m1: g.rows, n0: 0, n1: op.n });
      for (let i = 0; i < p.length; i++) y[row0 * op.n + i] = this.round(p[i]!);
      row0 += g.rows;
    }
  }

  /** Whether `op` runs as a W8A8 FP8 GEMM (a decoder layer's projection under `fp8`). */
  isFp8(op: LinearOp): boolean {
    return this.fp8 !== undefined && op.layer >= 0 && op.layer < this.fp8.layers;
  }

  /**
   * Unrounded partial sums of a linear op over a box (and K range). FP8 linears sum the
   * products of the dequantised codes (code · scale), which is the scaled GEMM's sum with
   * its per-row scales moved inside; split-K partials add up to it.
   */
  linearBox(op: LinearOp, t: Tensors, box: LinearBox): Float64Array {
    if (!this.isFp8(op)) return linearBox(t(op.inputs[0]!), t(op.weight), op.k, box);
    const f = this.fp8!;
    const x = t(op.inputs[0]!);
    const rows = x.length / op.k;
    const xq = dequantizeFp8(quantizeFp8(x, rows, op.k, f.activations, f.scaling));
    let w = this.fp8Weights.get(op.weight);
    if (!w) {
      w = dequantizeFp8(quantizeFp8(t(op.weight), op.n, op.k, f.weights, f.scaling));
      this.fp8Weights.set(op.weight, w);
    }
    return linearBox(xq, w, op.k, box);
  }

  /** The whole linear op, stored rounded. */
  linear(op: LinearOp, t: Tensors): void {
    const p = this.linearBox(op, t, { m0: 0, m1: op.m, n0: 0, n1: op.n });
    const y = t(op.outputs[0]!);
    for (let i = 0; i < p.length; i++) y[i] = this.round(p[i]!);
  }

  private attentionInputs(op: AttentionOp, t: Tensors, request: number): { q: Float32Array; k: Float32Array; v: Float32Array; shape: RequestAttentionShape } {
    const d = op.headDim;
    const qkv = t(op.inputs[0]!);
    const cols = (op.heads + 2 * op.kvHeads) * d;
    const span = op.kvHeads * op.kvLen * d;
    return {
      q: qkv.subarray(request * cols, request * cols + op.heads * d),
      k: t(op.kCache).subarray(request * span, (request + 1) * span),
      v: t(op.vCache).subarray(request * span, (request + 1) * span),
      shape: { heads: op.heads, kvHeads: op.kvHeads, headDim: d, kvLen: op.kvLen },
    };
  }

  /** Plain attention for every request (the reference), stored rounded. */
  attentionNaive(op: AttentionOp, t: Tensors): void {
    const out = t(op.outputs[0]!);
    for (let b = 0; b < op.batch; b++) {
      const x = this.attentionInputs(op, t, b);
      const o = naiveDecodeAttention(x.q, x.k, x.v, x.shape);
      for (let i = 0; i < o.length; i++) out[b * op.heads * op.headDim + i] = this.round(o[i]!);
    }
  }

  /**
   * Flash-decoding for one request and KV head: one online-softmax partial per chunk,
   * combined; returns the group's output rows [group, headDim], unrounded.
   */
  attentionGroup(op: AttentionOp, t: Tensors, request: number, kvHead: number, chunks: readonly KvChunk[]): Float64Array {
    const x = this.attentionInputs(op, t, request);
    const parts: SoftmaxPartial[] = chunks.map((c) => attentionPartial(x.q, x.k, x.v, x.shape, kvHead, c.t0, c.t1));
    return combinePartials(parts);
  }

  /**
   * Weight-absorbed MLA for every request: MQA of the queries [q_lat | q_rope] over the cached
   * [latent | k_rope], values the latent, scale 1/√(nope + rope); output the latent per head.
   */
  latentAttention(op: AttentionOp, t: Tensors): void {
    const { rank, ropeDim } = op.latent!;
    const D = rank + ropeDim;
    const H = op.heads;
    const qLat = t(op.inputs[0]!);
    const q = t(op.inputs[1]!);
    const cache = t(op.kCache);
    const out = t(op.outputs[0]!);
    const qCols = q.length / op.batch;
    const qDim = qCols / H;
    const scale = 1 / Math.sqrt(qDim);
    const qs = new Float64Array(H * D);
    for (let b = 0; b < op.batch; b++) {
      for (let h = 0; h < H; h++) {
        for (let i = 0; i < rank; i++) qs[h * D + i] = qLat[(b * H + h) * rank + i]!;
        for (let i = 0; i < ropeDim; i++) qs[h * D + rank + i] = q[b * qCols + h * qDim + qDim - ropeDim + i]!;
      }
      const kv = cache.subarray(b * op.kvLen * D, (b + 1) * op.kvLen * D);
      const o = naiveDecodeAttention(qs, kv, kv, { heads: H, kvHeads: 1, headDim: D, kvLen: op.kvLen }, scale);
      for (let h = 0; h < H; h++) for (let i = 0; i < rank; i++) out[(b * H + h) * rank + i] = this.round(o[h * D + i]!);
    }
  }

  /** Run any op over its whole domain (attention: the plain reference form). */
  run(op: OpNode, t: Tensors): void {
    if (op.kind === 'linear') this.linear(op, t);
    else if (op.kind === 'attention') op.latent ? this.latentAttention(op, t) : this.attentionNaive(op, t);
    else if (op.kind === 'grouped-linear') this.grouped(op, t);
    else if (op.kind === 'all-reduce' || op.kind === 'all-gather') throw new Error(`${op.id}: a collective needs every rank (tensorParallelStep runs it)`);
    else this.rowOp(op as RowOp, t);
  }
}
