import type { DType, LinearOp, OpGraph, OpNode, TensorKind, TensorSpec } from '../graph/op-graph.js';
import { lineError, safeString } from './messages.js';
import type { ModelSpec } from './model-spec.js';
import { describeRouting, isMoeLayer, UNIFORM_ROUTING, type Routing } from './moe.js';
import { mlaAttentionOps, moeFfnOps, type LayerContext } from './moe-graph.js';

/**
 * The op graph of one decode step: `batch` requests each produce one token, attending over
 * `contextLen` cached tokens plus their own. Op ids are fixed (`embed`, `L{l}.qkv_proj`,
 * `lm_head`...) because scheduling policies match on them. Activation buffers (`h`, `x`,
 * `qkv`...) are shared by all layers, as inference engines reuse them.
 */

export interface DecodeGraphOptions {
  batch: number;
  contextLen: number;
  /** MoE models: which experts the step's tokens go to (default uniform). */
  routing?: Routing;
}

export const MAX_DECODE_BATCH = 4096;
export const MAX_CONTEXT_LEN = 10_000_000;

function checkRange(field: string, v: number, min: number, max: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw lineError(`decode graph: '${field}' (${safeString(v)}) must be an integer in ${min}..${max}`);
  }
}

export function buildDecodeGraph(spec: ModelSpec, opts: DecodeGraphOptions): OpGraph {
  checkRange('batch', opts.batch, 1, MAX_DECODE_BATCH);
  checkRange('contextLen', opts.contextLen, 0, MAX_CONTEXT_LEN);
  const { batch: b, contextLen } = opts;
  const { hiddenSize: h, numHeads: nh, numKvHeads: nkv, headDim: hd, intermediateSize: inter, vocabSize: v, dtype } = spec;
  const kvLen = contextLen + 1;
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
  const act = (name: string, cols: number): string => tensor(name, 'activation', [b, cols]);

  const ops: OpNode[] = [];
  const wEmbed = tensor('w_embed', 'weight', [v, h]);
  const tokens = tensor('tokens', 'activation', [b], 'fp32');
  ops.push({ id: 'embed', kind: 'embedding', layer: -1, rows: b, cols: h, inputs: [wEmbed, tokens], outputs: [act('h', h)] });

  for (let l = 0; l < spec.numLayers; l++) {
    const p = `L${l}.`;
    const norm = (id: string, input: string, weight: string, output: string): OpNode => ({
      id: p + id,
      kind: 'rmsnorm',
      layer: l,
      rows: b,
      cols: h,
      inputs: [input, tensor(p + weight, 'weight', [h])],
      outputs: [output],
    });
    const linear = (id: string, input: string, weight: string, n: number, k: number, output: string): LinearOp => {
      const w = tensor(p + weight, 'weight', [n, k]);
      return { id: p + id, kind: 'linear', layer: l, m: b, n, k, weight: w, inputs: [input, w], outputs: [act(output, n)] };
    };

    ops.push(norm('attn_norm', 'h', 'w_attn_norm', act('x', h)));
    const ctx: LayerContext = { layer: l, batch: b, kvLen, dtype, tensor };
    if (spec.mla) {
      ops.push(...mlaAttentionOps(spec, ctx));
    } else {
    ops.push(linear('qkv_proj', 'x', 'w_qkv', qkvN, h, 'qkv'));
    if (spec.qkNorm) {
      ops.push({ id: `${p}qk_norm`, kind: 'qk-norm', layer: l, rows: b * (nh + nkv), cols: hd, inputs: ['qkv'], outputs: ['qkv'] });
    }
    ops.push({ id: `${p}rope`, kind: 'rope', layer: l, rows: b * (nh + nkv), cols: hd, inputs: ['qkv'], outputs: ['qkv'] });
    const kCache = tensor(`${p}k_cache`, 'kv-cache', [b, nkv, kvLen, hd]);
    const vCache = tensor(`${p}v_cache`, 'kv-cache', [b, nkv, kvLen, hd]);
    ops.push({ id: `${p}kv_append`, kind: 'kv-append', layer: l, rows: b * nkv * 2, cols: hd, inputs: ['qkv'], outputs: [kCache, vCache] });
    ops.push({
      id: `${p}attention`,
      kind: 'attention',
      layer: l,
      batch: b,
      heads: nh,
      kvHeads: nkv,
      headDim: hd,
      kvLen,
      kCache,
      vCache,
      inputs: ['qkv', kCache, vCache],
      outputs: [act('attn', nh * hd)],
    });
    ops.push(linear('o_proj', 'attn', 'w_o', h, nh * hd, 'o'));
    }
    if (gemma) ops.push(norm('post_attn_norm', 'o', 'w_post_attn_norm', 'o'));
    ops.push({ id: `${p}attn_residual`, kind: 'residual', layer: l, rows: b, cols: h, inputs: ['h', 'o'], outputs: ['h'] });

    ops.push(norm('ffn_norm', 'h', 'w_ffn_norm', 'x'));
    if (isMoeLayer(spec, l)) {
      ops.push(...moeFfnOps(spec, ctx, opts.routing ?? UNIFORM_ROUTING));
    } else {
    ops.push({ ...linear('gate_up_proj', 'x', 'w_gate_up', 2 * inter, h, 'gate_up'), gatedActivation: spec.activation });
    ops.push({
      id: `${p}act_mul`,
      kind: 'act-mul',
      layer: l,
      rows: b,
      cols: inter,
      activation: spec.activation,
      inputs: ['gate_up'],
      outputs: [act('act', inter)],
    });
    ops.push(linear('down_proj', 'act', 'w_down', h, inter, 'down'));
    }
    if (gemma) ops.push(norm('post_ffn_norm', 'down', 'w_post_ffn_norm', 'down'));
    ops.push({ id: `${p}ffn_residual`, kind: 'residual', layer: l, rows: b, cols: h, inputs: ['h', 'down'], outputs: ['h'] });
  }

  const last = spec.numLayers;
  const wFinal = tensor('w_final_norm', 'weight', [h]);
  ops.push({ id: 'final_norm', kind: 'rmsnorm', layer: last, rows: b, cols: h, inputs: ['h', wFinal], outputs: [act('x', h)] });
  const wHead = spec.tieWordEmbeddings ? wEmbed : tensor('w_lm_head', 'weight', [v, h]);
  ops.push({
    id: 'lm_head',
    kind: 'linear',
    layer: last,
    m: b,
    n: v,
    k: h,
    weight: wHead,
    inputs: ['x', wHead],
    outputs: [act('logits', v)],
  });
  ops.push({ id: 'argmax', kind: 'argmax', layer: last, rows: b, cols: v, inputs: ['logits'], outputs: [tokens] });

  const graph: OpGraph = { model: spec.name, batch: b, contextLen, layers: spec.numLayers, tensors, ops };
  if (spec.moe) graph.routing = describeRouting(opts.routing ?? UNIFORM_ROUTING);
  return graph;
}
