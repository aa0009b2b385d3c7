#!/usr/bin/env node
// Re-derives the two MI350X parameters Fleet calibrates on the FLEET paper's batch-1 values
// (the only TPOTs its dataset marks as calibration): the bytes each wave of a persistent megakernel
// keeps in flight (from fleet-mtile, 6.82 ms) and vLLM's eager per-op issue interval (from
// kernel-per-op, 10.51 ms). Everything else those runs predict is checked by `fleet validate`.
// Run after `npm run build`: node packages/backend-mi350/calibration/derive.mjs
import { readFileSync } from 'node:fs';
import { loadBackend, loadModel } from '@fleet/core';
import { predictDecode } from '@fleet/ops';
import mi350 from '@fleet/backend-mi350';
import { CDNA4_CU, megakernelPipeline } from '@fleet/family-cdna';

const ref = JSON.parse(readFileSync(new URL('../../../../shared/reference/fleet-mi350-qwen3-8b.json', import.meta.url), 'utf8'));
const base = loadBackend(mi350, 'mi350');
const model = loadModel('qwen3-8b');

function withCost(over) {
  const cm = Object.create(base.costModel);
  for (const k of ['tileComputeNs', 'tileOverheadNs']) cm[k] = base.costModel[k].bind(base.costModel);
  Object.assign(cm, over);
  return { ...base, costModel: cm };
}

function tpot(backend, policy) {
  return predictDecode(backend, model, { policy, batch: 1, prompt: 64, decode: 1024 }).tpotMs;
}

/** Bisection on a monotone function: the x in [lo, hi] where f(x) = target. */
function solve(f, target, lo, hi, decreasing) {
  for (let i = 0; i < 18; i++) {
    const mid = (lo + hi) / 2;
    const above = f(mid) > target;
    if (above === decreasing) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

const perWave = solve(
  (v) =>
    tpot(
      withCost({
        pipelines: {
          ...base.costModel.pipelines,
          persistent: megakernelPipeline(CDNA4_CU, { outstandingBytesPerWave: v, ldsStaging: base.costModel.pipelines.persistent.ldsStaging }),
        },
      }),
      'fleet-mtile',
    ),
  ref.calibration.tpotMs['fleet-mtile'],
  256,
  16384,
  true,
);
console.log(`megakernel outstanding bytes per wave: ${perWave.toFixed(0)} B (fleet-mtile batch 1 → ${ref.calibration.tpotMs['fleet-mtile']} ms)`);
const eager = solve(
  (e) => tpot(withCost({ launch: { ...base.costModel.launch, eagerNs: e } }), 'kernel-per-op'),
  ref.calibration.tpotMs['kernel-per-op'],
  1000,
  50000,
  false,
);
console.log(`eager per-op issue interval: ${eager.toFixed(0)} ns (kernel-per-op batch 1 → ${ref.calibration.tpotMs['kernel-per-op']} ms)`);
