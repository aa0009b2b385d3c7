import type { ValidationRow } from '@fleet/core';

function fmt(v: number, unit: string): string {
  if (unit === 'claim holds') return v ? 'holds' : 'fails';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '-∞';
  if (unit === 'rate' || unit === 'fraction') return `${(v * 100).toFixed(1)}%`;
  if (unit === 'tasks') return v.toFixed(0);
  return v.toFixed(unit === '×' ? 2 : 3);
}

function published(r: ValidationRow): string {
  return Array.isArray(r.published) ? `${fmt(r.published[0], r.unit)}–${fmt(r.published[1], r.unit)}` : fmt(r.published, r.unit);
}

/** A text table: experiment, kind, published, predicted, error, verdict; then a summary line. */
export function formatValidation(rows: readonly ValidationRow[]): string {
  const cells = rows.map((r) => [
    r.suite,
    r.experiment,
    r.kind,
    published(r),
    fmt(r.predicted, r.unit),
    `${r.error >= 0 ? '+' : ''}${r.error.toFixed(1)}${r.errorUnit === '%' ? '%' : ' pt'}`,
    r.ok ? 'ok' : `MISS (±${r.tolerance}${r.errorUnit === '%' ? '%' : ' pt'})`,
  ]);
  const header = ['suite', 'experiment', 'kind', 'published', 'predicted', 'error', 'verdict'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => (i >= 3 && i <= 5 ? x.padStart(widths[i]!) : x.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const ok = rows.filter((r) => r.ok).length;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line), '', `${ok} of ${rows.length} within tolerance.`, ...suiteMape(rows)].join(
    '\n',
  );
}

/** Per suite: rows within tolerance and the mean absolute error of its %-error rows (0 inside a published range). */
function suiteMape(rows: readonly ValidationRow[]): string[] {
  const suites = [...new Set(rows.map((r) => r.suite))];
  return suites.map((s) => {
    const of = rows.filter((r) => r.suite === s);
    const pct = of.filter((r) => r.errorUnit === '%');
    const mape = pct.length > 0 ? pct.reduce((a, r) => a + Math.abs(r.error), 0) / pct.length : NaN;
    return `${s}: ${of.filter((r) => r.ok).length} of ${of.length} within tolerance${pct.length > 0 ? `, MAPE ${mape.toFixed(1)}% over ${pct.length} rows` : ''}`;
  });
}
