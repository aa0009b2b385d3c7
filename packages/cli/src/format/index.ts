import type { PolicyOverrides } from '@fleet/ops';
import { describeModel, type ModelSpec } from '@fleet/core';
import type { CompareRow } from '../compare.js';
import { formatCsv } from './csv.js';
import { formatMarkdown } from './markdown.js';
import { formatTable } from './table.js';
import { formatTilingBenefits, tilingBenefits } from './tiling.js';

export { HUMAN_COLUMNS, PREFILL_COLUMNS, MIXED_COLUMNS, RAW_FIELDS, columnsFor, type Column } from './columns.js';
export { formatTable } from './table.js';
export { formatCsv, csvField } from './csv.js';
export { formatMarkdown } from './markdown.js';
export { tilingBenefits, formatTilingBenefits, type TilingBenefit } from './tiling.js';

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
      return `${describeModel(model)}\n\n${formatMarkdown(rows)}\n\n${sampling.note}.\n`;
    case 'table':
      return `${describeModel(model)}\n\n${formatTable(rows)}\n\n${sampling.note}.\n${formatTilingBenefits(tilingBenefits(rows))}`;
  }
}
