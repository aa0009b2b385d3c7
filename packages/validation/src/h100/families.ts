/**
 * The model-families suites: decode steps of five model shapes no calibration run used
 * (Llama-3.2-1B and -3B, Llama-3-8B, Qwen2.5-7B, Mistral-Nemo-12B), measured on an H100 and an
 * H200 with the same script as the Qwen3 decode sweep (`bench/device/sweep.py --families`).
 * They differ from Qwen3 where a model loader and a kernel model can go wrong: no q/k norm,
 * QKV bias, head dim 64, an attention width below the hidden size, tied embeddings, groups of
 * seven query heads. Every row is a prediction.
 * - `h100-families` (measured/h100-families-ours.json, 2026-11-27; a repeat on the same machine
 *   beside each point gives the run-to-run spread, mean 1.0%, max 4.3%).
 * - `h200-families` (../h200/measured/h200-families-ours.json, 2026-11-27).
 */
import { loadModel, type Backend, type ModelSpec, type ValidationRow } from '@fleet/core';
import * as ops from '@fleet/ops';
import h200Families from '../h200/measured/h200-families-ours.json' with { type: 'json' };
import h100Families from './measured/h100-families-ours.json' with { type: 'json' };
import { GOAL_PCT, groupedRows, row, type H100ValidationOptions } from './validation.js';

type FamiliesSweep = typeof h200Families;
type FamilyConfig = FamiliesSweep['models'][number]['config'];

const SOURCES: Record<'h100' | 'h200', { suite: string; sweep: FamiliesSweep; source: string }> = {
  h100: {
    suite: 'h100-families',
    sweep: h100Families,
    source: 'ours: bench/device/sweep.py --families on an H100 80GB HBM3, 2026-11-27 (packages/validation/src/h100/measured/h100-families-ours.json)',
  },
  h200: {
    suite: 'h200-families',
    sweep: h200Families,
    source: 'ours: bench/device/sweep.py --families on an H200, 2026-11-27 (packages/validation/src/h200/measured/h200-families-ours.json)',
  },
};

/** The bench's model as a `ModelSpec`: the shape it built, bf16, SiLU, two norms per layer. */
export function familyModel(c: FamilyConfig): ModelSpec {
  return {
    ...loadModel('llama3-8b'),
    name: c.name,
    hiddenSize: c.hidden,
    numLayers: c.layers,
    numHeads: c.heads,
    numKvHeads: c.kvHeads,
    headDim: c.headDim,
    intermediateSize: c.inter,
    vocabSize: c.vocab,
    qkNorm: c.qkNorm,
    qkvBias: c.qkvBias,
    tieWordEmbeddings: c.tied,
  };
}

function points(sweep: FamiliesSweep, quick: boolean) {
  return sweep.models.flatMap((m) => m.rows.filter((r) => !quick || (r.batch === 1 && r.kvLen === 1024)).map((r) => ({ config: m.config, ...r })));
}

export function familiesValidationPoints(gpu: 'h100' | 'h200', quick = false): number {
  return points(SOURCES[gpu].sweep, quick).length;
}

/** Decode TPOT of each family's shape beside the measurement on `gpu`. */
export function familiesValidation(backend: Backend, gpu: 'h100' | 'h200', opts: H100ValidationOptions = {}): ValidationRow[] {
  const { suite, sweep, source } = SOURCES[gpu];
  const tick = opts.tick ?? (() => {});
  const grouped = groupedRows(backend);
  return points(sweep, opts.quick ?? false).map((d) => {
    tick(`decode ${d.config.name} ${d.layout} b${d.batch} kv${d.kvLen}`);
    const how = d.layout === 'rows' ? 'SDPA as grouped query rows (cuDNN, unsplit)' : 'SDPA FlashAttention-2 split-KV';
    const p = ops.predictDecode(d.layout === 'rows' ? grouped : backend, familyModel(d.config), {
      policy: 'kernel-per-op-graph',
      batch: d.batch,
      prompt: d.kvLen - 1,
      decode: 1,
      positions: 1,
    });
    const r = row(
      `${d.config.name} decode TPOT, one CUDA graph, ${how}, batch ${d.batch}, KV ${d.kvLen}`,
      'measurement',
      d.tpotMs,
      p.tpotMs,
      'ms',
      GOAL_PCT,
      source,
    );
    return { ...r, suite };
  });
}
