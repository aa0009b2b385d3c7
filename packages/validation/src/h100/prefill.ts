/**
 * The prefill suite: predictions beside our H100 prefill measurements
 * (measured/h100-prefill-ours.json, validation only) — cuDNN's causal SDPA alone over batch ×
 * prompt length, and Qwen3-8B / Llama3-8B time to first token (the whole forward in one CUDA
 * graph) at 512–16384 prompt tokens. Every row is a prediction: the kernel's parameters come
 * from a batch-1 microbenchmark of its own (non-causal tiles over heads and KV lengths,
 * family-hopper's reference/h100-prefill-tiles-ours.json).
 */
import { buildPrefillGraph, loadModel, simulateGraph, type Backend, type ValidationRow } from '@fleet/core';
import * as ops from '@fleet/ops';
import data from './measured/h100-prefill-ours.json' with { type: 'json' };
import { GOAL_PCT, graphLaunchShareNs, row, type H100ValidationOptions, groupedRows } from './validation.js';

const SRC = 'ours: bench/h100/phases.py on an H100 80GB HBM3, 2026-11-24 (packages/validation/src/h100/measured/h100-prefill-ours.json)';

function attentionRows(quick: boolean) {
  return data.attention.rows.filter((r) => !quick || (r.layout === 'gqa32x8' && r.batch === 1 && r.promptLen === 8192));
}

function ttftRows(quick: boolean) {
  const q = data.prefill['qwen3-8b'].map((r) => ({ model: 'qwen3-8b', ...r }));
  const l = data.prefill['llama3-8b'].map((r) => ({ model: 'llama3-8b', ...r }));
  return quick ? q.filter((r) => r.batch === 1 && r.promptLen === 1024) : [...q, ...l];
}

/** Number of points the suite runs (progress bars). */
export function prefillValidationPoints(quick = false): number {
  return attentionRows(quick).length + ttftRows(quick).length;
}

/**
 * Causal prefill attention alone as bench/h100/phases.py times it (one call in a CUDA graph):
 * layer 0's attention kernel and the whole graph's launch, µs.
 */
function prefillAttentionUs(backend: Backend, heads: number, kvHeads: number, batch: number, promptLen: number): number {
  const model = { ...loadModel('qwen3-8b'), numHeads: heads, numKvHeads: kvHeads, headDim: 128 };
  const def = ops.KERNEL_PER_OP_GRAPH;
  const g = buildPrefillGraph(model, { batch, promptLen });
  const att = g.ops.filter((o) => o.layer === 0 && o.kind === 'attention');
  const tg = def.compile({ ...g, ops: att }, backend, def.schedule, { layers: [0], library: backend.kernelLibrary, kernels: backend.tuning.kernels });
  return (simulateGraph(backend, tg, { launchMode: 'graph' }).timeNs + graphLaunchShareNs(backend, 1)) / 1000;
}

export function h100PrefillValidation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = groupedRows(device);
  const tick = opts.tick ?? (() => {});
  const quick = opts.quick ?? false;
  const rows: ValidationRow[] = [];
  for (const a of attentionRows(quick)) {
    tick(`attention ${a.layout} b${a.batch} S${a.promptLen}`);
    const p = prefillAttentionUs(backend, a.heads, a.kvHeads, a.batch, a.promptLen);
    rows.push(
      row(
        `causal SDPA ${a.heads}/${a.kvHeads} heads, batch ${a.batch}, prompt ${a.promptLen} (kernel + graph launch)`,
        'measurement',
        a.us,
        p,
        'µs',
        GOAL_PCT,
        SRC,
      ),
    );
  }
  for (const t of ttftRows(quick)) {
    tick(`prefill ${t.model} b${t.batch} S${t.promptLen}`);
    const r = ops.predictPrefill(backend, loadModel(t.model), { policy: 'kernel-per-op-graph', batch: t.batch, prompt: t.promptLen });
    rows.push(row(`${t.model} prefill TTFT, one CUDA graph, batch ${t.batch}, prompt ${t.promptLen}`, 'measurement', t.ttftMs, r.ttftMs, 'ms', GOAL_PCT, SRC));
  }
  return rows.map((r) => ({ ...r, suite: 'h100-prefill' }));
}
