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
import type { AttentionOp, LinearOp, OpGraph, OpNode, RowOp } from '@fleet/core';
import { attentionPartial, combinePartials, naiveDecodeAttention, type DecodeAttentionShape, type SoftmaxPartial } from '../numerics/attention.js';
import { rounder, type FloatDType } from '../numerics/dtype.js';
import { actMul, argmax, residualAdd, rmsnorm } from '../numerics/elementwise.js';
import { linearBox, type LinearBox } from '../numerics/linear.js';
import { ropeInPlace } from '../numerics/rope.js';
import type { ModelWeights } from './weights.js';

export interface DecodeSemantics {
  dtype: FloatDType;
  /** RMSNorm epsilon. */
  eps: number;
  /** RoPE base θ. */
  ropeTheta: number;
}

export const DEFAULT_SEMANTICS: DecodeSemantics = { dtype: 'bf16', eps: 1e-6, ropeTheta: 10000 };

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

  constructor(
    readonly graph: OpGraph,
    readonly weights: ModelWeights,
    readonly sem: DecodeSemantics,
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
        for (let row = 0; row < op.rows; row++) rmsnorm(x, row * op.cols, w, op.cols, this.sem.eps, y, row * op.cols, r);
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
        const qkv = t(op.inputs[0]!);
        for (let j = 0; j < op.rows; j++) ropeInPlace(qkv, this.headRowElements(op, j).start, op.cols, this.graph.contextLen, this.sem.ropeTheta, r);
        return;
      }
      case 'kv-append': {
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
    }
  }

  /** Unrounded partial sums of a linear op over a box (and K range). */
  linearBox(op: LinearOp, t: Tensors, box: LinearBox): Float64Array {
    return linearBox(t(op.inputs[0]!), t(op.weight), op.k, box);
  }

  /** The whole linear op, stored rounded. */
  linear(op: LinearOp, t: Tensors): void {
    const p = this.linearBox(op, t, { m0: 0, m1: op.m, n0: 0, n1: op.n });
    const y = t(op.outputs[0]!);
    for (let i = 0; i < p.length; i++) y[i] = this.round(p[i]!);
  }

  private attentionInputs(op: AttentionOp, t: Tensors, request: number): { q: Float32Array; k: Float32Array; v: Float32Array; shape: DecodeAttentionShape } {
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

  /** Run any op over its whole domain (attention: the plain reference form). */
  run(op: OpNode, t: Tensors): void {
    if (op.kind === 'linear') this.linear(op, t);
    else if (op.kind === 'attention') this.attentionNaive(op, t);
    else if (op.kind === 'all-reduce' || op.kind === 'all-gather') throw new Error(`${op.id}: a collective needs every rank (tensorParallelStep runs it)`);
    else this.rowOp(op as RowOp, t);
  }
}
