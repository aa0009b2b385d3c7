import type { CompareRow } from '../compare.js';
import { columnsFor } from './columns.js';

/** A cell safe inside a GitHub-flavoured Markdown table. */
function mdCell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Comparison rows as a GitHub-flavoured Markdown table (numbers right-aligned). */
export function formatMarkdown(rows: readonly CompareRow[]): string {
  const columns = columnsFor(rows);
  const row = (cells: string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  return [
    row(columns.map((c) => c.header)),
    `|${columns.map((c) => (c.numeric ? ' ---: ' : ' --- ')).join('|')}|`,
    ...rows.map((r) => row(columns.map((c) => c.cell(r)))),
  ].join('\n');
}
