import { describeModel } from '@fleet/core';
import { topologySummary } from '../backends.js';
import { columnsFor, configLabel, marginText, winners, type CompareSampling, type Winner } from '../format/index.js';
import type { ChartSpec } from './charts.js';
import type { ReportData } from './data.js';

/** Text for HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export interface RenderedChart {
  chart: ChartSpec;
  svg: string;
}

const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 "DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif; color: #1d1d1f; margin: 0 auto; padding: 24px; max-width: 1180px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 0; }
p.model, p.note { margin: 2px 0; color: #444; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: left; white-space: nowrap; }
th { border-bottom: 2px solid #ccc; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.unsupported td { color: #888; }
td.note { white-space: normal; max-width: 420px; }
p.overall { font-size: 15px; margin: 4px 0 10px; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
figure.chart { margin: 0; padding: 12px; border: 1px solid #e3e3e3; border-radius: 6px; }
figure.chart figcaption p { margin: 2px 0 8px; color: #555; max-width: 560px; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
p.files { font-size: 12px; margin: 6px 0 0; }
footer { margin-top: 32px; color: #777; font-size: 12px; }
`;

/**
 * The answer first: per backend and batch (and prompt, TP degree, weights where they vary),
 * the fastest policy, its time and its margin over the next; then the fastest backend per batch.
 */
export function winnersHtml(rows: Parameters<typeof winners>[0]): string {
  const ws = winners(rows);
  if (ws.length === 0) return '<p>No configuration ran: every row is unsupported (the comparison below says why).</p>';
  const differ = (f: (w: Winner) => unknown) => new Set(ws.map(f)).size > 1;
  const v = { prompt: differ((w) => w.promptTokens), tp: differ((w) => w.tp), weights: differ((w) => w.weights) };
  const metric = [...new Set(ws.map((w) => w.metric))].join('/');
  const body = ws
    .map(
      (w) =>
        `<tr><td>${escapeHtml(configLabel(w, v))}</td><td><b>${escapeHtml(w.policy)}</b></td><td class="num">${w.ms.toFixed(3)}</td><td>${escapeHtml(marginText(w))}</td></tr>`,
    )
    .join('\n');
  const best = new Map<string, Winner>();
  for (const w of ws) {
    const k = [w.phase, w.batch, w.promptTokens, w.tp, w.weights].join('\u0000');
    const prev = best.get(k);
    if (!prev || w.ms < prev.ms) best.set(k, w);
  }
  const overall =
    new Set(ws.map((w) => w.backend)).size > 1
      ? `<p class="overall">Fastest overall: ${[...best.values()]
          .map((w) => `${escapeHtml(configLabel(w, v, false))}: <b>${escapeHtml(`${w.backend} ${w.policy}`)}</b> (${w.ms.toFixed(3)} ms)`)
          .join('; ')}.</p>`
      : '';
  return `${overall}
<table>
<thead><tr><th>configuration</th><th>fastest policy</th><th class="num">${escapeHtml(metric)} ms</th><th>margin over the next policy</th></tr></thead>
<tbody>
${body}
</tbody>
</table>`;
}

/** The report page: self-contained (inline CSS and SVG, no scripts, nothing fetched). */
export function reportHtml(data: ReportData, sampling: CompareSampling, charts: readonly RenderedChart[]): string {
  const title = `Fleet report: ${data.model.name}`;
  const columns = columnsFor(data.rows.map((r) => r.row));
  const head = columns.map((c) => `<th${c.numeric ? ' class="num"' : ''}>${escapeHtml(c.header)}</th>`).join('');
  const body = data.rows
    .map(({ row }) => {
      const cells = columns
        .map((c, i) => {
          const cls = c.numeric ? ' class="num"' : i === columns.length - 1 ? ' class="note"' : '';
          return `<td${cls}>${escapeHtml(c.cell(row))}</td>`;
        })
        .join('');
      return `<tr${row.status === 'ok' ? '' : ' class="unsupported"'}>${cells}</tr>`;
    })
    .join('\n');
  const backends = data.backends.map((b) => `<li><b>${escapeHtml(b.name)}</b>: ${escapeHtml(topologySummary(b))}</li>`).join('\n');
  const figures = charts
    .map(
      ({ chart, svg }) => `<figure class="chart" id="chart-${chart.id}">
<figcaption><h3>${escapeHtml(chart.title)}</h3><p>${escapeHtml(chart.caption)}</p></figcaption>
${svg}
<p class="files"><a href="charts/${chart.id}.png">PNG</a> · <a href="charts/${chart.id}.svg">SVG</a> · <a href="charts/${chart.id}.vl.json">Vega-Lite spec</a></p>
</figure>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p class="model">${escapeHtml(describeModel(data.model))}</p>
<p class="note">${escapeHtml(sampling.note)}.</p>
</header>
<section id="winners">
<h2>Which configuration wins</h2>
${winnersHtml(data.rows.map((r) => r.row))}
</section>
<section id="backends">
<h2>Backends</h2>
<ul>
${backends}
</ul>
</section>
<section id="comparison">
<h2>Comparison</h2>
<table>
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table>
<p class="files">Also as <a href="compare.json">JSON</a> (the <code>fleet compare --json</code> contract), <a href="compare.csv">CSV</a> and <a href="compare.md">Markdown</a>.</p>
</section>
<section id="charts">
<h2>Charts</h2>
<div class="charts">
${figures}
</div>
</section>
<footer>Made by <code>fleet report</code>. Times are simulated predictions, not measurements; the same inputs give the same report, byte for byte.</footer>
</body>
</html>
`;
}
