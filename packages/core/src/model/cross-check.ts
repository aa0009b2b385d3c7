import { lineError } from './messages.js';
import type { ModelSpec } from './model-spec.js';
import { isMoeLayer } from './moe.js';
import type { SafetensorsHeader } from './safetensors.js';

/**
 * Checking a checkpoint's tensors against its `config.json`: a config that disagrees with
 * the weights beside it would make every simulated byte count wrong, so it is refused.
 * Names and shapes are those of the Hugging Face Llama/Qwen/Gemma/Phi-3 implementations.
 */

/** A tensor found in a checkpoint, with the file it came from. */
export interface CheckpointTensor {
  name: string;
  shape: readonly number[];
  file?: string;
}

/** Every tensor of every header, tagged with its file (a checkpoint may be sharded). */
export function checkpointTensors(headers: readonly SafetensorsHeader[]): CheckpointTensor[] {
  return headers.flatMap((h) => h.tensors.map((t) => ({ name: t.name, shape: t.shape, file: h.path })));
}

/** The tensors a checkpoint of `spec` must hold, with their shapes. */
export function expectedTensors(spec: ModelSpec): Array<{ name: string; shape: number[] }> {
  const { hiddenSize: h, vocabSize: v } = spec;
  const out: Array<{ name: string; shape: number[] }> = [{ name: 'model.embed_tokens.weight', shape: [v, h] }];
  for (let i = 0; i < spec.numLayers; i++) {
    const p = `model.layers.${i}`;
    out.push(...attentionTensors(spec, p));
    out.push(...ffnTensors(spec, p, i));
    out.push({ name: `${p}.input_layernorm.weight`, shape: [h] }, { name: `${p}.post_attention_layernorm.weight`, shape: [h] });
    if (spec.normsPerLayer === 4) {
      out.push({ name: `${p}.pre_feedforward_layernorm.weight`, shape: [h] }, { name: `${p}.post_feedforward_layernorm.weight`, shape: [h] });
    }
  }
  out.push({ name: 'model.norm.weight', shape: [h] });
  if (!spec.tieWordEmbeddings) out.push({ name: 'lm_head.weight', shape: [v, h] });
  return out;
}

type Expected = Array<{ name: string; shape: number[] }>;

/** Attention tensors of one layer: q/k/v/o (Llama, Qwen, Gemma, Mixtral) or DeepSeek's MLA compressions. */
function attentionTensors(spec: ModelSpec, p: string): Expected {
  const { hiddenSize: h, numHeads: nh, numKvHeads: nkv, headDim: hd } = spec;
  const a = `${p}.self_attn`;
  if (spec.mla) {
    const { qLoraRank: ql, kvLoraRank: r, ropeDim, nopeDim, vDim } = spec.mla;
    const q: Expected =
      ql === null
        ? [{ name: `${a}.q_proj.weight`, shape: [nh * hd, h] }]
        : [
            { name: `${a}.q_a_proj.weight`, shape: [ql, h] },
            { name: `${a}.q_a_layernorm.weight`, shape: [ql] },
            { name: `${a}.q_b_proj.weight`, shape: [nh * hd, ql] },
          ];
    return [
      ...q,
      { name: `${a}.kv_a_proj_with_mqa.weight`, shape: [r + ropeDim, h] },
      { name: `${a}.kv_a_layernorm.weight`, shape: [r] },
      { name: `${a}.kv_b_proj.weight`, shape: [nh * (nopeDim + vDim), r] },
      { name: `${a}.o_proj.weight`, shape: [h, nh * vDim] },
    ];
  }
  const out: Expected = spec.fusedCheckpoint
    ? [
        { name: `${a}.qkv_proj.weight`, shape: [(nh + 2 * nkv) * hd, h] },
        { name: `${a}.o_proj.weight`, shape: [h, nh * hd] },
      ]
    : [
        { name: `${a}.q_proj.weight`, shape: [nh * hd, h] },
        { name: `${a}.k_proj.weight`, shape: [nkv * hd, h] },
        { name: `${a}.v_proj.weight`, shape: [nkv * hd, h] },
        { name: `${a}.o_proj.weight`, shape: [h, nh * hd] },
      ];
  if (spec.qkvBias) {
    out.push({ name: `${a}.q_proj.bias`, shape: [nh * hd] }, { name: `${a}.k_proj.bias`, shape: [nkv * hd] }, { name: `${a}.v_proj.bias`, shape: [nkv * hd] });
  }
  if (spec.qkNorm) out.push({ name: `${a}.q_norm.weight`, shape: [hd] }, { name: `${a}.k_norm.weight`, shape: [hd] });
  return out;
}

/** A gated FFN's three projections under `prefix`, with the architecture's names. */
function mlpTensors(prefix: string, h: number, inter: number, mixtral: boolean): Expected {
  return mixtral
    ? [
        { name: `${prefix}.w1.weight`, shape: [inter, h] },
        { name: `${prefix}.w3.weight`, shape: [inter, h] },
        { name: `${prefix}.w2.weight`, shape: [h, inter] },
      ]
    : [
        { name: `${prefix}.gate_proj.weight`, shape: [inter, h] },
        { name: `${prefix}.up_proj.weight`, shape: [inter, h] },
        { name: `${prefix}.down_proj.weight`, shape: [h, inter] },
      ];
}

/**
 * FFN tensors of layer `l`: dense, or the router (`gate`), every routed expert and the shared
 * experts — Qwen2/3-MoE and DeepSeek under `mlp.`, Mixtral under `block_sparse_moe.` (w1/w3/w2).
 */
function ffnTensors(spec: ModelSpec, p: string, l: number): Expected {
  const h = spec.hiddenSize;
  const moe = spec.moe;
  if (!moe || !isMoeLayer(spec, l)) {
    if (!spec.fusedCheckpoint) return mlpTensors(`${p}.mlp`, h, spec.intermediateSize, false);
    const inter = spec.intermediateSize;
    return [
      { name: `${p}.mlp.gate_up_proj.weight`, shape: [2 * inter, h] },
      { name: `${p}.mlp.down_proj.weight`, shape: [h, inter] },
    ];
  }
  const mixtral = moe.module === 'block_sparse_moe';
  const m = mixtral ? `${p}.block_sparse_moe` : `${p}.mlp`;
  const out: Expected = [{ name: `${m}.gate.weight`, shape: [moe.numExperts, h] }];
  for (let e = 0; e < moe.numExperts; e++) out.push(...mlpTensors(`${m}.experts.${e}`, h, moe.expertIntermediateSize, mixtral));
  if (moe.sharedIntermediateSize > 0) {
    // Qwen2-MoE: one `shared_expert` and its sigmoid gate; DeepSeek: `shared_experts` fused into one FFN.
    out.push(...mlpTensors(moe.sharedExpertGate ? `${m}.shared_expert` : `${m}.shared_experts`, h, moe.sharedIntermediateSize, false));
    if (moe.sharedExpertGate) out.push({ name: `${m}.shared_expert_gate.weight`, shape: [1, h] });
  }
  return out;
}

const showShape = (s: readonly number[]): string => `[${s.join(', ')}]`;

/**
 * Throws a one-line `FleetError` for a tensor that is missing or has the wrong shape, or a
 * name found in two files. Extra tensors (rotary caches, quantisation scales...) are fine.
 * `origin` names the checkpoint (its directory) for errors that no single file explains.
 */
export function crossCheckTensors(spec: ModelSpec, tensors: readonly CheckpointTensor[], origin: string): void {
  const byName = new Map<string, CheckpointTensor>();
  for (const t of tensors) {
    const prev = byName.get(t.name);
    if (prev) {
      throw lineError(`${origin}: tensor '${t.name}' appears twice (in ${prev.file ?? origin} and ${t.file ?? origin}); each tensor must be in one file only`);
    }
    byName.set(t.name, t);
  }
  for (const want of expectedTensors(spec)) {
    const got = byName.get(want.name);
    if (!got) {
      throw lineError(`${origin}: missing tensor '${want.name}' (expected shape ${showShape(want.shape)}, found none in the safetensors files)`);
    }
    if (got.shape.length !== want.shape.length || got.shape.some((d, i) => d !== want.shape[i])) {
      throw lineError(
        `${got.file ?? origin}: tensor '${want.name}' has shape ${showShape(got.shape)}, but config ${spec.name} expects ${showShape(want.shape)}`,
      );
    }
  }
}
