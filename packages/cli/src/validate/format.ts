import type { ValidationRow } from '@fleet/core';
import { formatSuiteSummary, summariseSuites } from '@fleet/validation';

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

const errorText = (r: ValidationRow) => `${r.error >= 0 ? '+' : ''}${r.error.toFixed(1)}${r.errorUnit === '%' ? '%' : ' pt'}`;

/** The longest summary line. */
const LINE_WIDTH = 140;

/** Width the experiment column wraps at, so no line runs far past a terminal's width. */
const EXPERIMENT_WIDTH = 72;

/** Split `text` into lines of at most `width` characters at spaces (a longer word stays whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

/**
 * A suite's summary: the shared per-suite verdict (`formatSuiteSummary`: points within
 * tolerance, MAPE of its predicted % rows, mean error of its predicted rates), how many
 * claims hold, and the worst row against its tolerance.
 */
export function suiteSummary(suite: string, rows: readonly ValidationRow[]): string {
  const [summary] = summariseSuites(rows.map((r) => ({ ...r, suite })));
  // Claims hold or fail: counted, not averaged into an error.
  const claims = rows.filter((r) => r.unit === 'claim holds');
  const claimText = claims.length > 0 ? `; ${claims.filter((r) => r.ok).length} of ${claims.length} claims hold` : '';
  // The worst row: misses first, then the largest error against its tolerance.
  const judged = rows.filter((r) => r.unit === 'claim holds' || Number.isFinite(r.error));
  const badness = (r: ValidationRow) => (r.ok ? 0 : 1e9) + (r.tolerance > 0 ? Math.abs(r.error) / r.tolerance : Math.abs(r.error));
  const worst = [...judged].sort((a, b) => badness(b) - badness(a))[0];
  const head = `${summary ? formatSuiteSummary(summary) : `${suite}: no rows`}${claimText}`;
  if (!worst) return head;
  // The worst row's experiment is cut to keep the line within LINE_WIDTH.
  const lead = `${head}; worst: ${errorText(worst)} (±${worst.tolerance}) `;
  const room = LINE_WIDTH - lead.length;
  if (worst.experiment.length <= room) return `${lead}${worst.experiment}`;
  return room < 12 ? lead.trimEnd() : `${lead}${worst.experiment.slice(0, room - 1).trimEnd()}…`;
}

/**
 * Per suite: its summary line, then a table of kind, published, predicted, error, verdict and
 * the experiment (wrapped); a closing line over all suites.
 */
export function formatValidation(rows: readonly ValidationRow[]): string {
  const header = ['kind', 'published', 'predicted', 'error', 'verdict', 'experiment'];
  const cellsOf = (r: ValidationRow) => [
    r.kind,
    published(r),
    fmt(r.predicted, r.unit),
    errorText(r),
    r.ok ? 'ok' : `MISS (±${r.tolerance}${r.errorUnit === '%' ? '%' : ' pt'})`,
  ];
  const all = rows.map(cellsOf);
  const widths = header.slice(0, 5).map((h, i) => Math.max(h.length, ...all.map((c) => c[i]!.length)));
  const pad = (c: string[]) => c.map((x, i) => (i >= 1 && i <= 3 ? x.padStart(widths[i]!) : x.padEnd(widths[i]!))).join('  ');
  const indent = ' '.repeat(widths.reduce((a, w) => a + w + 2, 0));
  const out: string[] = [];
  const suites = [...new Set(rows.map((r) => r.suite))];
  for (const suite of suites) {
    const rs = rows.filter((r) => r.suite === suite);
    out.push(suiteSummary(suite, rs), `  ${pad(header.slice(0, 5))}  ${header[5]}`, `  ${pad(widths.map((w) => '-'.repeat(w)))}  ----------`);
    for (const r of rs) {
      const [first, ...more] = wrap(r.experiment, EXPERIMENT_WIDTH);
      out.push(`  ${pad(cellsOf(r))}  ${first}`, ...more.map((l) => `  ${indent}${l}`));
    }
    out.push('');
  }
  const ok = rows.filter((r) => r.ok).length;
  return [
    ...out,
    `${ok} of ${rows.length} within tolerance${ok < rows.length ? ` (${rows.length - ok} missed; --strict exits 1 when any point misses)` : ''}.`,
  ].join('\n');
}
