import type { TopLevelSpec } from 'vega-lite';
import type { ReportData } from './data.js';
import { OP_CLASSES } from './op-class.js';

/** One chart of the report: a Vega-Lite spec with its data inline, and how to read it. */
export interface ChartSpec {
  id: string;
  title: string;
  caption: string;
  spec: TopLevelSpec;
}

/** Fonts present on Debian (DejaVu) first, so SVG in the browser and PNG via resvg agree. */
const FONT = 'DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif';
const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

const config = {
  font: FONT,
  background: 'white',
  padding: 8,
  view: { stroke: '#d0d0d0' },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#ececec', titleFontWeight: 'normal' as const },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 320, titleLimit: 320, titleFontWeight: 'normal' as const },
  title: { fontSize: 14, subtitleFontSize: 11, anchor: 'start' as const, subtitleColor: '#555' },
};

/** A line per series over `x`: the shape of every sweep-style chart of the report. */
function lineChart(id: string, title: string, caption: string, values: readonly object[], x: object, y: object, color: object): ChartSpec {
  return {
    id,
    title,
    caption,
    spec: {
      $schema: SCHEMA,
      config,
      width: 520,
      height: 300,
      data: { values: [...values] },
      mark: { type: 'line', point: { filled: true, size: 50 }, strokeWidth: 2 },
      encoding: { x, y, color },
    } as TopLevelSpec,
  };
}

/**
 * Small multiples: one panel per backend, a line per policy in each, so no panel repeats a
 * colour (tableau10 up to 10 policies, tableau20 beyond) and a reader compares policies
 * where they compete — on the same backend.
 */
function facetChart(
  id: string,
  title: string,
  caption: string,
  values: readonly object[],
  x: object,
  y: object,
  colorField: string,
  mark: object,
  extra: Record<string, object> = {},
): ChartSpec {
  const domain = [...new Set(values.map((v) => (v as Record<string, string>)[colorField]))];
  return {
    id,
    title,
    caption,
    spec: {
      $schema: SCHEMA,
      config,
      data: { values: [...values] },
      facet: { column: { field: 'backend', type: 'nominal', title: null, sort: null, header: { labelFontSize: 13 } } },
      spec: {
        width: 240,
        height: 240,
        mark,
        encoding: {
          x,
          y,
          ...extra,
          color: { field: colorField, type: 'nominal', title: 'policy', scale: { domain, scheme: domain.length > 10 ? 'tableau20' : 'tableau10' } },
        },
      },
      resolve: { scale: { y: 'independent' } },
    } as TopLevelSpec,
  };
}

const LINE = { type: 'line', point: { filled: true, size: 50 }, strokeWidth: 2 };

/** Prefill reports: TTFT and prompt throughput against the prompt length. */
function prefillCharts(ok: ReportData['rows']): ChartSpec[] {
  const prompts = [...new Set(ok.map((r) => r.row.promptTokens))].sort((a, b) => a - b);
  const points = ok.map((r) => ({
    series: `${r.series} · b${r.row.batch}`,
    prompt: r.row.promptTokens,
    ttftMs: r.row.ttftMs!,
    tokensPerSecond: r.row.tokensPerSecond!,
  }));
  const color = {
    field: 'series',
    type: 'nominal' as const,
    title: 'backend · policy · batch',
    scale: { domain: [...new Set(points.map((p) => p.series))], scheme: 'tableau20' },
  };
  const promptAxis = log2Axis('prompt', 'prompt tokens', prompts);
  const chart = (id: string, title: string, caption: string, field: string, axisTitle: string): ChartSpec =>
    lineChart(id, title, caption, points, promptAxis, { field, type: 'quantitative', title: axisTitle, scale: { zero: true } }, color);
  return [
    chart(
      'ttft-vs-prompt',
      'TTFT vs prompt',
      'Time to first token: the whole prompt through the model, the LM head on its last token; lower is better.',
      'ttftMs',
      'TTFT (ms)',
    ),
    chart('prefill-throughput', 'Prefill throughput vs prompt', 'Prompt tokens processed per second; higher is better.', 'tokensPerSecond', 'tokens / s'),
  ];
}

/** A quantitative axis on a base-2 log scale, ticked at exactly `values`. */
function log2Axis(field: string, title: string, values: number[]) {
  return {
    field,
    type: 'quantitative' as const,
    title,
    scale: { type: 'log' as const, base: 2 },
    axis: { values, format: 'd' },
  };
}

/** The report's charts, built from the comparison (only rows that ran). */
export function reportCharts(data: ReportData): ChartSpec[] {
  const ok = data.rows.filter((r) => r.row.status === 'ok');
  if (ok.length > 0 && ok.every((r) => r.row.phase === 'prefill')) return prefillCharts(ok);
  // Mixed steps: the step time stands in for TPOT (what each decode request waits).
  if (ok.length > 0 && ok.every((r) => r.row.phase === 'mixed'))
    return decodeCharts(
      data,
      ok.map((r) => ({ ...r, row: { ...r.row, tpotMs: r.row.stepMs } })),
      'step',
    ).slice(0, 3);
  return decodeCharts(data, ok, 'decode');
}

function decodeCharts(data: ReportData, ok: ReportData['rows'], kind: 'decode' | 'step'): ChartSpec[] {
  const series = [...new Set(ok.map((r) => r.series))];
  const batches = [...new Set(ok.map((r) => r.row.batch))].sort((a, b) => a - b);
  const color = { field: 'series', type: 'nominal' as const, title: 'backend · policy', scale: { domain: series, scheme: 'tableau20' } };
  const batchAxis = log2Axis('batch', 'batch size', batches);
  // Within a backend's panel a line is a policy (and its TP degree or sweep parameters, when they vary).
  const points = ok.map((r) => ({
    series: r.series,
    line: r.series.startsWith(`${r.row.backend} · `) ? r.series.slice(r.row.backend.length + 3) : r.series,
    backend: r.row.backend,
    policy: r.row.policy,
    batch: r.row.batch,
    tp: r.row.tp ?? 1,
    tpotMs: r.row.tpotMs!,
    l2HitRate: r.row.l2HitRate!,
    hbmGB: (r.row.hbmReadBytes! + r.row.hbmWriteBytes!) / 1e9,
  }));

  const tpot =
    kind === 'step'
      ? facetChart(
          'step-vs-batch',
          'Step time vs decode batch',
          'Time of one serving step (the decode batch with a prefill chunk riding along), one panel per backend, a line per policy; lower is better.',
          points,
          batchAxis,
          { field: 'tpotMs', type: 'quantitative', title: 'step (ms)', scale: { zero: true } },
          'line',
          LINE,
        )
      : facetChart(
          'tpot-vs-batch',
          'TPOT vs batch',
          'Mean decode time per output token, one panel per backend (its own scale), a line per policy; lower is better.',
          points,
          batchAxis,
          { field: 'tpotMs', type: 'quantitative', title: 'TPOT (ms)', scale: { zero: true } },
          'line',
          LINE,
        );
  const l2 = facetChart(
    'l2-hit-vs-batch',
    'L2 hit rate vs batch',
    'Share of all L2 accesses (reads and writes) that hit, per decode token; one panel per backend, a line per policy.',
    points,
    batchAxis,
    { field: 'l2HitRate', type: 'quantitative', title: 'L2 hit rate', axis: { format: '.0%' }, scale: { zero: true, domain: [0, 1] } },
    'line',
    LINE,
  );

  // Grouped bars in each backend's panel: a bar per policy at each batch.
  const hbm = facetChart(
    'hbm-bytes-per-token',
    'HBM bytes per token',
    'HBM traffic (reads + write-backs) per decoded token, one panel per backend, a bar per policy: a batch shares one pass over the weights.',
    points,
    { field: 'batch', type: 'ordinal', title: 'batch size', axis: { labelAngle: 0 } },
    { field: 'hbmGB', type: 'quantitative', title: 'HBM GB per token' },
    'line',
    { type: 'bar' },
    { xOffset: { field: 'line', type: 'nominal' } },
  );

  const maxAi = Math.max(1, ...ok.map((r) => r.intensity ?? 1));
  const minAi = Math.min(1, ...ok.map((r) => r.intensity ?? 1));
  const xLo = 2 ** Math.floor(Math.log2(minAi / 2));
  const xHi = 2 ** Math.ceil(Math.log2(Math.max(maxAi * 2, ...data.roofs.map((r) => r.ridge * 2))));
  const roofLines = data.roofs.flatMap((r) => [xLo, r.ridge, xHi].map((ai) => ({ backend: r.backend, ai, tflops: Math.min(r.peakTflops, ai * r.hbmTBps) })));
  const backends = data.roofs.map((r) => r.backend);
  const rooflinePoints = ok
    .filter((r) => r.intensity !== null)
    .map((r) => ({ backend: r.row.backend, policy: r.row.policy, batch: r.row.batch, ai: r.intensity!, tflops: r.achievedTflops! }));
  const roofline: ChartSpec = {
    id: 'roofline',
    title: 'Roofline',
    caption:
      'Each run at its effective arithmetic intensity B / (1 − L2 hit rate) FLOP per HBM byte (B = batch, bf16 weights; runs of one batch size cluster near x = B) and the TFLOP/s it achieves; ' +
      'dashed lines are each backend’s roofs (achievable HBM bandwidth, peak matrix throughput).',
    spec: {
      $schema: SCHEMA,
      config,
      width: 520,
      height: 340,
      encoding: {
        x: { field: 'ai', type: 'quantitative', title: 'effective arithmetic intensity (FLOP/byte)', scale: { type: 'log', domain: [xLo, xHi] } },
        y: { field: 'tflops', type: 'quantitative', title: 'TFLOP/s', scale: { type: 'log' } },
        color: { field: 'backend', type: 'nominal', title: 'backend', scale: { domain: backends, scheme: 'tableau10' } },
      },
      layer: [
        { data: { values: roofLines }, mark: { type: 'line', strokeDash: [5, 3], strokeWidth: 1.5 } },
        {
          data: { values: rooflinePoints },
          mark: { type: 'point', filled: true, size: 70, opacity: 0.9 },
          encoding: { shape: { field: 'policy', type: 'nominal', title: 'policy' } },
        },
      ],
    },
  };

  const labels = ok.filter((r) => r.breakdownMs).map((r) => `${r.series} · b${r.row.batch}`);
  const bars = ok
    .filter((r) => r.breakdownMs)
    .flatMap((r) => OP_CLASSES.map((c, i) => ({ label: `${r.series} · b${r.row.batch}`, opClass: c, order: i, ms: r.breakdownMs![c] })));
  const missing = ok.filter((r) => !r.breakdownMs && r.row.phase === 'decode').map((r) => `${r.series} · b${r.row.batch}`);
  const breakdown: ChartSpec = {
    id: 'time-breakdown',
    title: 'Time per op class',
    caption:
      'Each op class’s share of worker-busy time, scaled to TPOT (ms per token). Tasks of different classes overlap, so shares, not sums.' +
      (missing.length > 0
        ? ` Not shown (${missing.length}): ${missing.join(', ')} — tensor-parallel runs, or runs whose simulated tasks could not be matched to their ops.`
        : ''),
    spec: {
      $schema: SCHEMA,
      config,
      width: 460,
      height: { step: 18 },
      data: { values: bars },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'label', type: 'nominal', title: null, sort: labels, axis: { labelLimit: 360 } },
        x: { field: 'ms', type: 'quantitative', title: 'ms per token', stack: 'zero' },
        color: { field: 'opClass', type: 'nominal', title: 'op class', scale: { domain: [...OP_CLASSES], scheme: 'set2' } },
        order: { field: 'order', type: 'quantitative' },
      },
    },
  };
  // Results read back from a sweep file carry no breakdown: leave the chart out rather than draw it empty.
  // Tensor parallelism: one TPOT chart per degree, the backends and policies side by side at each.
  const tps = [...new Set(points.map((p) => p.tp))].sort((a, b) => a - b);
  const perTp: ChartSpec[] =
    tps.length > 1 || (tps[0] ?? 1) > 1
      ? tps.map((tp) => {
          const at = points.filter((p) => p.tp === tp);
          return {
            id: `tpot-vs-batch-tp${tp}`,
            title: `TPOT vs batch, tensor parallelism ${tp}`,
            caption: `Decode time per output token on ${tp} device${tp > 1 ? 's' : ''} of each backend's node (weights and KV cache split ${tp} ways, all-reduces over its interconnect); lower is better.`,
            spec: {
              $schema: SCHEMA,
              config,
              width: 520,
              height: 300,
              data: { values: at },
              mark: { type: 'line' as const, point: { filled: true, size: 50 }, strokeWidth: 2 },
              encoding: {
                x: batchAxis,
                y: { field: 'tpotMs', type: 'quantitative' as const, title: 'TPOT (ms)', scale: { zero: true } },
                color: { ...color, scale: { domain: [...new Set(at.map((p) => p.series))], scheme: 'tableau20' } },
              },
            },
          };
        })
      : [];
  return [...(bars.length > 0 ? [tpot, l2, hbm, roofline, breakdown] : [tpot, l2, hbm, roofline]), ...perTp];
}
