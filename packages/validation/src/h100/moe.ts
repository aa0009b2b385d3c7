/**
 * The MoE suite: a Qwen3-30B-A3B-shaped decode step on our H100 (measured/h100-moe-ours.json,
 * validation only) — TPOT in one CUDA graph at batch 1 … 128 and KV 1024, the CUTLASS
 * grouped-GEMM kernel behind `torch._grouped_mm`, the kernels per step, and the distinct
 * experts layer 0 reached. Predictions run kernel-per-op-graph with PyTorch's kernels (router
 * GEMM, top-k, argsort/scatter/scan bookkeeping, gather, grouped GEMMs, index_add) under
 * uniform routing: the benchmark's random router weights route close to uniformly.
 * Batch 1–16 at KV 4K–32K (measured/h100-moe-long-ours.json) are predictions too, as is the
 * same step measured on an H200 (`h200-moe`: ../h200/measured/h200-moe-ours.json at KV 1024,
 * h200-moe-long-ours.json at 4K–32K).
 */
import { buildDecodeGraph, loadModel, simulateGraph, type Backend, type ValidationRow } from '@fleet/core';
import { KERNEL_PER_OP_GRAPH, predictDecode } from '@fleet/ops';
import h200Kernels from '../h200/measured/h200-moe-kernels-ours.json' with { type: 'json' };
import kernels from './measured/h100-moe-kernels-ours.json' with { type: 'json' };
import h100Long from './measured/h100-moe-long-ours.json' with { type: 'json' };
import moe from './measured/h100-moe-ours.json' with { type: 'json' };
import h200Long from '../h200/measured/h200-moe-long-ours.json' with { type: 'json' };
import h200Moe from '../h200/measured/h200-moe-ours.json' with { type: 'json' };
import { GOAL_PCT, graphLaunchShareNs, row, type H100ValidationOptions, groupedRows } from './validation.js';

const SRC = 'ours: bench/h100/phases.py MoeModel on an H100 80GB HBM3 (packages/validation/src/h100/measured/h100-moe-ours.json)';
const SRC_LONG = 'ours: bench/h100/phases.py --moe-plan on an H100 80GB HBM3, 2026-11-27 (packages/validation/src/h100/measured/h100-moe-long-ours.json)';
const SRC_H200 = 'ours: bench/h100/phases.py on an H200, 2026-11-28 (packages/validation/src/h200/measured/h200-moe-ours.json)';
const SRC_H200_LONG = 'ours: bench/h100/phases.py --moe-plan on an H200, 2026-11-27 (packages/validation/src/h200/measured/h200-moe-long-ours.json)';

type TpotPoint = { batch: number; kvLen: number; tpotMs: number };

/**
 * Qwen3-30B-A3B decode TPOT rows (grouped-rows SDPA, as the benchmark calls it); `launches`,
 * if given, gets each batch's predicted kernels per step.
 */
function tpotRows(
  backend: Backend,
  points: readonly TpotPoint[],
  source: string,
  tick: (label: string) => void,
  launches?: Map<number, number>,
): ValidationRow[] {
  return points.map((m) => {
    tick(`qwen3-30b-a3b b${m.batch} kv${m.kvLen}`);
    const p = predictDecode(backend, model(), { policy: 'kernel-per-op-graph', batch: m.batch, prompt: m.kvLen - 1, decode: 1, positions: 1 }) as {
      tpotMs: number;
      launchesPerToken?: number;
    };
    launches?.set(m.batch, p.launchesPerToken ?? NaN);
    return row(`Qwen3-30B-A3B decode TPOT, one CUDA graph, batch ${m.batch}, KV ${m.kvLen}`, 'measurement', m.tpotMs, p.tpotMs, 'ms', GOAL_PCT, source);
  });
}

/** Long-context points (batch 1–16, KV 4K–32K): all of them, or batch 1 at 32K when quick. */
function longRows(data: typeof h100Long, quick: boolean) {
  return data.rows.filter((r) => !quick || (r.batch === 1 && r.kvLen === 32768));
}
const GROUPED = 'GemmUniversal';

function rows(quick: boolean, data: { rows: typeof moe.rows } = moe) {
  return data.rows.filter((r) => !quick || r.batch === 1 || r.batch === 64);
}

const SRC_KERNELS = 'ours: bench/device/sweep.py on an H100 80GB HBM3, 2026-11-25 (packages/validation/src/h100/measured/h100-moe-kernels-ours.json)';
const SRC_H200_KERNELS = 'ours: bench/device/sweep.py on an H200, 2026-11-27 (packages/validation/src/h200/measured/h200-moe-kernels-ours.json)';

function groupedPoints(quick: boolean, data: typeof kernels = kernels) {
  return data.grouped.filter((g) => (quick ? g.activeExperts === 8 && g.tokensPerExpert === 1 : [1, 4, 16, 64].includes(g.tokensPerExpert)));
}

/**
 * One `torch._grouped_mm` call (its pointer-setup kernel and the CUTLASS kernel, graph gaps
 * included) for `active` of the model's experts, spread over its list, with `rows` rows each, µs,
 * as bench/device/sweep.py's moe section times it: per call of a graph of four (four layers'
 * weights), a fourth of the graph's launch with each.
 */
export function groupedCallUs(backend: Backend, op: 'gate_up' | 'down', active: number, rows: number): number {
  const g = buildDecodeGraph(model(), { batch: 64, contextLen: 1023 });
  const base = g.ops.find((o) => o.layer === 0 && o.kind === 'grouped-linear' && (op === 'gate_up' ? o.gatedActivation : !o.gatedActivation));
  if (base?.kind !== 'grouped-linear') throw new Error(`no ${op} grouped GEMM in ${model().name}`);
  const groups = Array.from({ length: active }, (_, i) => ({ group: Math.round((i * (base.numGroups - 1)) / Math.max(1, active - 1)), rows }));
  const tg = KERNEL_PER_OP_GRAPH.compile({ ...g, ops: [{ ...base, groups }] }, backend, KERNEL_PER_OP_GRAPH.schedule, {
    layers: [0],
    library: backend.kernelLibrary,
    kernels: backend.tuning.kernels,
  });
  return (simulateGraph(backend, tg, { launchMode: 'graph' }).timeNs + graphLaunchShareNs(backend, 4)) / 1000;
}

/**
 * One MoE routing call as bench/device/sweep.py's moe section times it (one graph of one call):
 * layer 0's router GEMV, top-k, dispatch and combine kernels without the experts' GEMMs, their
 * graph gaps and the graph's launch, µs.
 */
export function routingCallUs(backend: Backend, batch: number): number {
  const g = buildDecodeGraph(model(), { batch, contextLen: 1023 });
  const ops = g.ops.filter((o) => o.layer === 0 && (o.id === 'L0.router' || o.kind === 'moe-topk' || o.kind === 'moe-dispatch' || o.kind === 'moe-combine'));
  const tg = KERNEL_PER_OP_GRAPH.compile({ ...g, ops }, backend, KERNEL_PER_OP_GRAPH.schedule, {
    layers: [0],
    library: backend.kernelLibrary,
    kernels: backend.tuning.kernels,
  });
  return (simulateGraph(backend, tg, { launchMode: 'graph' }).timeNs + graphLaunchShareNs(backend, 1)) / 1000;
}

function routingPoints(quick: boolean) {
  return kernels.routing.filter((r) => !quick || r.batch === 1);
}

function profiles(quick: boolean) {
  return moe.profiles.filter((p) => !quick || p.batch === 1);
}

/** Points the suite runs (progress bars). */
export function moeValidationPoints(quick = false): number {
  return rows(quick).length + longRows(h100Long, quick).length + 2 * profiles(quick).length + groupedPoints(quick).length + routingPoints(quick).length;
}

/** Points of the H200's MoE suite. */
export function h200MoeValidationPoints(quick = false): number {
  return rows(quick, h200Moe).length + groupedPoints(quick, h200Kernels).length + longRows(h200Long, quick).length;
}

/** The model the benchmark builds: the Qwen3-30B-A3B preset (its config matches the benchmark's). */
function model() {
  return loadModel(moe.config.name);
}

/** Mean time of layer 0's two grouped-GEMM kernels (gate+up, down) on their own, µs (kernel + graph gap). */
export function groupedGemmUs(backend: Backend, batch: number): number {
  const def = KERNEL_PER_OP_GRAPH;
  const g = buildDecodeGraph(model(), { batch, contextLen: moe.rows[0]!.kvLen - 1 });
  const grouped = g.ops.filter((o) => o.layer === 0 && o.kind === 'grouped-linear');
  const tg = def.compile({ ...g, ops: grouped }, backend, def.schedule, { layers: [0], library: backend.kernelLibrary });
  return simulateGraph(backend, tg, { launchMode: 'graph' }).timeNs / 1000 / grouped.length;
}

export function h100MoeValidation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = groupedRows(device);
  const tick = opts.tick ?? (() => {});
  const quick = opts.quick ?? false;
  const out: ValidationRow[] = [];
  const spec = model();
  const launches = new Map<number, number>();
  out.push(...tpotRows(backend, rows(quick), SRC, tick, launches));
  for (const pr of profiles(quick)) {
    tick(`grouped gemm b${pr.batch}`);
    const k = pr.kernels.find((x) => x.name.includes(GROUPED))!;
    out.push(
      row(
        `torch._grouped_mm (CUTLASS 64×128×128, 132 CTAs) mean of gate+up and down, batch ${pr.batch}`,
        'measurement',
        k.us,
        groupedGemmUs(backend, pr.batch),
        'µs',
        GOAL_PCT,
        SRC,
      ),
    );
    if (launches.has(pr.batch)) {
      out.push(
        row(
          `kernels per decode step, batch ${pr.batch} (profile: every kernel of one replay)`,
          'measurement',
          pr.kernelsPerStep,
          launches.get(pr.batch)!,
          'kernels',
          5,
          SRC,
        ),
      );
    }
    tick(`active experts b${pr.batch}`);
    const g = buildDecodeGraph(spec, { batch: pr.batch, contextLen: 0 });
    const op = g.ops.find((o) => o.id === 'L0.experts_gate_up');
    const measured = moe.rows.find((r) => r.batch === pr.batch)!.activeExpertsLayer0;
    // The expectation E·(1 − (1 − k/E)^batch) against one draw of the random router.
    out.push(
      row(
        `distinct experts reached in layer 0, batch ${pr.batch} (expected under uniform routing vs one measured step)`,
        'measurement',
        measured,
        op && op.kind === 'grouped-linear' ? op.groups.length : 0,
        'experts',
        10,
        SRC,
      ),
    );
  }
  out.push(...tpotRows(backend, longRows(h100Long, quick), SRC_LONG, tick));
  out.push(...groupedKernelRows(backend, groupedPoints(quick), SRC_KERNELS, tick, true));
  // The routing call: batch 1 sets the routing kernels' fixed time (family-hopper), the rest predict.
  for (const r of routingPoints(quick)) {
    tick(`routing b${r.batch}`);
    out.push(
      row(
        `MoE routing call (router GEMV, top-8, argsort, histogram, scan, gather, scatter-add; ${r.kernels} kernels), batch ${r.batch}, one CUDA graph`,
        r.batch === 1 ? 'calibration' : 'measurement',
        r.usPerCall,
        routingCallUs(backend, r.batch),
        'µs',
        GOAL_PCT,
        SRC_KERNELS,
      ),
    );
  }
  return out.map((r) => ({ ...r, suite: 'h100-moe' }));
}

/**
 * On an H200: the Qwen3-30B-A3B step and our sweep's grouped-GEMM calls (its moe section),
 * priced with the H100's CUTLASS calibration, every row a prediction.
 */
export function h200MoeValidation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = groupedRows(device);
  const quick = opts.quick ?? false;
  const tick = opts.tick ?? (() => {});
  const out = [
    ...tpotRows(backend, rows(quick, h200Moe), SRC_H200, tick),
    ...tpotRows(backend, longRows(h200Long, quick), SRC_H200_LONG, tick),
    ...groupedKernelRows(backend, groupedPoints(quick, h200Kernels), SRC_H200_KERNELS, tick, false),
  ];
  return out.map((r) => ({ ...r, suite: 'h200-moe' }));
}

/** One row per `torch._grouped_mm` call; on the H100 the gate+up call at 8 experts × 1 row is the calibration point. */
function groupedKernelRows(
  backend: Backend,
  points: typeof kernels.grouped,
  source: string,
  tick: (label: string) => void,
  calibrated: boolean,
): ValidationRow[] {
  return points.map((gp) => {
    tick(`grouped ${gp.op} ${gp.activeExperts}x${gp.tokensPerExpert}`);
    const cal = calibrated && gp.op === 'gate_up' && gp.activeExperts === 8 && gp.tokensPerExpert === 1;
    return row(
      `torch._grouped_mm ${gp.op} N=${gp.n} K=${gp.k}, ${gp.activeExperts} of 128 experts × ${gp.tokensPerExpert} rows (setup + CUTLASS kernels, graph gaps)`,
      cal ? 'calibration' : 'measurement',
      gp.usPerCall,
      groupedCallUs(backend, gp.op as 'gate_up' | 'down', gp.activeExperts, gp.tokensPerExpert),
      'µs',
      GOAL_PCT,
      source,
    );
  });
}
