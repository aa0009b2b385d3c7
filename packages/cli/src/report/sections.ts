/**
 * Report sections a plugin contributes (`TOKENS.ReportSection`): one more chart of the
 * comparison, drawn by the plugin from the rows of the `fleet compare --json` contract and
 * rendered like Fleet's own (inline SVG, PNG, the Vega-Lite spec).
 */
import { inputError, TOKENS, type BackendRegistry, type ModelSpec } from '@fleet/core';
import type { TopLevelSpec } from 'vega-lite';
import type { CompareRow } from '../compare.js';
import { checkedContributions } from '../contributions.js';
import type { ChartSpec } from './charts.js';

const SECTION_SCHEMA = {
  type: 'object',
  required: ['id', 'title', 'caption'],
  properties: { id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' }, title: { type: 'string' }, caption: { type: 'string' } },
};

export interface ReportSection {
  /** Unique among the report's charts: lower case, digits and dashes. */
  id: string;
  title: string;
  /** How to read the chart (shown under its title). */
  caption: string;
  /** A Vega-Lite spec with its data inline, or null when the rows hold nothing to draw. */
  chart(rows: readonly CompareRow[], model: ModelSpec): TopLevelSpec | null;
}

/** The sections the loaded plugins contributed, their shape checked (a one-line error naming the plugin). */
export function contributedSections(registry: BackendRegistry): ReportSection[] {
  return checkedContributions<ReportSection>(registry, TOKENS.ReportSection, 'TOKENS.ReportSection', { schema: SECTION_SCHEMA, methods: ['chart'], key: 'id' });
}

/** The charts of the contributed sections for these rows (sections with nothing to draw left out). */
export function sectionCharts(sections: readonly ReportSection[], rows: readonly CompareRow[], model: ModelSpec, taken: ReadonlySet<string>): ChartSpec[] {
  const out: ChartSpec[] = [];
  for (const s of sections) {
    if (taken.has(s.id) || out.some((c) => c.id === s.id)) throw inputError(`report section '${s.id}': a chart with this id is already in the report`);
    const spec = s.chart(rows, model);
    if (spec) out.push({ id: s.id, title: s.title, caption: s.caption, spec });
  }
  return out;
}
