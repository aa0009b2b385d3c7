import type { DType, GroupedLinearOp, LinearOp, OpNode, TensorKind } from '../graph/op-graph.js';
import type { ModelSpec } from './model-spec.js';
import { expertLoads, type Routing } from './moe.js';

/**
 * The decode-step ops of a Mixture-of-Experts FFN and of weight-absorbed latent attention, as
 * `buildDecodeGraph` inserts them into a layer. Op ids are fixed (`L{l}.router`,
 * `L{l}.experts_gate_up`, `L{l}.q_absorb`…) for the policies that match on them.
 */

/** What the layer builder lends: tensor registration and the batch. */
export interface LayerContext {
  layer: number;
  batch: number;
  kvLen: number;
  dtype: DType;
  tensor(name: string, kind: TensorKind, shape: number[], dt?: DType): string;
}

function linear(c: LayerContext, id: string, input: string, weight: string, n: number, k: number, output: string, rows = c.batch): LinearOp {
  const p = `L${c.layer}.`;
  const w = c.tensor(p + weight, 'weight', [n, k]);
  c.tensor(output, 'activation', [rows, n]);
  return { id: p + id, kind: 'linear', layer: c.layer, m: rows, n, k, weight: w, inputs: [input, w], outputs: [output] };
}

function norm(c: LayerContext, id: string, buffer: string, weight: string, cols: number): OpNode {
  const p = `L${c.layer}.`;
  return { id: p + id, kind: 'rmsnorm', layer: c.layer, rows: c.batch, cols, inputs: [buffer, c.tensor(p + weight, 'weight', [cols])], outputs: [buffer] };
}

/**
 * A MoE FFN on the normed input `x`, output in `down`: router GEMM, top-k, dispatch (tokens
 * sorted by expert), grouped gate+up GEMM over the experts that received tokens, SiLU·mul,
 * grouped down GEMM, weighted combine (+ shared experts, computed densely beside them).
 */
export function moeFfnOps(spec: ModelSpec, c: LayerContext, routing: Routing): OpNode[] {
  const moe = spec.moe!;
  const { batch: b, layer: l } = c;
  const p = `L${l}.`;
  const h = spec.hiddenSize;
  const E = moe.numExperts;
  const k = moe.expertsPerToken;
  const inter = moe.expertIntermediateSize;
  const slots = b * k;
  const ops: OpNode[] = [];
  ops.push(linear(c, 'router', 'x', 'w_router', E, h, 'router_logits'));
  c.tensor('topk', 'activation', [b, 2 * k], 'fp32');
  const gating = { scoring: moe.scoring, normalize: moe.normTopkProb, scale: moe.routedScalingFactor };
  ops.push({ id: `${p}topk`, kind: 'moe-topk', layer: l, rows: b, cols: E, topK: k, gating, inputs: ['router_logits'], outputs: ['topk'] });
  c.tensor('x_sorted', 'activation', [slots, h]);
  ops.push({ id: `${p}dispatch`, kind: 'moe-dispatch', layer: l, rows: slots, cols: h, topK: k, inputs: ['x', 'topk'], outputs: ['x_sorted'] });
  const groups = expertLoads(routing, moe, b, l).map((g) => ({ group: g.expert, rows: g.tokens }));
  // The gated activation of an FFN's gate-up output, `rows` × `cols` (the output's shape).
  const actMul = (id: string, input: string, output: string, rows: number, cols: number): OpNode => {
    c.tensor(output, 'activation', [rows, cols]);
    return { id: p + id, kind: 'act-mul', layer: l, rows, cols, activation: spec.activation, inputs: [input], outputs: [output] };
  };
  const grouped = (id: string, input: string, weight: string, n: number, kk: number, output: string): GroupedLinearOp => {
    const w = c.tensor(p + weight, 'weight', [E, n, kk]);
    c.tensor(output, 'activation', [slots, n]);
    return { id: p + id, kind: 'grouped-linear', role: 'experts', layer: l, numGroups: E, groups, n, k: kk, weight: w, inputs: [input, w], outputs: [output] };
  };
  ops.push({ ...grouped('experts_gate_up', 'x_sorted', 'w_experts_gate_up', 2 * inter, h, 'e_gate_up'), gatedActivation: spec.activation });
  ops.push(actMul('experts_act_mul', 'e_gate_up', 'e_act', slots, inter));
  ops.push(grouped('experts_down', 'e_act', 'w_experts_down', h, inter, 'e_down'));
  const combineInputs = ['e_down', 'topk'];
  if (moe.sharedIntermediateSize > 0) {
    const si = moe.sharedIntermediateSize;
    ops.push({ ...linear(c, 'shared_gate_up', 'x', 'w_shared_gate_up', 2 * si, h, 'shared_gate_up'), gatedActivation: spec.activation });
    ops.push(actMul('shared_act_mul', 'shared_gate_up', 'shared_act', b, si));
    ops.push(linear(c, 'shared_down', 'shared_act', 'w_shared_down', h, si, 'shared_down'));
    combineInputs.push('shared_down');
    if (moe.sharedExpertGate) {
      ops.push(linear(c, 'shared_expert_gate', 'x', 'w_shared_expert_gate', 1, h, 'shared_gate'));
      combineInputs.push('shared_gate');
    }
  }
  c.tensor('down', 'activation', [b, h]);
  ops.push({ id: `${p}combine`, kind: 'moe-combine', layer: l, rows: b, cols: h, topK: k, inputs: combineInputs, outputs: ['down'] });
  return ops;
}

/**
 * Weight-absorbed MLA at decode (as FlashMLA-based engines run it), on the normed input `x`,
 * output in `o`: q (optionally through its low-rank compression and norm), the new token's
 * latent and rotary key (kv_a) and its norm, RoPE on both rotary parts, q_nope absorbed into
 * the latent space per head (W_UK), the latent appended to the cache, MQA over the latent,
 * the latent output expanded per head (W_UV), and the output projection.
 */
export function mlaAttentionOps(spec: ModelSpec, c: LayerContext): OpNode[] {
  const mla = spec.mla!;
  const { batch: b, layer: l, kvLen } = c;
  const p = `L${l}.`;
  const h = spec.hiddenSize;
  const nh = spec.numHeads;
  const qDim = mla.nopeDim + mla.ropeDim;
  const latent = mla.kvLoraRank + mla.ropeDim;
  const ops: OpNode[] = [];
  if (mla.qLoraRank !== null) {
    ops.push(linear(c, 'q_a_proj', 'x', 'w_q_a', mla.qLoraRank, h, 'q_a'));
    ops.push(norm(c, 'q_a_norm', 'q_a', 'w_q_a_norm', mla.qLoraRank));
    ops.push(linear(c, 'q_b_proj', 'q_a', 'w_q_b', nh * qDim, mla.qLoraRank, 'q'));
  } else {
    ops.push(linear(c, 'q_proj', 'x', 'w_q', nh * qDim, h, 'q'));
  }
  ops.push(linear(c, 'kv_a_proj', 'x', 'w_kv_a', latent, h, 'kv_a'));
  ops.push(norm(c, 'kv_a_norm', 'kv_a', 'w_kv_a_norm', mla.kvLoraRank));
  const perHead = Array.from({ length: nh }, (_, g) => ({ group: g, rows: b }));
  const rows = (width: number, per: number, offset = 0) => ({ rowStride: nh * width, groupStride: per, offset });
  const absorb = (id: string, input: string, weight: string, n: number, k: number, output: string, layout: GroupedLinearOp['layout']): GroupedLinearOp => {
    const w = c.tensor(p + weight, 'weight', [nh, n, k]);
    c.tensor(output, 'activation', [b, nh * n]);
    return {
      id: p + id,
      kind: 'grouped-linear',
      role: 'heads',
      layer: l,
      numGroups: nh,
      groups: perHead,
      n,
      k,
      weight: w,
      inputs: [input, w],
      outputs: [output],
      layout,
    };
  };
  // q_lat [batch, heads, rank]: each head's q_nope (the first nope values of its q row) through W_UK[h].
  ops.push(absorb('q_absorb', 'q', 'w_uk', mla.kvLoraRank, mla.nopeDim, 'q_lat', { in: rows(qDim, qDim), out: rows(mla.kvLoraRank, mla.kvLoraRank) }));
  // RoPE after the absorption: it rotates only the rope tails, which W_UK does not read.
  ops.push({ id: `${p}rope`, kind: 'rope', layer: l, rows: b * (nh + 1), cols: mla.ropeDim, inputs: ['q', 'kv_a'], outputs: ['q', 'kv_a'] });
  const cache = c.tensor(`${p}kv_latent`, 'kv-cache', [b, kvLen, latent]);
  ops.push({ id: `${p}kv_append`, kind: 'kv-append', layer: l, rows: b, cols: latent, inputs: ['kv_a'], outputs: [cache] });
  c.tensor('attn_lat', 'activation', [b, nh * mla.kvLoraRank]);
  ops.push({
    id: `${p}attention`,
    kind: 'attention',
    layer: l,
    batch: b,
    heads: nh,
    kvHeads: 1,
    headDim: latent,
    kvLen,
    kCache: cache,
    vCache: cache,
    latent: { rank: mla.kvLoraRank, ropeDim: mla.ropeDim },
    // queries: the absorbed q_lat and each head's rotary part, still in q
    inputs: ['q_lat', 'q', cache],
    outputs: ['attn_lat'],
  });
  ops.push(
    absorb('v_absorb', 'attn_lat', 'w_uv', mla.vDim, mla.kvLoraRank, 'attn', { in: rows(mla.kvLoraRank, mla.kvLoraRank), out: rows(mla.vDim, mla.vDim) }),
  );
  ops.push(linear(c, 'o_proj', 'attn', 'w_o', h, nh * mla.vDim, 'o'));
  return ops;
}
