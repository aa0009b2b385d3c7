import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatCompare, type CompareSampling } from '../format/index.js';
import { reportCharts } from './charts.js';
import type { ReportData } from './data.js';
import { reportHtml, type RenderedChart } from './html.js';
import { renderPng, renderSvg } from './render.js';
import { sectionCharts, type ReportSection } from './sections.js';
import { writable } from '../sweep/output.js';

/**
 * Write the report into `dir`: `index.html` (self-contained), the comparison as
 * `compare.json|csv|md`, and per chart `charts/<id>.svg`, `.png` and `.vl.json`.
 * Plugins' `sections` add their charts after Fleet's. Returns the files written, relative to
 * `dir`, in writing order.
 */
export async function writeReport(dir: string, data: ReportData, sampling: CompareSampling, sections: readonly ReportSection[] = []): Promise<string[]> {
  writable(dir, () => mkdirSync(join(dir, 'charts'), { recursive: true }));
  const files: string[] = [];
  const write = (rel: string, content: string | Buffer) => {
    writable(join(dir, rel), () => writeFileSync(join(dir, rel), content));
    files.push(rel);
  };
  const rows = data.rows.map((r) => r.row);
  write('compare.json', formatCompare('json', { model: data.model, sampling, rows }));
  write('compare.csv', formatCompare('csv', { model: data.model, sampling, rows }));
  write('compare.md', formatCompare('markdown', { model: data.model, sampling, rows }));
  const rendered: RenderedChart[] = [];
  const own = reportCharts(data);
  for (const chart of [...own, ...sectionCharts(sections, rows, data.model, new Set(own.map((c) => c.id)))]) {
    const svg = await renderSvg(chart.spec, chart.id);
    write(`charts/${chart.id}.vl.json`, `${JSON.stringify(chart.spec, null, 2)}\n`);
    write(`charts/${chart.id}.svg`, svg);
    write(`charts/${chart.id}.png`, renderPng(svg));
    rendered.push({ chart, svg });
  }
  write('index.html', reportHtml(data, sampling, rendered));
  return files;
}
