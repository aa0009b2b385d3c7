import type { DType, LinearOp, OpGraph, OpNode, TensorKind, TensorSpec } from '../graph/op-graph.js';
import { lineError, safeString } from './messages.js';
import { attentionWindow, type ModelSpec } from './model-spec.js';
import { describeRouting, isMoeLayer, UNIFORM_ROUTING, type Routing } from './moe.js';
import { mlaAttentionOps, moeFfnOps, type LayerContext } from './moe-graph.js';

/**
 * The op graph of one forward step: `batch` requests each run `queryLen` tokens (1 for a
 * decode step, the prompt or a chunk of it for prefill), attending causally over
 * `contextLen` cached tokens plus their own. Only each request's last token goes through
 * the final norm and the LM head. Op ids are fixed (`embed`, `L{l}.qkv_proj`, `lm_head`...)
 * because scheduling policies match on them. Activation buffers (`h`, `x`, `qkv`...) are
 * shared by all layers, as inference engines reuse them.
 */

export interface DecodeGraphOptions {
  batch: number;
  contextLen: number;
  /** Tokens per request in this step (default 1: decode). */
  queryLen?: number;
  /** MoE models: which experts the step's tokens go to (default uniform). */
  routing?: Routing;
  /**
   * Tensor parallelism: the graph of one of `tp` ranks (Megatron-style). Query heads, FFN
   * columns and the vocabulary are split; QKV and gate+up are column-parallel, O and down
   * row-parallel and followed by an all-reduce of the hidden state; the LM head is
   * vocab-parallel and its logits all-gathered. KV heads are split while there are at
   * least `tp`, else replicated (each rank keeps the one its query heads use). Default 1.
   */
  tp?: number;
}

export interface PrefillGraphOptions {
  batch: number;
  /** Prompt tokens per request this step runs (the whole prompt, or one chunk of it). */
  promptLen: number;
  /** Tokens of the prompt already in the KV cache (earlier chunks). Default 0. */
  contextLen?: number;
  /** MoE models: which experts the step's tokens go to (default uniform). */
  routing?: Routing;
  /** Tensor parallelism, as in `DecodeGraphOptions.tp`. */
  tp?: number;
}

export const MAX_DECODE_BATCH = 4096;
export const MAX_CONTEXT_LEN = 10_000_000;
/** Token rows one forward step may carry (batch × tokens per request). */
export const MAX_STEP_TOKENS = 1 << 20;

/** The op graph of a prefill step: each request's prompt (or chunk) through the model, KV cache written. */
export function buildPrefillGraph(spec: ModelSpec, opts: PrefillGraphOptions): OpGraph {
  checkRange('promptLen', opts.promptLen, 1, MAX_CONTEXT_LEN);
  return buildDecodeGraph(spec, {
    batch: opts.batch,
    contextLen: opts.contextLen ?? 0,
    queryLen: opts.promptLen,
    routing: opts.routing,
    ...(opts.tp ? { tp: opts.tp } : {}),
  });
}

function checkRange(field: string, v: number, min: number, max: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw lineError(`decode graph: '${field}' (${safeString(v)}) must be an integer in ${min}..${max}`);
  }
}

export function buildDecodeGraph(spec: ModelSpec, opts: DecodeGraphOptions): OpGraph {
  return buildStepGraph(spec, [{ batch: opts.batch, contextLen: opts.contextLen, queryLen: opts.queryLen ?? 1 }], opts.routing, opts.tp ?? 1);
}

/** Requests of one kind in a forward step: how many, what they have cached, how many tokens each runs. */
export interface StepSegment {
  batch: number;
  contextLen: number;
  queryLen: number;
}

export interface MixedStepOptions {
  /** Decode requests, one token each. */
  batch: number;
  /** Tokens each decode request has cached. */
  contextLen: number;
  /** Tokens of the prefill chunk riding along (one request). */
  chunk: number;
  /** Tokens of that prompt already cached (earlier chunks). Default 0. */
  chunkContext?: number;
  /** MoE models: which experts the step's tokens go to (default uniform). */
  routing?: Routing;
}

/**
 * One serving step as continuous-batching engines schedule it: a decode batch and one chunk
 * of a new request's prompt share every linear layer (their token rows stacked); attention
 * runs per kind (a decode kernel over the cached requests, a causal prefill kernel over the
 * chunk).
 */
export function buildMixedGraph(spec: ModelSpec, opts: MixedStepOptions): OpGraph {
  return buildStepGraph(
    spec,
    [
      { batch: opts.batch, contextLen: opts.contextLen, queryLen: 1 },
      { batch: 1, contextLen: opts.chunkContext ?? 0, queryLen: opts.chunk },
    ],
    opts.routing,
  );
}

/** The op graph of a forward step over one or more segments of requests (their rows stacked in order). */
export function buildStepGraph(spec: ModelSpec, segments: readonly StepSegment[], routing: Routing = UNIFORM_ROUTING, tp = 1): OpGraph {
  if (segments.length === 0) throw lineError('decode graph: a step needs at least one segment of requests');
  for (const sg of segments) {
    checkRange('batch', sg.batch, 1, MAX_DECODE_BATCH);
    checkRange('contextLen', sg.contextLen, 0, MAX_CONTEXT_LEN);
    checkRange('queryLen', sg.queryLen, 1, MAX_CONTEXT_LEN);
  }
  const b = segments.reduce((a, sg) => a + sg.batch, 0);
  // Token rows of the layers' activations; the head sees only each request's last token.
  const rows = segments.reduce((a, sg) => a + sg.batch * sg.queryLen, 0);
  if (rows > MAX_STEP_TOKENS) throw lineError(`decode graph: batch × tokens per request (${rows}) exceeds ${MAX_STEP_TOKENS} token rows per step`);
  if (b > MAX_DECODE_BATCH) throw lineError(`decode graph: 'batch' (${b} requests in the step) must be an integer in 1..${MAX_DECODE_BATCH}`);
  const single = segments.length === 1 ? segments[0]! : null;
  if (spec.mla && (!single || single.queryLen > 1)) {
    throw lineError(`decode graph: ${spec.name} uses latent attention (MLA), which is modelled for decode steps only (one token per request)`);
  }
  if (tp > 1 && (spec.moe || spec.mla))
    throw lineError(`decode graph: tensor parallelism is modelled for dense models; ${spec.name} has ${spec.moe ? 'expert' : 'latent-attention'} layers`);
  if (tp > 1 && !single) throw lineError('decode graph: a mixed step is modelled on one device (tp 1)');
  const q = single ? single.queryLen : 0;
  const contextLen = segments[0]!.contextLen;
  const split = tensorParallelShapes(spec, tp);
  const { hiddenSize: h, headDim: hd, dtype } = spec;
  const { heads: nh, kvHeads: nkv, intermediate: inter, vocab: v } = split;
  const qkvN = (nh + 2 * nkv) * hd;
  const gemma = spec.normsPerLayer === 4;

  const tensors: TensorSpec[] = [];
  const seen = new Set<string>();
  const tensor = (name: string, kind: TensorKind, shape: number[], dt: DType = dtype): string => {
    if (!seen.has(name)) {
      seen.add(name);
      tensors.push({ name, kind, shape, dtype: dt });
    }
    return name;
  };
  const act = (name: string, cols: number): string => tensor(name, 'activation', [rows, cols]);
  const last = (name: string, cols: number): string => tensor(name, 'activation', [b, cols]);
  const headInput = rows > b ? 'x_last' : 'x';

  const ops: OpNode[] = [];
  const wEmbed = tensor('w_embed', 'weight', [v, h]);
  const tokens = tensor('tokens', 'activation', [rows], 'fp32');
  ops.push({ id: 'embed', kind: 'embedding', layer: -1, rows, cols: h, inputs: [wEmbed, tokens], outputs: [act('h', h)] });
  // Vocab-parallel embedding: each rank looks up the tokens of its vocabulary shard (zeros elsewhere); the sum is the embedding.
  if (tp > 1) ops.push({ id: 'embed_allreduce', kind: 'all-reduce', layer: -1, rows, cols: h, devices: tp, inputs: ['h'], outputs: ['h'] });

  for (let l = 0; l < spec.numLayers; l++) {
    const p = `L${l}.`;
    const norm = (id: string, input: string, weight: string, output: string): OpNode => ({
      id: p + id,
      kind: 'rmsnorm',
      layer: l,
      rows,
      cols: h,
      inputs: [input, tensor(p + weight, 'weight', [h])],
      outputs: [output],
    });
    const linear = (id: string, input: string, weight: string, n: number, k: number, output: string): LinearOp => {
      const w = tensor(p + weight, 'weight', [n, k]);
      return { id: p + id, kind: 'linear', layer: l, m: rows, n, k, weight: w, inputs: [input, w], outputs: [act(output, n)] };
    };

    ops.push(norm('attn_norm', 'h', 'w_attn_norm', act('x', h)));
    if (spec.mla) {
      const ctx: LayerContext = { layer: l, batch: b, kvLen: contextLen + 1, dtype, tensor };
      ops.push(...mlaAttentionOps(spec, ctx));
    } else {
      ops.push(linear('qkv_proj', 'x', 'w_qkv', qkvN, h, 'qkv'));
      if (spec.qkNorm) {
        ops.push({ id: `${p}qk_norm`, kind: 'qk-norm', layer: l, rows: rows * (nh + nkv), cols: hd, inputs: ['qkv'], outputs: ['qkv'] });
      }
      ops.push({ id: `${p}rope`, kind: 'rope', layer: l, rows: rows * (nh + nkv), cols: hd, inputs: ['qkv'], outputs: ['qkv'] });
      const window = attentionWindow(spec, l);
      const caches = segments.map((sg, i) => {
        const suffix = i === 0 ? '' : `.${i}`;
        const full = sg.contextLen + sg.queryLen;
        // A decode token sees the window's last positions: its layer caches those alone (a
        // ring buffer, as Hugging Face's sliding-window cache; a paged cache reads the same
        // span). Prefill queries see different spans: their attention carries the window.
        const cut = window !== null && full > window;
        const kvLen = cut && sg.queryLen === 1 ? window : full;
        return {
          sg,
          kvLen,
          ...(cut && sg.queryLen > 1 ? { window } : {}),
          k: tensor(`${p}k_cache${suffix}`, 'kv-cache', [sg.batch, nkv, kvLen, hd]),
          v: tensor(`${p}v_cache${suffix}`, 'kv-cache', [sg.batch, nkv, kvLen, hd]),
        };
      });
      ops.push({
        id: `${p}kv_append`,
        kind: 'kv-append',
        layer: l,
        rows: rows * nkv * 2,
        cols: hd,
        inputs: ['qkv'],
        outputs: caches.flatMap((c) => [c.k, c.v]),
      });
      let rowOffset = 0;
      caches.forEach((c, i) => {
        ops.push({
          id: `${p}attention${i === 0 ? '' : `.${i}`}`,
          kind: 'attention',
          layer: l,
          batch: c.sg.batch,
          heads: nh,
          kvHeads: nkv,
          headDim: hd,
          kvLen: c.kvLen,
          ...(c.sg.queryLen > 1 ? { queryLen: c.sg.queryLen } : {}),
          ...(c.window !== undefined ? { window: c.window } : {}),
          ...(rowOffset > 0 ? { rowOffset } : {}),
          kCache: c.k,
          vCache: c.v,
          inputs: ['qkv', c.k, c.v],
          outputs: [act('attn', nh * hd)],
        });
        rowOffset += c.sg.batch * c.sg.queryLen;
      });
      ops.push(linear('o_proj', 'attn', 'w_o', h, nh * hd, 'o'));
      if (tp > 1) ops.push({ id: `${p}o_allreduce`, kind: 'all-reduce', layer: l, rows, cols: h, devices: tp, inputs: ['o'], outputs: ['o'] });
    }
    if (gemma) ops.push(norm('post_attn_norm', 'o', 'w_post_attn_norm', 'o'));
    ops.push({ id: `${p}attn_residual`, kind: 'residual', layer: l, rows, cols: h, inputs: ['h', 'o'], outputs: ['h'] });

    ops.push(norm('ffn_norm', 'h', 'w_ffn_norm', 'x'));
    if (isMoeLayer(spec, l)) {
      // Routed per token row: a prompt's tokens spread over the experts like a batch's.
      ops.push(...moeFfnOps(spec, { layer: l, batch: rows, kvLen: 0, dtype, tensor }, routing));
    } else {
      ops.push({ ...linear('gate_up_proj', 'x', 'w_gate_up', 2 * inter, h, 'gate_up'), gatedActivation: spec.activation });
      ops.push({
        id: `${p}act_mul`,
        kind: 'act-mul',
        layer: l,
        rows,
        cols: inter,
        activation: spec.activation,
        inputs: ['gate_up'],
        outputs: [act('act', inter)],
      });
      ops.push(linear('down_proj', 'act', 'w_down', h, inter, 'down'));
      if (tp > 1) ops.push({ id: `${p}down_allreduce`, kind: 'all-reduce', layer: l, rows, cols: h, devices: tp, inputs: ['down'], outputs: ['down'] });
    }
    if (gemma) ops.push(norm('post_ffn_norm', 'down', 'w_post_ffn_norm', 'down'));
    ops.push({ id: `${p}ffn_residual`, kind: 'residual', layer: l, rows, cols: h, inputs: ['h', 'down'], outputs: ['h'] });
  }

  const head = spec.numLayers;
  const wFinal = tensor('w_final_norm', 'weight', [h]);
  ops.push({
    id: 'final_norm',
    kind: 'rmsnorm',
    layer: head,
    rows: b,
    cols: h,
    inputs: ['h', wFinal],
    outputs: [headInput === 'x_last' ? last('x_last', h) : act('x', h)],
  });
  const wHead = spec.tieWordEmbeddings ? wEmbed : tensor('w_lm_head', 'weight', [v, h]);
  ops.push({
    id: 'lm_head',
    kind: 'linear',
    layer: head,
    m: b,
    n: v,
    k: h,
    weight: wHead,
    inputs: [headInput, wHead],
    outputs: [last(tp > 1 ? 'logits_shard' : 'logits', v)],
  });
  if (tp > 1) {
    ops.push({
      id: 'logits_allgather',
      kind: 'all-gather',
      layer: head,
      rows: b,
      cols: v,
      devices: tp,
      inputs: ['logits_shard'],
      outputs: [last('logits', v * tp)],
    });
  }
  ops.push({ id: 'argmax', kind: 'argmax', layer: head, rows: b, cols: v * tp, inputs: ['logits'], outputs: [tokens] });

  const graph: OpGraph = {
    model: spec.name,
    batch: b,
    contextLen,
    ...(q > 1 ? { queryLen: q } : {}),
    ...(single ? {} : { tokens: rows }),
    ...(tp > 1 ? { tp } : {}),
    layers: spec.numLayers,
    tensors,
    ops,
  };
  if (spec.moe) graph.routing = describeRouting(routing);
  return graph;
}

/** Largest tensor-parallel degree a step may ask for. */
export const MAX_TP = 64;

/** One rank's share of a model's split dimensions under tensor parallelism `tp`. */
export interface TensorParallelShapes {
  tp: number;
  heads: number;
  /** KV heads this rank holds: numKvHeads / tp, or 1 (replicated) when tp exceeds numKvHeads. */
  kvHeads: number;
  intermediate: number;
  /** Vocabulary rows of this rank's LM head (and embedding) shard: ⌈vocab / tp⌉. */
  vocab: number;
}

/** Why `tp` cannot split `spec`, or null. */
export function tensorParallelProblem(spec: Pick<ModelSpec, 'numHeads' | 'numKvHeads' | 'intermediateSize'>, tp: number): string | null {
  if (!Number.isInteger(tp) || tp < 1 || tp > MAX_TP) return `tp must be an integer in 1..${MAX_TP} (got ${safeString(tp)})`;
  if (spec.numHeads % tp !== 0) return `${spec.numHeads} attention heads do not split over tp ${tp}`;
  if (spec.intermediateSize % tp !== 0) return `the FFN width ${spec.intermediateSize} does not split over tp ${tp}`;
  if (spec.numKvHeads % tp !== 0 && tp % spec.numKvHeads !== 0) return `${spec.numKvHeads} KV heads neither split over nor divide tp ${tp}`;
  return null;
}

export function tensorParallelShapes(spec: ModelSpec, tp: number): TensorParallelShapes {
  const problem = tensorParallelProblem(spec, tp);
  if (problem) throw lineError(`decode graph: ${problem}`);
  return {
    tp,
    heads: spec.numHeads / tp,
    kvHeads: Math.max(1, spec.numKvHeads / tp),
    intermediate: spec.intermediateSize / tp,
    vocab: Math.ceil(spec.vocabSize / tp),
  };
}
