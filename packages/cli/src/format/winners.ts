import type { CompareRow } from '../compare.js';

/**
 * The answer a comparison is run for: which policy is fastest on each backend at each batch
 * (and prompt, TP degree, weight type), and by how much it beats the next one.
 */
export interface Winner {
  backend: string;
  phase: CompareRow['phase'];
  batch: number;
  promptTokens: number;
  tp: number;
  weights: string;
  /** What is compared: TPOT (decode), TTFT (prefill) or the step's time (mixed), ms; lower is better. */
  metric: string;
  policy: string;
  ms: number;
  /** The next fastest policy of the same configuration, when there is one. */
  runnerUp?: { policy: string; ms: number };
  /** How many policies ran (status ok) in this configuration. */
  ran: number;
}

/** The time a row is judged by, and its name; undefined for a row that did not run. */
export function timeOf(r: CompareRow): { metric: string; ms: number } | undefined {
  if (r.status !== 'ok') return undefined;
  const ms = r.phase === 'prefill' ? r.ttftMs : r.phase === 'mixed' ? r.stepMs : r.tpotMs;
  if (ms === undefined) return undefined;
  return { metric: r.phase === 'prefill' ? 'TTFT' : r.phase === 'mixed' ? 'step' : 'TPOT', ms };
}

/** The configuration a row belongs to, policy aside. */
function configKey(r: CompareRow): string {
  return [r.backend, r.phase, r.batch, r.promptTokens, r.chunkTokens ?? '', r.tp ?? 1, r.ep ?? 1, r.weights].join('\u0000');
}

/** The fastest policy per configuration, in the rows' order of first appearance; ties go to the first listed. */
export function winners(rows: readonly CompareRow[]): Winner[] {
  const groups = new Map<string, CompareRow[]>();
  for (const r of rows) {
    if (!timeOf(r)) continue;
    const k = configKey(r);
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return [...groups.values()].map((rs) => {
    const ranked = [...rs].sort((a, b) => timeOf(a)!.ms - timeOf(b)!.ms);
    const best = ranked[0]!;
    const second = ranked[1];
    return {
      backend: best.backend,
      phase: best.phase,
      batch: best.batch,
      promptTokens: best.promptTokens,
      tp: best.tp ?? 1,
      weights: best.weights,
      metric: timeOf(best)!.metric,
      policy: best.policy,
      ms: timeOf(best)!.ms,
      ...(second ? { runnerUp: { policy: second.policy, ms: timeOf(second)!.ms } } : {}),
      ran: rs.length,
    };
  });
}

/** What varies between configurations, so a line names only what tells them apart. */
function varying(ws: readonly Winner[]): { prompt: boolean; tp: boolean; weights: boolean } {
  const differ = (f: (w: Winner) => unknown) => new Set(ws.map(f)).size > 1;
  return { prompt: differ((w) => w.promptTokens), tp: differ((w) => w.tp), weights: differ((w) => w.weights) };
}

/** One winner's configuration as a reader names it: `mi350 batch 32`, plus prompt, tp or weights where they vary. */
export function configLabel(w: Winner, v = { prompt: false, tp: false, weights: false }, withBackend = true): string {
  return [
    withBackend ? w.backend : '',
    `batch ${w.batch}`,
    v.prompt ? `prompt ${w.promptTokens}` : '',
    v.tp || w.tp > 1 ? `tp ${w.tp}` : '',
    v.weights ? w.weights : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** A winner's margin in words: `1.23× faster than mirage (4.10 vs 5.04 ms)`, or that it ran alone. */
export function marginText(w: Winner): string {
  if (!w.runnerUp) return 'the only policy that ran';
  const ratio = w.runnerUp.ms / w.ms;
  const digits = w.ms < 10 ? 3 : 2;
  return `${ratio.toFixed(2)}× faster than ${w.runnerUp.policy} (${w.ms.toFixed(digits)} vs ${w.runnerUp.ms.toFixed(digits)} ms)`;
}

/**
 * The summary a comparison opens with: the fastest policy per backend and batch with its
 * margin, then the fastest backend and policy per batch when several backends ran.
 */
export function formatWinners(rows: readonly CompareRow[]): string {
  const ws = winners(rows);
  if (ws.length === 0) return 'No configuration ran (every row is unsupported; the notes say why).';
  const v = varying(ws);
  const metric = [...new Set(ws.map((w) => w.metric))].join('/');
  const labels = ws.map((w) => configLabel(w, v));
  const width = Math.max(...labels.map((l) => l.length));
  const lines = ws.map((w, i) => `  ${labels[i]!.padEnd(width)}  ${w.policy}: ${marginText(w)}`);
  const out = [`Fastest policy (lowest ${metric}) per backend and batch:`, ...lines];
  const backends = new Set(ws.map((w) => w.backend));
  if (backends.size > 1) {
    const overall = new Map<string, Winner>();
    for (const w of ws) {
      const k = [w.phase, w.batch, w.promptTokens, w.tp, w.weights].join('\u0000');
      const prev = overall.get(k);
      if (!prev || w.ms < prev.ms) overall.set(k, w);
    }
    out.push(`Fastest overall:`);
    for (const w of overall.values()) {
      const label = configLabel(w, v, false);
      out.push(`  ${label}: ${w.backend} ${w.policy} (${w.ms.toFixed(w.ms < 10 ? 3 : 2)} ms)`);
    }
  }
  return out.join('\n');
}
