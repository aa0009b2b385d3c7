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
 * - `h100-shards` (measured/h100-shards-ours.json, 2026-11-27): one rank of Qwen3-8B and -32B
 *   at TP 2 and 4 (its heads, KV heads and FFN share; the LM head whole) alone on one H100,
 *   without its all-reduces — the compute side of `h200-tp`'s rows.
 * - `h100-windows` (measured/h100-windows-ours.json, 2026-11-28): sliding-window attention —
 *   Mistral-7B-v0.1 (a 4096-token window on every layer), its shape with the window on the even
 *   layers only (Gemma 2's alternation), its shape with full attention, and Gemma-2-9B's shape
 *   (head dim 256, post-norms, tanh-GELU, tied 256K vocabulary) — at KV 2K–64K; `h200-windows`
 *   the same on an H200.
 */
import { loadModel, type Backend, type ModelSpec, type ValidationRow } from '@fleet/core';
import * as ops from '@fleet/ops';
import h200Families from '../h200/measured/h200-families-ours.json' with { type: 'json' };
import h100Families from './measured/h100-families-ours.json' with { type: 'json' };
import h100Shards from './measured/h100-shards-ours.json' with { type: 'json' };
import h100Windows from './measured/h100-windows-ours.json' with { type: 'json' };
import h200Windows from '../h200/measured/h200-windows-ours.json' with { type: 'json' };
import { GOAL_PCT, groupedRows, row, type H100ValidationOptions } from './validation.js';

/**
 * A model the bench built: the families' fields, and where it has them, its sliding window
 * (`windowLayers`: every layer, or the even ones as Gemma 2 alternates them) and Gemma 2's
 * tanh-GELU gate and post-norms.
 */
type FamilyConfig = Pick<typeof h200Families, 'models'>['models'][number]['config'] & {
  window?: number;
  windowLayers?: string;
  gelu?: boolean;
  postNorms?: boolean;
};
interface FamiliesSweep {
  models: { config: FamilyConfig; rows: { layout: string; batch: number; kvLen: number; tpotMs: number }[] }[];
}

/** The measured sets: the families on each GPU, one tensor-parallel rank alone on an H100, sliding windows on each GPU. */
export type FamiliesSet = 'h100' | 'h200' | 'h100-shards' | 'h100-windows' | 'h200-windows';

const SOURCES: Record<FamiliesSet, { suite: string; sweep: FamiliesSweep; source: string; what: string }> = {
  h100: {
    suite: 'h100-families',
    sweep: h100Families,
    source:
      'ours: bench/device/sweep.py --families on an H100 80GB HBM3, 2026-11-27, no profiler session attached while timing (packages/validation/src/h100/measured/h100-families-ours.json)',
    what: 'decode TPOT',
  },
  h200: {
    suite: 'h200-families',
    sweep: h200Families,
    source:
      'ours: bench/device/sweep.py --families on an H200, 2026-11-27, no profiler session attached while timing (packages/validation/src/h200/measured/h200-families-ours.json)',
    what: 'decode TPOT',
  },
  'h100-shards': {
    suite: 'h100-shards',
    sweep: h100Shards,
    source:
      'ours: bench/device/sweep.py --only=e2e --shards on an H100 80GB HBM3, 2026-11-27, no profiler session attached while timing (packages/validation/src/h100/measured/h100-shards-ours.json)',
    what: 'decode TPOT of one tensor-parallel rank alone (no collectives)',
  },
  'h100-windows': {
    suite: 'h100-windows',
    sweep: h100Windows,
    source:
      'ours: bench/device/sweep.py --only=env,e2e --windows on an H100 80GB HBM3, 2026-11-28, no profiler session attached while timing (packages/validation/src/h100/measured/h100-windows-ours.json)',
    what: 'decode TPOT',
  },
  'h200-windows': {
    suite: 'h200-windows',
    sweep: h200Windows,
    source:
      'ours: bench/device/sweep.py --only=env,e2e --windows on an H200, 2026-11-28, no profiler session attached while timing (packages/validation/src/h200/measured/h200-windows-ours.json)',
    what: 'decode TPOT',
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
    ...(c.gelu ? { activation: 'gelu-tanh' as const } : {}),
    ...(c.postNorms ? { normsPerLayer: 4 as const } : {}),
    ...(c.window
      ? { slidingWindow: { tokens: c.window, layers: Array.from({ length: c.layers }, (_, l) => l).filter((l) => c.windowLayers === 'all' || l % 2 === 0) } }
      : {}),
  };
}

function points(sweep: FamiliesSweep, quick: boolean) {
  return sweep.models.flatMap((m) => m.rows.filter((r) => !quick || (r.batch === 1 && r.kvLen === 1024)).map((r) => ({ config: m.config, ...r })));
}

export function familiesValidationPoints(gpu: FamiliesSet, quick = false): number {
  return points(SOURCES[gpu].sweep, quick).length;
}

/** Decode TPOT of each family's shape beside the measurement on `gpu`. */
export function familiesValidation(backend: Backend, gpu: FamiliesSet, opts: H100ValidationOptions = {}): ValidationRow[] {
  const { suite, sweep, source, what } = SOURCES[gpu];
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
      `${d.config.name} ${what}, one CUDA graph, ${how}, batch ${d.batch}, KV ${d.kvLen}`,
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
