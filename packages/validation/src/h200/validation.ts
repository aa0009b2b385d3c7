/**
 * The single-H200 suites: predictions beside our own H200 measurements, taken with the
 * scripts of the H100 ones (measured/, validation only) — cuBLAS GEMMs at M = 1 … 8192,
 * Qwen3-8B / Llama3-8B decode TPOT in one CUDA graph at batch 1 … 256 and KV to 128K, and
 * prefill TTFT. Microbenchmarks (achievable HBM read bandwidth, HBM latency under load) set
 * topology fields; no number below sets anything.
 */
import { loadModel, type Backend, type ValidationRow } from '@fleet/core';
import * as ops from '@fleet/ops';
import { GOAL_PCT, gemmRow, graphDecodeRow, groupedRows, row, type H100ValidationOptions } from '../h100/validation.js';
import sweep from './measured/h200-pipeline-ours.json' with { type: 'json' };
import phases from './measured/h200-prefill-ours.json' with { type: 'json' };

const SRC = 'ours: bench/h100/pipeline.py on an H200, 2026-11-24 (packages/validation/src/h200/measured/h200-pipeline-ours.json)';
const SRC_PREFILL = 'ours: bench/h100/phases.py on an H200, 2026-11-24 (packages/validation/src/h200/measured/h200-prefill-ours.json)';
const QWEN3_SHAPES = new Set(['qkv_proj', 'o_proj', 'gate_up_proj', 'down_proj']);

function gemmRows(quick: boolean) {
  return sweep.gemm.rows.filter((r) =>
    quick ? r.op === 'qkv_proj' && [16, 256].includes(r.m) : QWEN3_SHAPES.has(r.op) && [1, 16, 64, 256, 1024, 8192].includes(r.m),
  );
}

function decodeRows(quick: boolean) {
  const q = sweep.decode['qwen3-8b'].map((r) => ({ model: 'qwen3-8b', ...r }));
  const l = sweep.decode['llama3-8b'].map((r) => ({ model: 'llama3-8b', ...r }));
  return quick ? q.filter((r) => r.kvLen === 1024 && [1, 64].includes(r.batch)) : [...q, ...l];
}

function ttftRows(quick: boolean) {
  const q = phases.prefill['qwen3-8b'].map((r) => ({ model: 'qwen3-8b', ...r }));
  const l = phases.prefill['llama3-8b'].map((r) => ({ model: 'llama3-8b', ...r }));
  return quick ? q.filter((r) => r.batch === 1 && r.promptLen === 1024) : [...q, ...l];
}

/** Number of points the decode suite runs (progress bars). */
export function h200PipelineValidationPoints(quick = false): number {
  return gemmRows(quick).length + decodeRows(quick).length;
}

export function h200PrefillValidationPoints(quick = false): number {
  return ttftRows(quick).length;
}

/** GEMMs and decode TPOT on one H200. Decode TPOT is the headline: the target is within 10%. */
export function h200PipelineValidation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = groupedRows(device);
  const tick = opts.tick ?? (() => {});
  const quick = opts.quick ?? false;
  const rows: ValidationRow[] = [];
  for (const m of gemmRows(quick)) {
    tick(`gemm ${m.op} m${m.m}`);
    // That H200's host launched the graph almost for free: its time per call exceeds the
    // kernel's profiled run by 0.7 µs at six calls, one gap and hardly any launch share; a graph
    // launch measured on another H200 took 6.1 µs (bench/results/h200-clean/gaps-clean).
    rows.push(gemmRow(backend, m, 'measurement', SRC, undefined, false));
  }
  for (const d of decodeRows(quick)) {
    tick(`decode ${d.model} b${d.batch} kv${d.kvLen}`);
    rows.push(graphDecodeRow(backend, d, GOAL_PCT, SRC));
  }
  return rows.map((r) => ({ ...r, suite: 'h200-pipeline' }));
}

/** Prefill TTFT on one H200 (one CUDA graph per forward). */
export function h200PrefillValidation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = groupedRows(device);
  const tick = opts.tick ?? (() => {});
  const rows: ValidationRow[] = [];
  for (const t of ttftRows(opts.quick ?? false)) {
    tick(`prefill ${t.model} b${t.batch} S${t.promptLen}`);
    const r = ops.predictPrefill(backend, loadModel(t.model), { policy: 'kernel-per-op-graph', batch: t.batch, prompt: t.promptLen });
    rows.push(
      row(`${t.model} prefill TTFT, one CUDA graph, batch ${t.batch}, prompt ${t.promptLen}`, 'measurement', t.ttftMs, r.ttftMs, 'ms', GOAL_PCT, SRC_PREFILL),
    );
  }
  return rows.map((r) => ({ ...r, suite: 'h200-prefill' }));
}
