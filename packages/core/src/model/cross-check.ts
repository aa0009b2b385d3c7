import { lineError } from './messages.js';
import type { ModelSpec } from './model-spec.js';
import type { SafetensorsHeader } from './safetensors.js';

/**
 * Checking a checkpoint's tensors against its `config.json`: a config that disagrees with
 * the weights beside it would make every simulated byte count wrong, so it is refused.
 * Names and shapes are those of the Hugging Face Llama/Qwen/Gemma 2 implementations.
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
  const { hiddenSize: h, numHeads: nh, numKvHeads: nkv, headDim: hd, intermediateSize: inter, vocabSize: v } = spec;
  const out: Array<{ name: string; shape: number[] }> = [{ name: 'model.embed_tokens.weight', shape: [v, h] }];
  for (let i = 0; i < spec.numLayers; i++) {
    const p = `model.layers.${i}`;
    out.push(
      { name: `${p}.self_attn.q_proj.weight`, shape: [nh * hd, h] },
      { name: `${p}.self_attn.k_proj.weight`, shape: [nkv * hd, h] },
      { name: `${p}.self_attn.v_proj.weight`, shape: [nkv * hd, h] },
      { name: `${p}.self_attn.o_proj.weight`, shape: [h, nh * hd] },
    );
    if (spec.qkvBias) {
      out.push(
        { name: `${p}.self_attn.q_proj.bias`, shape: [nh * hd] },
        { name: `${p}.self_attn.k_proj.bias`, shape: [nkv * hd] },
        { name: `${p}.self_attn.v_proj.bias`, shape: [nkv * hd] },
      );
    }
    if (spec.qkNorm) {
      out.push({ name: `${p}.self_attn.q_norm.weight`, shape: [hd] }, { name: `${p}.self_attn.k_norm.weight`, shape: [hd] });
    }
    out.push(
      { name: `${p}.mlp.gate_proj.weight`, shape: [inter, h] },
      { name: `${p}.mlp.up_proj.weight`, shape: [inter, h] },
      { name: `${p}.mlp.down_proj.weight`, shape: [h, inter] },
      { name: `${p}.input_layernorm.weight`, shape: [h] },
      { name: `${p}.post_attention_layernorm.weight`, shape: [h] },
    );
    if (spec.normsPerLayer === 4) {
      out.push({ name: `${p}.pre_feedforward_layernorm.weight`, shape: [h] }, { name: `${p}.post_feedforward_layernorm.weight`, shape: [h] });
    }
  }
  out.push({ name: 'model.norm.weight', shape: [h] });
  if (!spec.tieWordEmbeddings) out.push({ name: 'lm_head.weight', shape: [v, h] });
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
      throw lineError(
        `${origin}: tensor '${t.name}' appears twice (in ${prev.file ?? origin} and ${t.file ?? origin}); each tensor must be in one file only`,
      );
    }
    byName.set(t.name, t);
  }
  for (const want of expectedTensors(spec)) {
    const got = byName.get(want.name);
    if (!got) {
      throw lineError(
        `${origin}: missing tensor '${want.name}' (expected shape ${showShape(want.shape)}, found none in the safetensors files)`,
      );
    }
    if (got.shape.length !== want.shape.length || got.shape.some((d, i) => d !== want.shape[i])) {
      throw lineError(
        `${got.file ?? origin}: tensor '${want.name}' has shape ${showShape(got.shape)}, but config ${spec.name} expects ${showShape(want.shape)}`,
      );
    }
  }
}
