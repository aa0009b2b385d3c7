import type { CompareRow } from '../compare.js';
import { columnsFor } from './columns.js';

/** A plain aligned text table of comparison rows (the last column, the note, is not padded). */
export function formatTable(rows: readonly CompareRow[]): string {
  const columns = columnsFor(rows);
  const header = columns.map((c) => c.header);
  const body = rows.map((r) => columns.map((c) => c.cell(r)));
  const last = header.length - 1;
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (i === last ? 0 : row[i]!.length))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === last ? c : columns[i]!.numeric ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
