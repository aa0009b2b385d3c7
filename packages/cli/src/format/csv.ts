import type { CompareRow } from '../compare.js';
import { RAW_FIELDS } from './columns.js';

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export function csvField(v: string | number | undefined): string {
  if (v === undefined) return '';
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : v;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Comparison rows as CSV with a header: every JSON field, raw units, the model in column 1. */
export function formatCsv(model: string, rows: readonly CompareRow[]): string {
  const header = ['model', ...RAW_FIELDS].join(',');
  const lines = rows.map((r) => [csvField(model), ...RAW_FIELDS.map((k) => csvField(r[k]))].join(','));
  return `${[header, ...lines].join('\r\n')}\r\n`;
}
