/**
 * The tile-pipeline suite: predictions beside our 2026-11-24 H100 sweep
 * (measured/h100-pipeline-ours.json, validation only) — cuBLAS GEMMs at M = 1 … 8192 with
 * cold weights, PyTorch's W4A16 tinygemm at M = 1 … 64, cuDNN decode attention over batch × KV length, and Qwen3-8B / Llama3-8B
 * decode TPOT in one CUDA graph at batch 1 … 256 and KV up to 128K. The three calibration
 * points of calibration/h100-pipeline-ours.json are listed as such.
 */
import { buildDecodeGraph, loadModel, simulateGraph, type Backend, type ValidationRow } from '@fleet/core';
import * as ops from '@fleet/ops';
import { hopperKernelLibrary } from '@fleet/family-hopper';
import sweep from './measured/h100-pipeline-ours.json' with { type: 'json' };
import {
  GOAL_PCT,
  gemmRow,
  graphDecodeRow,
  graphLaunchShareNs,
  linearOpUs,
  rotatedCopies,
  row,
  type H100ValidationOptions,
  groupedRows,
} from './validation.js';

const SRC = 'ours: bench/h100/pipeline.py on an H100 80GB HBM3, 2026-11-24 (packages/validation/src/h100/measured/h100-pipeline-ours.json)';
const QWEN3_SHAPES = new Set(['qkv_proj', 'o_proj', 'gate_up_proj', 'down_proj']);

/** Decode-attention kernel time alone (layer 0's attention kernels), µs. */
function attentionUs(backend: Backend, heads: number, kvHeads: number, batch: number, kvLen: number): number {
  const model = { ...loadModel(kvHeads === heads ? 'llama2-7b' : 'qwen3-8b'), numHeads: heads, numKvHeads: kvHeads, headDim: 128 };
  const def = ops.KERNEL_PER_OP_GRAPH;
  const g = buildDecodeGraph(model, { batch, contextLen: kvLen - 1 });
  const att = g.ops.filter((o) => o.layer === 0 && o.kind === 'attention');
  const tg = def.compile({ ...g, ops: att }, backend, def.schedule, { layers: [0], library: backend.kernelLibrary, kernels: backend.tuning.kernels });
  return simulateGraph(backend, tg, { launchMode: 'graph' }).timeNs / 1000;
}

/** Number of points the suite runs (progress bars). */
export function pipelineValidationPoints(quick = false): number {
  return gemmRows(quick).length + int4Rows(quick).length + sdpaRows(quick).length + decodeRows(quick).length;
}

function int4Rows(quick: boolean) {
  return sweep.int4.rows.filter((r) => !quick || (r.op === 'qkv_proj' && r.m === 16));
}

function gemmRows(quick: boolean) {
  return sweep.gemm.rows.filter((r) =>
    quick
      ? r.op === 'qkv_proj' && [16, 64, 256].includes(r.m)
      : QWEN3_SHAPES.has(r.op)
        ? r.m <= 256 || [1024, 8192].includes(r.m)
        : [1, 64, 256, 8192].includes(r.m),
  );
}

function sdpaRows(quick: boolean) {
  return sweep.sdpa.rows.filter((r) =>
    quick ? r.batch === 1 && r.kvLen === 8192 : [1, 8, 32, 128].includes(r.batch) && [1024, 8192, 32768].includes(r.kvLen),
  );
}

function decodeRows(quick: boolean) {
  const q = sweep.decode['qwen3-8b'].map((r) => ({ model: 'qwen3-8b', ...r }));
  const l = sweep.decode['llama3-8b'].map((r) => ({ model: 'llama3-8b', ...r }));
  return quick ? q.filter((r) => r.batch === 1 && r.kvLen === 1024) : [...q, ...l];
}

export function h100PipelineValidation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = groupedRows(device);
  const tick = opts.tick ?? (() => {});
  const quick = opts.quick ?? false;
  const rows: ValidationRow[] = [];
  for (const m of gemmRows(quick)) {
    tick(`gemm ${m.op} m${m.m}`);
    const chosen = backend.kernelLibrary?.gemm({ m: m.m, n: m.n, k: m.k, weightBytes: 2 }).name ?? 'default';
    const cal = m.op === 'qkv_proj' && m.m === 1;
    rows.push(gemmRow(backend, m, cal ? 'calibration' : 'measurement', SRC, chosen));
  }
  for (const q of int4Rows(quick)) {
    tick(`int4 ${q.op} m${q.m}`);
    // The measured kernel is PyTorch's tinygemm: priced as that choice, not the library's default low-bit GEMM.
    // packed int4 codes and the group's scales and zeros, rotated over 256 MB, one call each
    const calls = rotatedCopies((q.n * q.k) / 2 + (q.k / 128) * q.n * 4);
    const p = linearOpUs(backend, q.m, q.n, q.k, 'u4g128', hopperKernelLibrary('tinygemm'), calls);
    const cal = q.op === 'o_proj' && q.m === 1;
    rows.push(
      row(
        `W4A16 g128 M=${q.m} ${q.op} N=${q.n} K=${q.k} (tinygemm, torch._weight_int4pack_mm)`,
        cal ? 'calibration' : 'measurement',
        q.us,
        p.us,
        'µs',
        GOAL_PCT,
        SRC,
      ),
    );
  }
  for (const a of sdpaRows(quick)) {
    tick(`sdpa b${a.batch} kv${a.kvLen}`);
    // K/V rotated over 200 MB of copies, at most 16, one call each
    const calls = rotatedCopies(2 * a.batch * a.kvHeads * a.kvLen * 128 * 2, 16, 200e6);
    const p = attentionUs(backend, a.heads, a.kvHeads, a.batch, a.kvLen) + graphLaunchShareNs(backend, calls) / 1000;
    const cal = a.heads !== a.kvHeads && a.batch === 1 && a.kvLen === 32768;
    rows.push(
      row(
        `SDPA decode ${a.heads}/${a.kvHeads} heads, batch ${a.batch}, KV ${a.kvLen} (kernel + graph gap)`,
        cal ? 'calibration' : 'measurement',
        a.us,
        p,
        'µs',
        GOAL_PCT,
        SRC,
      ),
    );
  }
  for (const d of decodeRows(quick)) {
    tick(`decode ${d.model} b${d.batch} kv${d.kvLen}`);
    rows.push(graphDecodeRow(backend, d, GOAL_PCT, SRC));
  }
  return rows.map((r) => ({ ...r, suite: 'h100-pipeline' }));
}
