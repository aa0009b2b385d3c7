import { loadModel, pointError, relativeError, type Backend, type ValidationRow } from '@fleet/core';
import { predictDecode, type DecodePrediction } from '@fleet/ops';
import { fleetPaper, type FleetPolicy } from './fleet-paper.js';

const POLICIES: FleetPolicy[] = ['kernel-per-op', 'mirage', 'fleet-mtile', 'fleet-msplit'];
const BATCHES = [1, 2, 4, 8, 16, 32, 64];
/** Targets: TPOT within 10%, ratios within 10%, hit rates and reductions within 5 points. */
const TOL_PCT = 10;
const TOL_PT = 5;

/** The predictions the FLEET experiments need: 4 policies × 7 batch sizes on MI350X. */
export function fleetMi350Jobs(): { policy: FleetPolicy; batch: number }[] {
  return POLICIES.flatMap((policy) => BATCHES.map((batch) => ({ policy, batch })));
}

/**
 * Reproduce the FLEET paper's experiments on the `mi350` backend and compare: `tick` is
 * called once per simulated point (progress).
 */
export function fleetMi350Validation(backend: Backend, tick: (label: string) => void = () => {}): ValidationRow[] {
  const d = fleetPaper;
  const model = loadModel(d.model);
  const runs = new Map<string, DecodePrediction>();
  for (const { policy, batch } of fleetMi350Jobs()) {
    tick(`mi350 ${policy} b${batch}`);
    runs.set(`${policy}@${batch}`, predictDecode(backend, model, { policy, batch, prompt: d.promptTokens, decode: d.decodeTokens }));
  }
  const at = (policy: FleetPolicy, batch: number) => runs.get(`${policy}@${batch}`)!;
  const rows: ValidationRow[] = [];
  const row = (r: Omit<ValidationRow, 'suite' | 'source' | 'error' | 'errorUnit' | 'ok'> & { errorUnit: '%' | 'pt' }): void => {
    const error = r.errorUnit === '%' ? relativeError(r.predicted, r.published) : pointError(r.predicted, r.published);
    rows.push({ suite: 'fleet-mi350', ...r, error, ok: Math.abs(error) <= r.tolerance, source: d.source });
  };
  /** A row judged at the targets above: in percent (TPOT, ratios, counts) or in points (rates, fractions). */
  const judged = (
    experiment: string,
    kind: ValidationRow['kind'],
    published: ValidationRow['published'],
    predicted: number,
    unit: ValidationRow['unit'],
    errorUnit: '%' | 'pt',
  ): void => row({ experiment, kind, published, predicted, unit, errorUnit, tolerance: errorUnit === '%' ? TOL_PCT : TOL_PT });

  for (const p of POLICIES) {
    judged(`TPOT ${p}, batch 1`, 'calibration', d.calibration.tpotMsBatch1[p], at(p, 1).tpotMs, 'ms', '%');
  }
  for (const p of ['mirage', 'fleet-mtile', 'fleet-msplit'] as const) {
    judged(`L2 hit rate ${p}, batch 1`, 'calibration', d.calibration.l2HitRateBatch1[p], at(p, 1).l2HitRate, 'rate', 'pt');
  }
  const tasks = d.calibration.tasksPerLayerBatch1;
  for (const [decomposition, policy, published] of [
    ['CU-task decomposition', 'mirage', tasks.standardCuTasks],
    ['chiplet-tasks', 'fleet-mtile', tasks.fleet],
  ] as const) {
    judged(`tasks per layer, ${decomposition} (${policy}), batch 1`, 'calibration', published, at(policy, 1).tasksPerLayer, 'tasks', '%');
  }

  const c = d.claims;
  for (const b of c.speedupOverKernelPerOp.batches) {
    for (const p of ['fleet-mtile', 'fleet-msplit'] as const) {
      judged(`speedup ${p} over kernel-per-op, batch ${b}`, 'claim', c.speedupOverKernelPerOp.range, at('kernel-per-op', b).tpotMs / at(p, b).tpotMs, '×', '%');
    }
  }
  for (const b of c.speedupOverMirage.batches) {
    for (const p of ['fleet-mtile', 'fleet-msplit'] as const) {
      judged(`speedup ${p} over mirage, batch ${b}`, 'claim', c.speedupOverMirage.range, at('mirage', b).tpotMs / at(p, b).tpotMs, '×', '%');
    }
  }
  for (const { batch, value } of c.mtileOverMirage) {
    judged(`speedup fleet-mtile over mirage, batch ${batch}`, 'claim', value, at('mirage', batch).tpotMs / at('fleet-mtile', batch).tpotMs, '×', '%');
  }
  for (const { batch, value } of c.msplitOverMirage) {
    judged(`speedup fleet-msplit over mirage, batch ${batch}`, 'claim', value, at('mirage', batch).tpotMs / at('fleet-msplit', batch).tpotMs, '×', '%');
  }
  {
    // The paper's "HBM read" comes from rocprof's L2 counters, which count the L2s' reads from
    // the fabric (`fabricReadBytes`); the MALL behind the fabric serves part of them, so DRAM
    // (`hbmReadBytes`) sees less, and the two reductions differ. Judged: the fabric one.
    const { batch, value } = c.hbmReadReduction;
    const reduction = (f: (p: DecodePrediction) => number) => 1 - f(at('fleet-mtile', batch)) / f(at('mirage', batch));
    const dram = reduction((p) => p.hbmReadBytes);
    judged(
      `HBM read reduction fleet-mtile vs mirage, batch ${batch}, as the paper's L2 counters count it (L2→fabric reads; DRAM after the MALL: ${(dram * 100).toFixed(1)}%)`,
      'claim',
      value,
      reduction((p) => p.fabricReadBytes),
      'fraction',
      'pt',
    );
  }
  for (const { batch, policy, value } of c.l2HitRate) {
    judged(`L2 hit rate ${policy}, batch ${batch}`, 'claim', value, at(policy, batch).l2HitRate, 'rate', 'pt');
  }
  for (const b of c.kernelPerOpPlateauMs.batches) {
    judged(`TPOT kernel-per-op plateau, batch ${b}`, 'claim', c.kernelPerOpPlateauMs.range, at('kernel-per-op', b).tpotMs, 'ms', '%');
  }
  {
    const kpo = at('kernel-per-op', 64).tpotMs;
    const best = Math.min(at('mirage', 64).tpotMs, at('fleet-mtile', 64).tpotMs, at('fleet-msplit', 64).tpotMs);
    // Published: kernel-per-op is faster (ratio > 1) than the best megakernel at batch 64.
    row({
      experiment: 'best megakernel TPOT / kernel-per-op TPOT, batch 64 (> 1: kernel-per-op wins)',
      kind: 'claim',
      published: [1, Infinity],
      predicted: best / kpo,
      unit: '×',
      errorUnit: '%',
      tolerance: 0,
    });
  }
  return rows;
}
