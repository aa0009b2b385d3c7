/**
 * Which model a functional run uses: the built-in `tiny` model with seeded random weights,
 * or a `config.json` / checkpoint directory — with the weights of its `*.safetensors` files
 * when there are any (random ones otherwise), and the RoPE base and RMSNorm epsilon of its
 * config when it states them.
 */
import * as fs from 'node:fs';
import { loadModel, type ModelSpec } from '@fleet/core';
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

/**
 * The RoPE base and RMSNorm epsilon a model states (`@fleet/core`'s loader reads them from its
 * config.json); the ones it leaves out take `DEFAULT_SEMANTICS`' values.
 */
export function semanticsOf(spec: ModelSpec): Partial<DecodeSemantics> {
  return {
    ...(spec.ropeTheta !== undefined ? { ropeTheta: spec.ropeTheta } : {}),
    ...(spec.rmsNormEps !== undefined ? { eps: spec.rmsNormEps } : {}),
  };
}

/** Resolve `tiny` (default), a preset, a config.json or a checkpoint directory. */
export function loadFunctionalModel(ref: string): FunctionalModel {
  if (ref.trim().toLowerCase() === 'tiny') return { spec: { ...TINY_MODEL }, semantics: {}, weightsFrom: 'random' };
  if (ref.trim().toLowerCase() === 'tiny-moe') return { spec: structuredClone(TINY_MOE_MODEL), semantics: {}, weightsFrom: 'random' };
  if (ref.trim().toLowerCase() === 'tiny-mla') return { spec: structuredClone(TINY_MLA_MODEL), semantics: {}, weightsFrom: 'random' };
  const spec = loadModel(ref);
  checkRunnable(spec);
  const semantics = semanticsOf(spec);
  let isDir = false;
  try {
    isDir = fs.statSync(ref).isDirectory();
  } catch {
    // A preset name: no file.
  }
  // Only a checkpoint directory holds weights; a preset or a config.json alone runs on random ones.
  if (!isDir) return { spec, semantics, weightsFrom: 'random' };
  const hasWeights = fs.readdirSync(ref).some((f) => f.endsWith('.safetensors'));
  return hasWeights ? { spec, weights: loadCheckpointWeights(ref, spec), semantics, weightsFrom: 'checkpoint' } : { spec, semantics, weightsFrom: 'random' };
}
