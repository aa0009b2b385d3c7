/**
 * The op graph of one forward step (a decode step, or a prompt or a chunk of one), as the
 * model loader produces it: operators over named tensors, in execution order. Scheduling
 * policies compile it into a `TaskGraph`.
 */

/** Element types of tensors Fleet knows the size of. */
export type DType = 'fp32' | 'bf16' | 'fp16' | 'fp8' | 'int8';

export const DTYPE_BYTES: Record<DType, number> = { fp32: 4, bf16: 2, fp16: 2, fp8: 1, int8: 1 };

export type TensorKind = 'weight' | 'activation' | 'kv-cache';

export interface TensorSpec {
  name: string;
  kind: TensorKind;
  shape: number[];
  dtype: DType;
}

export type OpKind =
  | 'embedding'
  | 'rmsnorm'
  | 'linear'
  | 'qk-norm'
  | 'rope'
  | 'kv-append'
  | 'attention'
  | 'residual'
  | 'act-mul'
  | 'argmax'
  | 'all-reduce'
  | 'all-gather';

interface OpBase {
  /** Unique within the graph, e.g. `L3.qkv_proj`. */
  id: string;
  /** Decoder layer index, or -1 before the first layer and `layers` after the last. */
  layer: number;
  inputs: string[];
  outputs: string[];
}

/** y[m, n] = x[m, k] · W[n, k]ᵀ (nn.Linear layout: the weight is [out, in], row-major). */
export interface LinearOp extends OpBase {
  kind: 'linear';
  m: number;
  n: number;
  k: number;
  /** Name of the weight tensor (inputs[1]). */
  weight: string;
  /** Set on a gate+up projection whose output feeds an `act-mul` (a policy may fuse it). */
  gatedActivation?: 'silu' | 'gelu-tanh';
}

export interface AttentionOp extends OpBase {
  kind: 'attention';
  batch: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Keys/values attended per request, including the current token(s). */
  kvLen: number;
  /**
   * Query tokens per request in this step: 1 for decode, the prompt (or chunk) length for
   * prefill. Queries are the last `queryLen` positions of the `kvLen`, causally masked.
   * Default 1.
   */
  queryLen?: number;
  kCache: string;
  vCache: string;
}

/** Elementwise or row-wise ops: `rows` rows of `cols` elements each. */
export interface RowOp extends OpBase {
  kind: 'embedding' | 'rmsnorm' | 'qk-norm' | 'rope' | 'kv-append' | 'residual' | 'act-mul' | 'argmax';
  rows: number;
  cols: number;
  /** Activation of an `act-mul`. */
  activation?: 'silu' | 'gelu-tanh';
}

/**
 * A collective over the `devices` tensor-parallel ranks of a step: an all-reduce (sum) of
 * `rows` × `cols` in place, or an all-gather of each rank's `rows` × `cols` slice into
 * `rows` × (`cols` × `devices`).
 */
export interface CollectiveOp extends OpBase {
  kind: 'all-reduce' | 'all-gather';
  rows: number;
  cols: number;
  devices: number;
}

export type OpNode = LinearOp | AttentionOp | RowOp | CollectiveOp;

export interface OpGraph {
  model: string;
  batch: number;
  /** Tokens already in the KV cache before this step. */
  contextLen: number;
  /** Tokens each request runs through the model in this step (1 for decode). Default 1. */
  queryLen?: number;
  layers: number;
  /** Tensor-parallel ranks the step's shapes are split over (this graph is one rank's). Default 1. */
  tp?: number;
  tensors: TensorSpec[];
  ops: OpNode[];
}

/** Token rows the step's activations hold: batch × tokens per request. */
export function graphRows(g: Pick<OpGraph, 'batch' | 'queryLen'>): number {
  return g.batch * (g.queryLen ?? 1);
}

export function tensorBytes(t: TensorSpec): number {
  return t.shape.reduce((a, b) => a * b, 1) * DTYPE_BYTES[t.dtype];
}
