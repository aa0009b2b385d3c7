/**
 * Which model a functional run uses: the built-in `tiny` model with seeded random weights,
 * or a `config.json` / checkpoint directory — with the weights of its `*.safetensors` files
 * when there are any (random ones otherwise), and the RoPE base and RMSNorm epsilon of its
 * config when it states them.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { inputError, loadModel, type ModelSpec } from '@fleet/core';
import type { DecodeSemantics } from './decode-ops.js';
import { TINY_MLA_MODEL, TINY_MODEL, TINY_MOE_MODEL } from './tiny-model.js';
import { checkRunnable } from './verify.js';
import { loadCheckpointWeights, type ModelWeights } from './weights.js';

export interface FunctionalModel {
  spec: ModelSpec;
  /** Checkpoint weights, or undefined for seeded random ones. */
  weights?: ModelWeights;
  semantics: Partial<DecodeSemantics>;
  /** Where the weights come from, for the report. */
  weightsFrom: 'random' | 'checkpoint';
}

/** `rope_theta` and `rms_norm_eps` of a Hugging Face config, when present and valid. */
export function semanticsFromConfig(path: string): Partial<DecodeSemantics> {
  let cfg: Record<string, unknown>;
  try {
    cfg = JSON.parse(fs.readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
  const out: Partial<DecodeSemantics> = {};
  const num = (k: string): number | undefined => {
    const v = cfg[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !(v > 0)) throw inputError(`${path}: field '${k}' (${JSON.stringify(v)}) must be a positive number`);
    return v;
  };
  const theta = num('rope_theta');
  const eps = num('rms_norm_eps');
  if (theta !== undefined) out.ropeTheta = theta;
  if (eps !== undefined) out.eps = eps;
  return out;
}

/** Resolve `tiny` (default), a preset, a config.json or a checkpoint directory. */
export function loadFunctionalModel(ref: string): FunctionalModel {
  if (ref.trim().toLowerCase() === 'tiny') return { spec: { ...TINY_MODEL }, semantics: {}, weightsFrom: 'random' };
  if (ref.trim().toLowerCase() === 'tiny-moe') return { spec: structuredClone(TINY_MOE_MODEL), semantics: {}, weightsFrom: 'random' };
  if (ref.trim().toLowerCase() === 'tiny-mla') return { spec: structuredClone(TINY_MLA_MODEL), semantics: {}, weightsFrom: 'random' };
  const spec = loadModel(ref);
  checkRunnable(spec);
  let isDir = false;
  let isFile = false;
  try {
    const st = fs.statSync(ref);
    isDir = st.isDirectory();
    isFile = st.isFile();
  } catch {
    // A preset name: no file.
  }
  if (isFile) return { spec, semantics: semanticsFromConfig(ref), weightsFrom: 'random' };
  if (!isDir) return { spec, semantics: {}, weightsFrom: 'random' };
  const semantics = semanticsFromConfig(nodePath.join(ref, 'config.json'));
  const hasWeights = fs.readdirSync(ref).some((f) => f.endsWith('.safetensors'));
  return hasWeights ? { spec, weights: loadCheckpointWeights(ref, spec), semantics, weightsFrom: 'checkpoint' } : { spec, semantics, weightsFrom: 'random' };
}
