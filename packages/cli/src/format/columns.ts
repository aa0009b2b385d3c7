import type { CompareRow } from '../compare.js';

/** A column of the human-readable comparison (text table, Markdown, HTML report). */
export interface Column {
  header: string;
  /** Numbers align right. */
  numeric: boolean;
  cell(r: CompareRow): string;
}

const ok = (r: CompareRow, f: (r: CompareRow) => string) => (r.status === 'ok' ? f(r) : '-');

/** The comparison as people read it: ms, percent, GB and MB per decoded token. */
export const HUMAN_COLUMNS: readonly Column[] = [
  { header: 'backend', numeric: false, cell: (r) => r.backend },
  { header: 'policy', numeric: false, cell: (r) => r.policy },
  { header: 'batch', numeric: true, cell: (r) => String(r.batch) },
  { header: 'TPOT ms', numeric: true, cell: (r) => ok(r, (x) => x.tpotMs!.toFixed(3)) },
  { header: 'L2 hit', numeric: true, cell: (r) => ok(r, (x) => `${(x.l2HitRate! * 100).toFixed(1)}%`) },
  { header: 'HBM rd GB/tok', numeric: true, cell: (r) => ok(r, (x) => (x.hbmReadBytes! / 1e9).toFixed(2)) },
  { header: 'HBM wr MB/tok', numeric: true, cell: (r) => ok(r, (x) => (x.hbmWriteBytes! / 1e6).toFixed(1)) },
  { header: 'tasks/layer', numeric: true, cell: (r) => ok(r, (x) => String(x.tasksPerLayer)) },
  {
    header: 'note',
    numeric: false,
    cell: (r) => (r.status !== 'ok' ? `unsupported: ${r.reason}` : r.activeExperts !== undefined ? `experts ${r.activeExperts}/${r.experts} per MoE layer` : ''),
  },
];

/** Every field of a row, raw, in the JSON contract's order (CSV). */
export const RAW_FIELDS: readonly (keyof CompareRow)[] = [
  'backend',
  'policy',
  'batch',
  'promptTokens',
  'decodeTokens',
  'status',
  'reason',
  'tpotMs',
  'l2HitRate',
  'hbmReadBytes',
  'hbmWriteBytes',
  'tasksPerLayer',
  'fencesPerToken',
  'dispatchesPerToken',
  'launchesPerToken',
  'activeExperts',
];
