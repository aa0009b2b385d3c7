import type { ValidationRow } from '@fleet/core';

/** One suite's verdict: rows within tolerance, and the mean absolute error of what it predicts. */
export interface SuiteSummary {
  suite: string;
  rows: number;
  ok: number;
  /** Mean |error| in % over the predicted (non-calibration) rows judged in %; NaN when none. */
  mapePct: number;
  /** Mean |error| in points over the predicted rows judged in points (rates); NaN when none. */
  meanPointError: number;
  /** Predicted rows each mean is over. */
  pctRows: number;
  ptRows: number;
}

/**
 * Per-suite summaries, in the order suites first appear. Calibration rows count towards
 * `ok` but not the errors (a fitted value says nothing of the model's accuracy); a range is
 * 0 inside it and the distance to its nearer end outside, as the row's error says.
 */
export function summariseSuites(rows: readonly ValidationRow[]): SuiteSummary[] {
  const out = new Map<string, SuiteSummary & { pctSum: number; ptSum: number }>();
  for (const r of rows) {
    let s = out.get(r.suite);
    if (!s) out.set(r.suite, (s = { suite: r.suite, rows: 0, ok: 0, mapePct: NaN, meanPointError: NaN, pctRows: 0, ptRows: 0, pctSum: 0, ptSum: 0 }));
    s.rows++;
    if (r.ok) s.ok++;
    if (r.kind === 'calibration' || !Number.isFinite(r.error)) continue;
    if (r.errorUnit === '%') {
      s.pctRows++;
      s.pctSum += Math.abs(r.error);
    } else {
      s.ptRows++;
      s.ptSum += Math.abs(r.error);
    }
  }
  return [...out.values()].map(({ pctSum, ptSum, ...s }) => ({
    ...s,
    mapePct: s.pctRows > 0 ? pctSum / s.pctRows : NaN,
    meanPointError: s.ptRows > 0 ? ptSum / s.ptRows : NaN,
  }));
}

/** A summary as one line: `fleet-mi350: 30 of 70 within tolerance; MAPE 14.2% (40 predicted); mean error 6.1 pt (24 rates)`. */
export function formatSuiteSummary(s: SuiteSummary): string {
  const parts = [`${s.suite}: ${s.ok} of ${s.rows} within tolerance`];
  if (s.pctRows > 0) parts.push(`MAPE ${s.mapePct.toFixed(1)}% (${s.pctRows} predicted)`);
  if (s.ptRows > 0) parts.push(`mean error ${s.meanPointError.toFixed(1)} pt (${s.ptRows} rates)`);
  // A suite whose every row sets a parameter predicts nothing: say so rather than print no error.
  if (s.pctRows === 0 && s.ptRows === 0) parts.push('no predicted rows (calibration only)');
  return parts.join('; ');
}
