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

/**
 * A decoder layer's own tensor (and op) `L<layer>.<role>`, e.g. `L3.w_qkv`: its layer and its
 * role, the same in every layer; null for a name that belongs to no layer (`h`, `w_lm_head`).
 */
export function parseLayerName(name: string): { layer: number; role: string } | null {
  const m = LAYER_NAME.exec(name);
  return m ? { layer: Number(m[1]), role: m[2]! } : null;
}

const LAYER_NAME = /^L(\d+)\.(.+)$/;

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
  | 'moe-topk'
  | 'moe-dispatch'
  | 'grouped-linear'
  | 'moe-combine'
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
  /**
   * Sliding window, tokens: each query sees only the last `window` positions up to its own
   * (set on prefill only where it cuts the causal span; a decode step's window is its `kvLen`).
   */
  window?: number;
  /** First row of these requests' queries in the step's activations (a mixed step stacks several kinds). Default 0. */
  rowOffset?: number;
  kCache: string;
  vCache: string;
  /**
   * Weight-absorbed multi-head latent attention (DeepSeek MLA): one shared "KV head" whose
   * keys are the cached latent plus its rotary key (`headDim` = rank + ropeDim) and whose
   * values are the latent itself; `kCache` and `vCache` name the same latent cache
   * [batch, kvLen, rank + ropeDim]. The output is the latent output [batch, heads, rank].
   */
  latent?: { rank: number; ropeDim: number };
}

/** One group of a grouped GEMM: weight slice `group` applied to `rows` consecutive input rows. */
export interface GemmGroup {
  group: number;
  rows: number;
}

/**
 * A grouped GEMM: for each group g with rows, y[rows_g, n] = x[rows_g, k] · W[g][n, k]ᵀ, the
 * groups' rows consecutive in x and y. Routed experts (only those that received tokens are
 * listed, so only their weights are read) or MLA's per-head absorptions (every head, `batch`
 * rows each).
 */
export interface GroupedLinearOp extends OpBase {
  kind: 'grouped-linear';
  /** What the groups are: routed experts or attention heads. */
  role: 'experts' | 'heads';
  /** Weight slices in the tensor ([numGroups, n, k]). */
  numGroups: number;
  /** Groups that receive rows, in row order. */
  groups: GemmGroup[];
  n: number;
  k: number;
  weight: string;
  gatedActivation?: 'silu' | 'gelu-tanh';
  /**
   * Per-head GEMMs on strided views (MLA's absorptions): element c of row r of group g is at
   * r·rowStride + g·groupStride + offset + c of the input (`in`) or output (`out`) tensor.
   * Absent: the groups' rows are consecutive rows of k (input) or n (output) elements.
   */
  layout?: { in: StridedRows; out: StridedRows };
}

/** Rows of a group inside a wider tensor (see `GroupedLinearOp.layout`). */
export interface StridedRows {
  rowStride: number;
  groupStride: number;
  offset: number;
}

/** Elementwise or row-wise ops: `rows` rows of `cols` elements each. */
export interface RowOp extends OpBase {
  kind: 'embedding' | 'rmsnorm' | 'qk-norm' | 'rope' | 'kv-append' | 'residual' | 'act-mul' | 'argmax' | 'moe-topk' | 'moe-dispatch' | 'moe-combine';
  rows: number;
  cols: number;
  /**
   * MoE routing ops: experts per token. `moe-topk`: `rows` tokens' router logits over `cols`
   * experts → top-k ids and weights; `moe-dispatch`: the `rows` = tokens × k slots' input
   * rows (`cols` wide) gathered into expert order; `moe-combine`: each of `rows` tokens sums
   * its k expert outputs (`cols` wide), weighted, plus any shared-expert output.
   */
  topK?: number;
  /** `moe-topk`: how router scores become weights (score function, renormalisation over the top-k, scale). */
  gating?: { scoring: 'softmax' | 'sigmoid'; normalize: boolean; scale: number };
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

export type OpNode = LinearOp | AttentionOp | RowOp | GroupedLinearOp | CollectiveOp;

export interface OpGraph {
  model: string;
  batch: number;
  /** Tokens already in the KV cache before this step. */
  contextLen: number;
  /** Tokens each request runs through the model in this step (1 for decode). Default 1. */
  queryLen?: number;
  /** Token rows of a step that mixes kinds of requests (set only then; otherwise batch × queryLen). */
  tokens?: number;
  layers: number;
  /** Tensor-parallel ranks the step's shapes are split over (this graph is one rank's). Default 1. */
  tp?: number;
  tensors: TensorSpec[];
  ops: OpNode[];
  /** MoE models: the routing the experts' groups were drawn from (`describeRouting`). */
  routing?: string;
}

/** Distinct experts that received tokens, summed over the graph's MoE layers. */
export function activeExpertsOf(graph: OpGraph): { total: number; layers: number } {
  let total = 0;
  const layers = new Set<number>();
  for (const op of graph.ops) {
    if (op.kind === 'grouped-linear' && op.role === 'experts' && op.id.endsWith('experts_gate_up')) {
      total += op.groups.length;
      layers.add(op.layer);
    }
  }
  return { total, layers: layers.size };
}

/** Token rows the step's activations hold: batch × tokens per request. */
export function graphRows(g: Pick<OpGraph, 'batch' | 'queryLen' | 'tokens'>): number {
  return g.tokens ?? g.batch * (g.queryLen ?? 1);
}

export function tensorBytes(t: TensorSpec): number {
  return t.shape.reduce((a, b) => a * b, 1) * DTYPE_BYTES[t.dtype];
}
