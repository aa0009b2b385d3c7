import type { CompareRow } from './compare.js';

/** A plain aligned text table of comparison rows. */
export function formatTable(rows: readonly CompareRow[]): string {
  const header = ['backend', 'policy', 'batch', 'TPOT ms', 'L2 hit', 'HBM rd GB/tok', 'HBM wr MB/tok', 'tasks/layer', 'note'];
  const body = rows.map((r) =>
    r.status === 'ok'
      ? [r.backend, r.policy, String(r.batch), r.tpotMs!.toFixed(3), `${(r.l2HitRate! * 100).toFixed(1)}%`, (r.hbmReadBytes! / 1e9).toFixed(2), (r.hbmWriteBytes! / 1e6).toFixed(1), String(r.tasksPerLayer), '']
      : [r.backend, r.policy, String(r.batch), '-', '-', '-', '-', '-', `unsupported: ${r.reason}`],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (i === header.length - 1 ? 0 : row[i]!.length))));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
