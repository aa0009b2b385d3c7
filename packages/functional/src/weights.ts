/**
 * The weights of a model for functional runs, keyed by the tensor names of the decode op
 * graph (`w_embed`, `L0.w_qkv`, …) plus the per-head q/k norm weights the graph folds into
 * its `qk-norm` op (`L0.w_q_norm`, `L0.w_k_norm`). Fused tensors are the row-wise
 * concatenations of the Hugging Face ones: w_qkv = [q; k; v], w_gate_up = [gate; up].
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { inputError, isMoeLayer, type ModelSpec } from '@fleet/core';
import { type FloatDType, Rng, rounder } from '@fleet/numerics';
import { SafetensorsFile, type DataDType, type TensorData } from './safetensors-data.js';

export type ModelWeights = Map<string, Float32Array>;

/** The storage type of a model's tensors, for numerics (fp8/int8 models are not runnable). */
export function modelFloatDType(spec: ModelSpec): FloatDType {
  if (spec.dtype === 'bf16' || spec.dtype === 'fp16' || spec.dtype === 'fp32') return spec.dtype;
  throw inputError(`model ${spec.name}: dtype ${spec.dtype} cannot be run functionally (bf16, fp16 or fp32 only)`);
}

/** One tensor of the op graph's weights in Hugging Face terms: its parts, concatenated by rows. */
interface CheckpointMapping {
  name: string;
  shape: number[];
  parts: { hf: string; rows: number }[];
}

/** How each weight of the op graph is assembled from a Hugging Face checkpoint. */
export function checkpointMapping(spec: ModelSpec): CheckpointMapping[] {
  const { hiddenSize: h, numHeads: nh, numKvHeads: nkv, headDim: hd, intermediateSize: inter, vocabSize: v } = spec;
  const gemma = spec.normsPerLayer === 4;
  const one = (name: string, hf: string, shape: number[]): CheckpointMapping => ({ name, shape, parts: [{ hf, rows: shape[0]! }] });
  const out: CheckpointMapping[] = [one('w_embed', 'model.embed_tokens.weight', [v, h])];
  for (let l = 0; l < spec.numLayers; l++) {
    const p = `model.layers.${l}.`;
    const L = `L${l}.`;
    out.push(one(`${L}w_attn_norm`, `${p}input_layernorm.weight`, [h]));
    if (spec.mla) out.push(...mlaMapping(spec, p, L));
    else
      out.push({
        name: `${L}w_qkv`,
        shape: [(nh + 2 * nkv) * hd, h],
        parts: [
          { hf: `${p}self_attn.q_proj.weight`, rows: nh * hd },
          { hf: `${p}self_attn.k_proj.weight`, rows: nkv * hd },
          { hf: `${p}self_attn.v_proj.weight`, rows: nkv * hd },
        ],
      });
    if (spec.qkNorm && !spec.mla) {
      out.push(one(`${L}w_q_norm`, `${p}self_attn.q_norm.weight`, [hd]));
      out.push(one(`${L}w_k_norm`, `${p}self_attn.k_norm.weight`, [hd]));
    }
    out.push(one(`${L}w_o`, `${p}self_attn.o_proj.weight`, [h, spec.mla ? nh * spec.mla.vDim : nh * hd]));
    if (gemma) {
      out.push(one(`${L}w_post_attn_norm`, `${p}post_attention_layernorm.weight`, [h]));
      out.push(one(`${L}w_ffn_norm`, `${p}pre_feedforward_layernorm.weight`, [h]));
      out.push(one(`${L}w_post_ffn_norm`, `${p}post_feedforward_layernorm.weight`, [h]));
    } else {
      out.push(one(`${L}w_ffn_norm`, `${p}post_attention_layernorm.weight`, [h]));
    }
    if (isMoeLayer(spec, l)) {
      out.push(...moeMapping(spec, p, L));
      continue;
    }
    out.push({
      name: `${L}w_gate_up`,
      shape: [2 * inter, h],
      parts: [
        { hf: `${p}mlp.gate_proj.weight`, rows: inter },
        { hf: `${p}mlp.up_proj.weight`, rows: inter },
      ],
    });
    out.push(one(`${L}w_down`, `${p}mlp.down_proj.weight`, [h, inter]));
  }
  out.push(one('w_final_norm', 'model.norm.weight', [h]));
  if (!spec.tieWordEmbeddings) out.push(one('w_lm_head', 'lm_head.weight', [v, h]));
  return out;
}

/**
 * MLA's weights. W_UK and W_UV are the per-head slices of `kv_b_proj` transposed into the
 * absorbed layout ([heads, rank, nope] and [heads, v, rank]); a checkpoint's `kv_b_proj` would
 * need that transpose, so MLA models run with random weights (see `loadCheckpointWeights`).
 */
function mlaMapping(spec: ModelSpec, p: string, L: string): CheckpointMapping[] {
  const { hiddenSize: h, numHeads: nh, headDim: qDim } = spec;
  const { qLoraRank: ql, kvLoraRank: R, ropeDim, nopeDim, vDim } = spec.mla!;
  const a = `${p}self_attn.`;
  const one = (name: string, hf: string, shape: number[]): CheckpointMapping => ({ name, shape, parts: [{ hf, rows: shape[0]! }] });
  const q =
    ql === null
      ? [one(`${L}w_q`, `${a}q_proj.weight`, [nh * qDim, h])]
      : [
          one(`${L}w_q_a`, `${a}q_a_proj.weight`, [ql, h]),
          one(`${L}w_q_a_norm`, `${a}q_a_layernorm.weight`, [ql]),
          one(`${L}w_q_b`, `${a}q_b_proj.weight`, [nh * qDim, ql]),
        ];
  return [
    ...q,
    one(`${L}w_kv_a`, `${a}kv_a_proj_with_mqa.weight`, [R + ropeDim, h]),
    one(`${L}w_kv_a_norm`, `${a}kv_a_layernorm.weight`, [R]),
    one(`${L}w_uk`, `${a}kv_b_proj.weight#uk`, [nh * R, nopeDim]),
    one(`${L}w_uv`, `${a}kv_b_proj.weight#uv`, [nh * vDim, R]),
  ];
}

/**
 * A MoE layer's weights: the router, every expert's [gate; up] and down stacked along the
 * rows ([E·2I, h] and [E·h, I], i.e. [E, 2I, h] and [E, h, I] row-major), the shared experts.
 */
function moeMapping(spec: ModelSpec, p: string, L: string): CheckpointMapping[] {
  const moe = spec.moe!;
  const h = spec.hiddenSize;
  const I = moe.expertIntermediateSize;
  const mixtral = moe.module === 'block_sparse_moe';
  const m = `${p}${moe.module}.`;
  const names = mixtral ? ['w1', 'w3', 'w2'] : ['gate_proj', 'up_proj', 'down_proj'];
  const experts = Array.from({ length: moe.numExperts }, (_, e) => `${m}experts.${e}.`);
  const out: CheckpointMapping[] = [
    { name: `${L}w_router`, shape: [moe.numExperts, h], parts: [{ hf: `${m}gate.weight`, rows: moe.numExperts }] },
    {
      name: `${L}w_experts_gate_up`,
      shape: [moe.numExperts * 2 * I, h],
      parts: experts.flatMap((x) => [
        { hf: `${x}${names[0]}.weight`, rows: I },
        { hf: `${x}${names[1]}.weight`, rows: I },
      ]),
    },
    { name: `${L}w_experts_down`, shape: [moe.numExperts * h, I], parts: experts.map((x) => ({ hf: `${x}${names[2]}.weight`, rows: h })) },
  ];
  const si = moe.sharedIntermediateSize;
  if (si > 0) {
    const sp = `${m}${moe.sharedExpertGate ? 'shared_expert' : 'shared_experts'}.`;
    out.push(
      {
        name: `${L}w_shared_gate_up`,
        shape: [2 * si, h],
        parts: [
          { hf: `${sp}gate_proj.weight`, rows: si },
          { hf: `${sp}up_proj.weight`, rows: si },
        ],
      },
      { name: `${L}w_shared_down`, shape: [h, si], parts: [{ hf: `${sp}down_proj.weight`, rows: h }] },
    );
    if (moe.sharedExpertGate) out.push({ name: `${L}w_shared_expert_gate`, shape: [1, h], parts: [{ hf: `${m}shared_expert_gate.weight`, rows: 1 }] });
  }
  return out;
}

/**
 * Random weights, seeded: linear weights N(0, 1/K) so activations keep unit scale, norm
 * weights 1 + N(0, 0.1²), embeddings N(0, 1); rounded to the model's dtype.
 */
export function randomWeights(spec: ModelSpec, seed: number): ModelWeights {
  const rng = new Rng(seed);
  const round = rounder(modelFloatDType(spec));
  const w: ModelWeights = new Map();
  for (const m of checkpointMapping(spec)) {
    const count = m.shape.reduce((a, b) => a * b, 1);
    const isNorm = m.shape.length === 1;
    const std = isNorm ? 0.1 : m.name === 'w_embed' ? 1 : 1 / Math.sqrt(m.shape[1]!);
    const data = rng.normals(count, std);
    for (let i = 0; i < count; i++) data[i] = round(isNorm ? 1 + data[i]! : data[i]!);
    w.set(m.name, data);
  }
  return w;
}

/** Read a checkpoint directory's weights (every `*.safetensors` shard) into op-graph names. */
export function loadCheckpointWeights(dir: string, spec: ModelSpec): ModelWeights {
  let files: string[];
  try {
    files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.safetensors'))
      .sort();
  } catch (e) {
    throw inputError(`${dir}: cannot list directory: ${(e as Error).message.split('\n')[0]}`);
  }
  if (files.length === 0) throw inputError(`${dir}: no *.safetensors files to read weights from`);
  if (spec.mla)
    throw inputError(
      `${dir}: functional runs of latent attention use random weights (kv_b_proj is not yet split into the absorbed W_UK/W_UV); pass the config.json alone`,
    );
  const shards = files.map((f) => new SafetensorsFile(nodePath.join(dir, f)));
  const find = (hf: string): TensorData => {
    const s = shards.find((x) => x.has(hf));
    if (!s) throw inputError(`${dir}: missing tensor '${hf}' in the safetensors files`);
    return s.read(hf);
  };
  const w: ModelWeights = new Map();
  for (const m of checkpointMapping(spec)) {
    const data = new Float32Array(m.shape.reduce((a, b) => a * b, 1));
    const cols = m.shape.length > 1 ? m.shape[1]! : 1;
    let row = 0;
    for (const part of m.parts) {
      const t = find(part.hf);
      const want = m.shape.length > 1 ? [part.rows, cols] : [part.rows];
      if (t.shape.length !== want.length || t.shape.some((d, i) => d !== want[i])) {
        throw inputError(`${dir}: tensor '${part.hf}' has shape [${t.shape.join(', ')}], expected [${want.join(', ')}]`);
      }
      data.set(t.data, row * cols);
      row += part.rows;
    }
    w.set(m.name, data);
  }
  return w;
}

/** The Hugging Face tensors of `weights` (split back into q/k/v and gate/up), for writing a checkpoint. */
export function checkpointTensorsOf(spec: ModelSpec, weights: ModelWeights, dtype: DataDType = 'BF16'): TensorData[] {
  const out: TensorData[] = [];
  for (const m of checkpointMapping(spec)) {
    const data = weights.get(m.name);
    if (!data) throw new RangeError(`weights lack '${m.name}'`);
    const cols = m.shape.length > 1 ? m.shape[1]! : 1;
    let row = 0;
    for (const part of m.parts) {
      out.push({
        name: part.hf,
        dtype,
        shape: m.shape.length > 1 ? [part.rows, cols] : [part.rows],
        data: data.slice(row * cols, (row + part.rows) * cols),
      });
      row += part.rows;
    }
  }
  return out;
}
