/**
 * The FP8 suite: cuBLASLt's W8A8 GEMMs (`torch._scaled_mm`, cold weights, one CUDA graph) on
 * an H100 — e4m3 × e4m3 with per-tensor scales (`f8e4m3`), with row-wise scales (`f8e4m3c`),
 * and e5m2 activations × e4m3 weights (`f8e4m3ae5m2`) — at six shapes × M = 1–4096, beside
 * bf16 `F.linear` on the same shapes (measured/h100-fp8-ours.json, our 2026-11-25 sweep).
 *
 * Two parameters come from this sweep, both from the three calibration shapes (N, K) =
 * (6144, 4096), (24576, 4096), (7168, 8192): the FP8 main loop's efficiency relative to bf16's
 * (family-hopper `FP8_RELATIVE_EFFICIENCY`), set by their M = 4096 points, and the row-wise
 * kernel's cost per activation row its boxes fill past the tensor's edge (`ROWWISE_OOB_ROW_NS`),
 * set by their row-wise points at M = 1–64. Every row of those shapes is labelled `calibration`; the other three shapes, (4096, 4096), (4096, 12288) and
 * (8192, 3584), set nothing and are judged as measurements at 10%, with the FP8 speedup over
 * bf16 at each of their points.
 *
 * `h200-fp8` reruns the sweep on an H200 (../h200/measured/h200-fp8-ours.json, 2026-11-27),
 * which Fleet prices with the H100's kernel calibration: every row there is a measurement.
 */
import type { Backend, ValidationRow } from '@fleet/core';
import h200Sweep from '../h200/measured/h200-fp8-ours.json' with { type: 'json' };
import h100Sweep from './measured/h100-fp8-ours.json' with { type: 'json' };
import { gemmGraphCalls, GOAL_PCT, linearOpUs, row, type H100ValidationOptions } from './validation.js';

type Fp8Sweep = typeof h100Sweep;

/** One device's FP8 sweep; on the H100 the calibration shapes set a parameter, on the H200 nothing does. */
interface Fp8Data {
  suite: string;
  sweep: Fp8Sweep;
  source: string;
  calibrated: boolean;
}

const H100: Fp8Data = {
  suite: 'h100-fp8',
  sweep: h100Sweep,
  source: 'ours: bench/device/sweep.py --only=fp8 on an H100 80GB HBM3, 2026-11-25 (packages/validation/src/h100/measured/h100-fp8-ours.json)',
  calibrated: true,
};
const H200: Fp8Data = {
  suite: 'h200-fp8',
  sweep: h200Sweep,
  source: 'ours: bench/device/sweep.py on an H200, 2026-11-27 (packages/validation/src/h200/measured/h200-fp8-ours.json)',
  calibrated: false,
};

/** The shapes whose M = 4096 points set FP8_RELATIVE_EFFICIENCY (family-hopper/src/reference/h100-fp8-ours.json). */
export const FP8_CALIBRATION_SHAPES: readonly (readonly [number, number])[] = [
  [6144, 4096],
  [24576, 4096],
  [7168, 8192],
];

/** Fleet's weight type for each measured variant. */
const WEIGHTS: Record<string, string> = { 'e4m3-tensor': 'f8e4m3', 'e4m3-rowwise': 'f8e4m3c', 'e5m2act-e4m3w-tensor': 'f8e4m3ae5m2' };

const isCalibration = (r: { n: number; k: number }) => FP8_CALIBRATION_SHAPES.some(([n, k]) => n === r.n && k === r.k);

function fp8Rows(sweep: Fp8Sweep, quick: boolean) {
  return sweep.rows.filter((r) => r.variant in WEIGHTS && (!quick || (r.m === 1 && !isCalibration(r))));
}

function bf16Us(sweep: Fp8Sweep, r: { m: number; n: number; k: number }): number {
  return sweep.rows.find((b) => b.variant === 'bf16' && b.m === r.m && b.n === r.n && b.k === r.k)!.usPerCall;
}

function points(data: Fp8Data, quick: boolean): number {
  const rows = fp8Rows(data.sweep, quick);
  return rows.length + rows.filter((r) => r.variant === 'e4m3-tensor' && !(data.calibrated && isCalibration(r))).length;
}

export function fp8ValidationPoints(quick = false): number {
  return points(H100, quick);
}

export function h200Fp8ValidationPoints(quick = false): number {
  return points(H200, quick);
}

export function h100Fp8Validation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return fp8Validation(backend, H100, opts);
}

export function h200Fp8Validation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return fp8Validation(backend, H200, opts);
}

function fp8Validation(backend: Backend, data: Fp8Data, opts: H100ValidationOptions): ValidationRow[] {
  const { sweep, source: SRC, suite } = data;
  const tick = opts.tick ?? (() => {});
  const out: ValidationRow[] = [];
  for (const r of fp8Rows(sweep, opts.quick ?? false)) {
    const weights = WEIGHTS[r.variant]!;
    tick(`fp8 ${weights} M=${r.m} N=${r.n} K=${r.k}`);
    const kind = data.calibrated && isCalibration(r) ? 'calibration' : 'measurement';
    const fp8 = linearOpUs(backend, r.m, r.n, r.k, weights, backend.kernelLibrary, gemmGraphCalls(r.n * r.k)).us;
    const cublas = r.kernel.replace(/^nvjet_sm90_/, '').replace(/_[vh]_bz.*$/, '');
    out.push({ ...row(`GEMM ${weights} M=${r.m} N=${r.n} K=${r.k} (cuBLASLt ${cublas})`, kind, r.usPerCall, fp8, 'µs', GOAL_PCT, SRC), suite });
    if (r.variant === 'e4m3-tensor' && kind === 'measurement') {
      const bf16 = linearOpUs(backend, r.m, r.n, r.k, 'bf16', backend.kernelLibrary, gemmGraphCalls(r.n * r.k * 2)).us;
      out.push({
        ...row(`GEMM f8e4m3 speedup over bf16, M=${r.m} N=${r.n} K=${r.k}`, 'measurement', bf16Us(sweep, r) / r.usPerCall, bf16 / fp8, '×', GOAL_PCT, SRC),
        suite,
      });
    }
  }
  return out;
}
