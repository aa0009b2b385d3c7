import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { inputError, listPresets, loadModel, type ModelSpec } from '@fleet/core';
import { loadBackends } from '../backends.js';
import type { CompareRow } from '../compare.js';
import type { CompareSampling } from '../format/index.js';
import { SWEEP_AXES } from '../sweep/axes.js';
import { readResults } from '../sweep/output.js';
import type { ReportData, ReportRow } from './data.js';
import { decodeStepFlops, effectiveIntensity, roofOf } from './roofline.js';

type Line = CompareRow & Record<string, unknown> & { model: string };

/** Parameters that tell series apart when they vary (batch is the charts' x axis). */
const SERIES_KEYS = SWEEP_AXES.map((a) => a.rowField ?? a.param).filter((k) => !['model', 'backend', 'policy', 'batch'].includes(k));

/**
 * Report data from a `fleet sweep` JSON Lines file, for one model: each row is a result line
 * as the sweep wrote it. Series are `backend · policy`, plus any parameter that varies across
 * the file (e.g. `weights u4g128`), so each series is one line over batch sizes. No per-op
 * time breakdown: that needs the simulation itself, which a results file does not hold.
 */
export async function sweepReportData(path: string, cwd: string, model?: string): Promise<{ data: ReportData; sampling: CompareSampling }> {
  if (!existsSync(path)) throw inputError(`--from: no such file: ${path}`);
  let lines = readResults(path, 'jsonl').map((k) => JSON.parse(k.text) as Line);
  if (lines.length === 0) throw inputError(`--from: ${path} holds no sweep results`);
  const models = [...new Set(lines.map((l) => l.model))];
  if (model !== undefined) {
    lines = lines.filter((l) => l.model === model);
    if (lines.length === 0) throw inputError(`--model: '${model}' has no results in ${path} (it has: ${models.join(', ')})`);
  } else if (models.length > 1) throw inputError(`--from: ${path} holds results for ${models.length} models (${models.join(', ')}); choose one with --model`);
  const spec = loadSweepModel(lines[0]!.model, path, cwd);
  const registry = await loadBackends(cwd);
  const backends = [...new Set(lines.map((l) => l.backend))].map((b) => registry.get(b));

  const varying = SERIES_KEYS.filter((k) => new Set(lines.map((l) => JSON.stringify(l[k] ?? null))).size > 1);
  const rows: ReportRow[] = lines.map((l) => {
    const series = [l.backend, l.policy, ...varying.map((k) => `${k} ${String(l[k] ?? '-')}`)].join(' · ');
    if (l.status !== 'ok' || l.phase === 'prefill' || l.decodeTokens === undefined)
      return { row: l, series, breakdownMs: null, intensity: null, achievedTflops: null };
    const flops = decodeStepFlops(spec, l.batch, l.promptTokens + l.decodeTokens / 2);
    return { row: l, series, breakdownMs: null, intensity: effectiveIntensity(spec, l.batch, l.l2HitRate!), achievedTflops: flops / (l.tpotMs! * 1e-3) / 1e12 };
  });

  const positions = [...new Set(lines.map((l) => Number(l.positions)))];
  const layers = [...new Set(lines.map((l) => Math.min(Number(l.sampleLayers), spec.numLayers)))];
  const uniform = positions.length === 1 && layers.length === 1;
  const sampling: CompareSampling = {
    decodePositions: positions[0]!,
    layersSimulated: layers[0]!,
    layersTotal: spec.numLayers,
    note: uniform
      ? `From ${lines.length} sweep results; each TPOT estimated from ${positions[0]} simulated decode position(s) and ${layers[0]} of ${spec.numLayers} layers, the rest repeat the steady-state layer`
      : `From ${lines.length} sweep results; simulated positions and layers differ between results (see their positions and sampleLayers fields)`,
  };
  return { data: { model: spec, rows, roofs: backends.map((b) => roofOf(b, spec)), backends }, sampling };
}

/** The model a sweep ran: a preset, or a path tried against the results' folder, then `cwd`. */
function loadSweepModel(ref: string, resultsPath: string, cwd: string): ModelSpec {
  if (listPresets().includes(ref.trim().toLowerCase()) || isAbsolute(ref)) return loadModel(ref);
  const beside = resolve(dirname(resultsPath), ref);
  return loadModel(existsSync(beside) ? beside : resolve(cwd, ref));
}
