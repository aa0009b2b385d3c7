import type { PolicyOverrides } from '@fleet/ops';
import { describeModel, type ModelSpec } from '@fleet/core';
import type { CompareRow } from '../compare.js';
import { formatCsv } from './csv.js';
import { formatMarkdown } from './markdown.js';
import { formatTable } from './table.js';
import { formatTilingBenefits, tilingBenefits } from './tiling.js';
import { formatWinners } from './winners.js';

export { HUMAN_COLUMNS, PREFILL_COLUMNS, MIXED_COLUMNS, RAW_FIELDS, columnsFor, type Column } from './columns.js';
export { formatTable } from './table.js';
export { formatCsv, csvField } from './csv.js';
export { formatMarkdown } from './markdown.js';
export { tilingBenefits, formatTilingBenefits, type TilingBenefit } from './tiling.js';
export { winners, formatWinners, timeOf, marginText, configLabel, type Winner } from './winners.js';

/** Output formats of `fleet compare` (and the files `fleet report` writes). */
export const COMPARE_FORMATS = ['table', 'json', 'csv', 'markdown'] as const;
export type CompareFormat = (typeof COMPARE_FORMATS)[number];

/** What was simulated rather than extrapolated, as `fleet compare --json` reports it. */
export interface CompareSampling {
  decodePositions: number;
  layersSimulated: number;
  layersTotal: number;
  note: string;
}

export interface CompareOutput {
  /** Schedule knobs the user overrode on every policy (absent: each policy's own). */
  overrides?: PolicyOverrides;
  model: ModelSpec;
  sampling: CompareSampling;
  rows: readonly CompareRow[];
}

/** The comparison in one format; `json` is the stable contract (`schemaVersion: 1`). */
export function formatCompare(format: CompareFormat, { model, sampling, rows, overrides }: CompareOutput): string {
  switch (format) {
    case 'json': {
      const tiling = tilingBenefits(rows);
      return `${JSON.stringify({ schemaVersion: 1, model: model.name, sampling, ...(overrides ? { overrides } : {}), results: rows, ...(tiling.length > 0 ? { tilingBenefit: tiling } : {}) }, null, 2)}\n`;
    }
    case 'csv':
      return formatCsv(model.name, rows);
    case 'markdown':
      return `${heading(model, rows)}\n\n${formatWinners(rows)}\n\n${formatMarkdown(rows)}\n\n${notes(sampling, rows)}\n`;
    case 'table':
      return `${heading(model, rows)}\n\n${formatWinners(rows)}\n\n${formatTable(rows)}\n\n${notes(sampling, rows)}\n${formatTilingBenefits(tilingBenefits(rows))}`;
  }
}

/** The model, and the decoder-layer weight types when they are not the model's own bf16. */
export function heading(model: ModelSpec, rows: readonly CompareRow[]): string {
  const types = [...new Set(rows.map((r) => r.weights ?? 'bf16'))];
  if (types.length === 0 || (types.length === 1 && types[0] === 'bf16')) return describeModel(model);
  return `${describeModel(model)}\ndecoder-layer linear weights: ${types.join(', ')} (embeddings, norms and the LM head stay ${model.dtype}; the weights column says which each row ran)`;
}

/** The sampling note, and what the byte columns count when rows are tensor-parallel. */
function notes(sampling: CompareSampling, rows: readonly CompareRow[]): string {
  const perDevice = rows.some((r) => (r.tp ?? 1) > 1) ? ' Bytes are per device (one tensor-parallel rank), not the sum over the tp devices.' : '';
  return `${sampling.note}.${perDevice}`;
}
