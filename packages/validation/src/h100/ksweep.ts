/**
 * The skinny-GEMM sweeps over K (bench/device/ksweep.py): cuBLASLt bf16 `F.linear` at M = 1,
 * 8, 16, 32 and 64, N = 4096–24576, K = 1024–32768, cold weights, one CUDA graph.
 * `h100-ksweep`: H100 runs — two at M = 1 and 8, whose fits set nvjet's per-CTA fixed cost
 * and DRAM in-flight (labelled calibration), one at M = 16–64 and one over Qwen3-8B/32B's
 * tensor-parallel shards at M = 1, 8, 32 (`--shapes`), which set nothing (their rows are
 * predictions); `h200-ksweep`: the same runs on an H200, every row held out.
 */
import type { Backend, ValidationRow } from '@fleet/core';
import h200Sweep from '../h200/measured/h200-ksweep-ours.json' with { type: 'json' };
import h100Sweep from './measured/h100-ksweep-ours.json' with { type: 'json' };
import { gemmGraphCalls, GOAL_PCT, linearOpUs, row, type H100ValidationOptions } from './validation.js';

type KSweep = typeof h100Sweep;

/** The runs whose fits set a parameter (family-hopper's KSWEEP fits at M ≤ 8, H100 only). */
const H100 = { suite: 'h100-ksweep', sweep: h100Sweep, calibrationRuns: ['h100-ksweep', 'h100-ksweep-repeat'] };
const H200 = { suite: 'h200-ksweep', sweep: h200Sweep as KSweep, calibrationRuns: [] as string[] };

function sweepRows(sweep: KSweep, quick: boolean) {
  // quick: the first run's M = 1, K = 4096 points (the same shapes on either GPU)
  return sweep.rows.filter((r) => !quick || (r.run === sweep.runs[0]!.run && r.m === 1 && r.k === 4096));
}

export function h100KsweepValidationPoints(quick = false): number {
  return sweepRows(H100.sweep, quick).length;
}

export function h200KsweepValidationPoints(quick = false): number {
  return sweepRows(H200.sweep, quick).length;
}

export function h100KsweepValidation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return ksweepValidation(backend, H100, opts);
}

export function h200KsweepValidation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return ksweepValidation(backend, H200, opts);
}

function ksweepValidation(backend: Backend, data: typeof H100 | typeof H200, opts: H100ValidationOptions): ValidationRow[] {
  const tick = opts.tick ?? (() => {});
  return sweepRows(data.sweep, opts.quick ?? false).map((r) => {
    tick(`ksweep m${r.m} n${r.n} k${r.k}`);
    const picked = backend.kernelLibrary?.gemm({ m: r.m, n: r.n, k: r.k, weightBytes: 2 }).name ?? 'default';
    const measured = r.kernel
      .replace(/^nvjet_sm90_tst_/, '')
      .replace(/_[vh]_bz/, '')
      .replace(/_TNT$/, '');
    return {
      ...row(
        `GEMM bf16 M=${r.m} N=${r.n} K=${r.k}, ${r.run} (picked ${picked.replace(/^nvjet_sm90_tst_/, '')}; cuBLAS ${measured})`,
        data.calibrationRuns.includes(r.run) && r.m <= 8 ? 'calibration' : 'measurement',
        r.usPerCall,
        linearOpUs(backend, r.m, r.n, r.k, 'bf16', backend.kernelLibrary, gemmGraphCalls(r.n * r.k * 2)).us,
        'µs',
        GOAL_PCT,
        data.sweep.source,
      ),
      suite: data.suite,
    };
  });
}
