import { TaskBusyTime, withObservers, type Backend, type ModelSpec } from '@fleet/core';
import { resolvePolicy } from '@fleet/ops';
import { compareJobs, runJob, type CompareOptions, type CompareRow } from '../compare.js';
import type { Progress } from '../progress.js';
import { classBreakdownMs, type ClassTimes } from './breakdown.js';
import { decodeStepFlops, effectiveIntensity, roofOf, type Roof } from './roofline.js';

/** A comparison row with what the charts need besides the JSON contract's fields. */
export interface ReportRow {
  row: CompareRow;
  /** `backend · policy`: one series in the charts. */
  series: string;
  /** ms per token by op class (share of worker-busy time × TPOT); null if unavailable. */
  breakdownMs: ClassTimes | null;
  /** Roofline point: B / (1 − L2 hit rate) FLOP/byte, and achieved TFLOP/s. */
  intensity: number | null;
  achievedTflops: number | null;
}

export interface ReportData {
  model: ModelSpec;
  rows: ReportRow[];
  roofs: Roof[];
  /** Backends in the order compared. */
  backends: Backend[];
}

/**
 * The decode positions and layers a prediction simulates for these options (evenly spaced
 * positions, the first layers) — the sampling `predictDecode` documents and reports.
 */
export function sampledSteps(o: CompareOptions, numLayers: number): { positions: number[]; layers: number } {
  const n = Math.max(1, Math.min(o.decode, o.positions));
  return {
    positions: Array.from({ length: n }, (_, i) => o.prompt + Math.floor(((i + 0.5) * o.decode) / n)),
    layers: Math.max(1, Math.min(numLayers, o.layers)),
  };
}

/**
 * Run the comparison grid exactly as `fleet compare` does (the rows are its JSON rows),
 * observing each simulation for per-task busy time to break TPOT down by op class.
 */
export function collectReportData(model: ModelSpec, o: CompareOptions, bar: Progress): ReportData {
  const rows: ReportRow[] = [];
  const steps = sampledSteps(o, model.numLayers);
  for (const job of compareJobs(o)) {
    bar.tick(`${job.backend.name} ${job.policy} b${job.batch} p${job.prompt}`);
    const busy = new TaskBusyTime();
    const row = runJob(model, { ...job, backend: withObservers(job.backend, [busy.observer]) }, o);
    const tp = job.tp ?? 1;
    const series = `${job.backend.name} · ${job.policy}${(o.tps ?? [1]).length > 1 || tp > 1 ? ` · tp ${tp}` : ''}`;
    // Prefill and mixed steps are not decode tokens: no per-token breakdown or roofline point.
    if (row.status !== 'ok' || row.phase !== 'decode') {
      rows.push({ row, series, breakdownMs: null, intensity: null, achievedTflops: null });
      continue;
    }
    const resolved = resolvePolicy(job.backend, job.policy, o.overrides, o.installed);
    // The op-class breakdown re-runs single-device steps; a tensor-parallel row has none.
    const breakdownMs =
      !('reason' in resolved) && tp === 1
        ? classBreakdownMs(model, job.backend, resolved, job.batch, steps.positions, steps.layers, busy.steps, row.tpotMs!)
        : null;
    const flops = decodeStepFlops(model, job.batch, o.prompt + o.decode / 2) / tp;
    rows.push({
      row,
      series,
      breakdownMs,
      intensity: effectiveIntensity(model, job.batch, row.l2HitRate!),
      achievedTflops: flops / (row.tpotMs! * 1e-3) / 1e12,
    });
  }
  return { model, rows, roofs: o.backends.map((b) => roofOf(b, model)), backends: o.backends };
}
