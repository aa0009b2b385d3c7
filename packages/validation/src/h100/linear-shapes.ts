/**
 * The linear-shape suites: cuBLASLt bf16 GEMMs (F.linear, cold weights) for the projections of
 * nine model shapes — hidden 2048–8192, Llama3-70B's tensor-parallel shards of 4 and 8 — at
 * M = 1–256, from our sweeps (bench/device/sweep.py): `h100-linear` (2026-11-25) and
 * `h200-linear` (the same script on an H200, 2026-11-27). The nvjet model was calibrated on
 * Qwen3-8B's shapes on the H100 alone; every other family, and every H200 row, is held out, and
 * none of these numbers sets a parameter. Both also list the prefill GEMMs (Qwen3-8B's and
 * Llama-3-8B's projections at M = 2048–65536, `sweep.py --long`); the H100's set one parameter,
 * the swizzle of nvjet's tile scheduler (`NVJET_SWIZZLE`), and are calibration rows; the H200's
 * are held out.
 */
import type { Backend, ValidationRow } from '@fleet/core';
import h200Sweep from '../h200/measured/h200-linear-shapes-ours.json' with { type: 'json' };
import h100Sweep from './measured/h100-linear-shapes-ours.json' with { type: 'json' };
import h200PrefillGemms from '../h200/measured/h200-prefill-gemms-ours.json' with { type: 'json' };
import h100PrefillGemms from './measured/h100-prefill-gemms-ours.json' with { type: 'json' };
import { gemmGraphCalls, GOAL_PCT, linearOpUs, row, type H100ValidationOptions } from './validation.js';

type LinearSweep = typeof h100Sweep;

const H100 = {
  suite: 'h100-linear',
  sweep: h100Sweep,
  source: 'ours: bench/device/sweep.py on an H100 80GB HBM3, 2026-11-25 (packages/validation/src/h100/measured/h100-linear-shapes-ours.json)',
  // The prefill GEMMs set the swizzle of nvjet's scheduler on the H100: calibration there, held out on the H200.
  prefill: { gemms: h100PrefillGemms, kind: 'calibration', file: 'h100/measured/h100-prefill-gemms-ours.json' },
} as const;
const H200 = {
  suite: 'h200-linear',
  sweep: h200Sweep,
  source: 'ours: bench/device/sweep.py on an H200, 2026-11-27 (packages/validation/src/h200/measured/h200-linear-shapes-ours.json)',
  prefill: { gemms: h200PrefillGemms, kind: 'measurement', file: 'h200/measured/h200-prefill-gemms-ours.json' },
} as const;
type LinearSet = typeof H100 | typeof H200;

function shapeRows(sweep: LinearSweep, quick: boolean) {
  return sweep.rows.filter((r) => (quick ? r.family === 'qwen3-32b' && r.m === 1 : [1, 4, 16, 64, 256].includes(r.m)));
}

/** The prefill GEMMs (quick: the largest of one family's gate+up projection). */
function prefillRows(data: LinearSet, quick: boolean) {
  return data.prefill.gemms.rows.filter((r) => !quick || (r.family === 'qwen3-8b' && r.op === 'gate_up_proj' && r.m === 65536));
}

export function linearShapesValidationPoints(quick = false): number {
  return shapeRows(H100.sweep, quick).length + prefillRows(H100, quick).length;
}

export function h200LinearShapesValidationPoints(quick = false): number {
  return shapeRows(H200.sweep, quick).length + prefillRows(H200, quick).length;
}

export function h100LinearShapesValidation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return linearShapesValidation(backend, H100, opts);
}

export function h200LinearShapesValidation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return linearShapesValidation(backend, H200, opts);
}

/** An nvjet kernel's tile and stages, as its name gives them. */
function shortNvjet(name: string): string {
  return name.replace(/^nvjet_sm90_tst_/, '').replace(/_[vh]_bz.*$/, '');
}

function linearShapesValidation(backend: Backend, data: LinearSet, opts: H100ValidationOptions): ValidationRow[] {
  const tick = opts.tick ?? (() => {});
  const picked = (m: number, n: number, k: number) =>
    (backend.kernelLibrary?.gemm({ m, n, k, weightBytes: 2 }).name ?? 'default').replace(/^nvjet_sm90_tst_/, '');
  const shapes = shapeRows(data.sweep, opts.quick ?? false).map((r) => {
    tick(`linear ${r.family} ${r.op} m${r.m}`);
    const measured = r.kernels[0] ? shortNvjet(r.kernels[0].name) : '?';
    return {
      ...row(
        `GEMM bf16 ${r.family} ${r.op} M=${r.m} N=${r.n} K=${r.k} (picked ${picked(r.m, r.n, r.k)}; cuBLAS ${measured})`,
        'measurement',
        r.us,
        linearOpUs(backend, r.m, r.n, r.k, 'bf16', backend.kernelLibrary, gemmGraphCalls(r.n * r.k * 2)).us,
        'µs',
        GOAL_PCT,
        data.source,
      ),
      suite: data.suite,
    };
  });
  const prefill = prefillRows(data, opts.quick ?? false).map((r) => {
    tick(`prefill gemm ${r.family} ${r.op} m${r.m}`);
    return {
      ...row(
        `prefill GEMM bf16 ${r.family} ${r.op} M=${r.m} N=${r.n} K=${r.k} (picked ${picked(r.m, r.n, r.k)}; cuBLAS ${shortNvjet(r.kernel)})`,
        data.prefill.kind,
        r.us,
        linearOpUs(backend, r.m, r.n, r.k, 'bf16', backend.kernelLibrary, r.copies).us,
        'µs',
        GOAL_PCT,
        `${data.prefill.gemms.source} (packages/validation/src/${data.prefill.file})`,
      ),
      suite: data.suite,
    };
  });
  return [...shapes, ...prefill];
}
