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
  // L2 misses sent to the fabric (the MALL/LLC or DRAM serves them): what L2 counters see
  { header: 'fabric rd GB/tok', numeric: true, cell: (r) => ok(r, (x) => (x.fabricReadBytes! / 1e9).toFixed(2)) },
  { header: 'HBM wr MB/tok', numeric: true, cell: (r) => ok(r, (x) => (x.hbmWriteBytes! / 1e6).toFixed(1)) },
  { header: 'tasks/layer', numeric: true, cell: (r) => ok(r, (x) => String(x.tasksPerLayer)) },
  {
    header: 'note',
    numeric: false,
    cell: (r) =>
      r.status !== 'ok' ? `unsupported: ${r.reason}` : r.activeExperts !== undefined ? `experts ${r.activeExperts}/${r.experts} per MoE layer` : '',
  },
];

/** Prefill rows as people read them: TTFT, prompt tokens per second, bytes per prompt. */
export const PREFILL_COLUMNS: readonly Column[] = [
  { header: 'backend', numeric: false, cell: (r) => r.backend },
  { header: 'policy', numeric: false, cell: (r) => r.policy },
  { header: 'batch', numeric: true, cell: (r) => String(r.batch) },
  { header: 'prompt', numeric: true, cell: (r) => String(r.promptTokens) + (r.chunkTokens ? ` (${r.chunkTokens}/chunk)` : '') },
  { header: 'TTFT ms', numeric: true, cell: (r) => ok(r, (x) => x.ttftMs!.toFixed(2)) },
  { header: 'tok/s', numeric: true, cell: (r) => ok(r, (x) => String(x.tokensPerSecond)) },
  { header: 'L2 hit', numeric: true, cell: (r) => ok(r, (x) => `${(x.l2HitRate! * 100).toFixed(1)}%`) },
  { header: 'HBM rd GB', numeric: true, cell: (r) => ok(r, (x) => (x.hbmReadBytes! / 1e9).toFixed(2)) },
  { header: 'HBM wr GB', numeric: true, cell: (r) => ok(r, (x) => (x.hbmWriteBytes! / 1e9).toFixed(2)) },
  { header: 'note', numeric: false, cell: (r) => (r.status === 'ok' ? '' : `unsupported: ${r.reason}`) },
];

/** Mixed serving steps: the step's time and throughput. */
export const MIXED_COLUMNS: readonly Column[] = [
  { header: 'backend', numeric: false, cell: (r) => r.backend },
  { header: 'policy', numeric: false, cell: (r) => r.policy },
  { header: 'decode batch', numeric: true, cell: (r) => String(r.batch) },
  { header: 'context', numeric: true, cell: (r) => String(r.promptTokens) },
  { header: 'chunk', numeric: true, cell: (r) => String(r.chunkTokens) },
  { header: 'step ms', numeric: true, cell: (r) => ok(r, (x) => x.stepMs!.toFixed(3)) },
  { header: 'tok/s', numeric: true, cell: (r) => ok(r, (x) => String(x.tokensPerSecond)) },
  { header: 'L2 hit', numeric: true, cell: (r) => ok(r, (x) => `${(x.l2HitRate! * 100).toFixed(1)}%`) },
  { header: 'HBM rd GB', numeric: true, cell: (r) => ok(r, (x) => (x.hbmReadBytes! / 1e9).toFixed(2)) },
  { header: 'note', numeric: false, cell: (r) => (r.status === 'ok' ? '' : `unsupported: ${r.reason}`) },
];

/** The tensor-parallel degree column, after `policy`: shown when some row runs on more than one device. */
export const TP_COLUMN: Column = { header: 'tp', numeric: true, cell: (r) => String(r.tp ?? 1) };

/** The prompt (KV cache length) column, after `policy`: shown when decode rows differ in it. */
export const PROMPT_COLUMN: Column = { header: 'prompt', numeric: true, cell: (r) => String(r.promptTokens) };

/** The decoder-layer weight type column, after `policy` (and `tp`): shown when some row's weights are not bf16. */
export const WEIGHTS_COLUMN: Column = { header: 'weights', numeric: false, cell: (r) => r.weights };

/**
 * The human columns for a set of rows: their phase's when they share one, decode's otherwise;
 * `tp` when any row is tensor-parallel, `weights` when any
 * row's are not bf16.
 */
export function columnsFor(rows: readonly CompareRow[]): readonly Column[] {
  const base =
    rows.length > 0 && rows.every((r) => r.phase === 'prefill')
      ? PREFILL_COLUMNS
      : rows.length > 0 && rows.every((r) => r.phase === 'mixed')
        ? MIXED_COLUMNS
        : HUMAN_COLUMNS;
  const extra = [...(rows.some((r) => (r.tp ?? 1) > 1) ? [TP_COLUMN] : []), ...(rows.some((r) => (r.weights ?? 'bf16') !== 'bf16') ? [WEIGHTS_COLUMN] : [])];
  if (extra.length === 0) return base;
  const i = base.findIndex((c) => c.header === 'policy') + 1;
  return [...base.slice(0, i), ...extra, ...base.slice(i)];
}

/** Every field of a row, raw, in the JSON contract's order (CSV). */
export const RAW_FIELDS: readonly (keyof CompareRow)[] = [
  'backend',
  'policy',
  'phase',
  'tp',
  'ep',
  'devices',
  'batch',
  'promptTokens',
  'decodeTokens',
  'chunkTokens',
  'weights',
  'status',
  'reason',
  'tpotMs',
  'stepMs',
  'ttftMs',
  'tokensPerSecond',
  'l2HitRate',
  'hbmReadBytes',
  'fabricReadBytes',
  'hbmWriteBytes',
  'tasksPerLayer',
  'layersExtrapolated',
  'fencesPerToken',
  'dispatchesPerToken',
  'launchesPerToken',
  'activeExperts',
  'experts',
  'perDeviceBytes',
];
