#!/usr/bin/env node
/**
 * What the paper's block-first hit rates would cost on the MI300X backend's memory side
 * (run after `npx tsc -b packages/attention-study`):
 *   node packages/attention-study/bench/attention-no-reuse.mjs
 *
 * Block-first is simulated with the L2 shrunk 64-fold (nothing survives between
 * workgroups: the paper's ~1%), once with the Infinity Cache (MALL) as it is and once with it
 * shrunk 256-fold too (every miss goes to HBM), against swizzled-head-first on the real
 * caches. An experiment, not a prediction: the caches are changed by hand to stand for a
 * loss of temporal locality the simulation does not produce (see the README).
 */
import { loadBackend } from '@fleet/core';
import mi300x from '@fleet/backend-mi300x';
import { simulateAttention } from '../dist/index.js';

const backend = loadBackend(mi300x, 'bench');
const K = 1024;
const shape = (seq, batch, heads, headDim = 128, pass = 'fwd') => ({ seq, batch, heads, kvHeads: heads, headDim, pass });
/** The backend with its L2 and MALL capacities divided by the given factors. */
function shrunk(l2, llc) {
  const m = backend.topology.memory;
  const memory = {
    ...m,
    l2: { ...m.l2, capacityBytes: m.l2.capacityBytes / l2 },
    ...(m.llc ? { llc: { ...m.llc, capacityBytes: m.llc.capacityBytes / llc } } : {}),
  };
  return { ...backend, topology: { ...backend.topology, memory } };
}
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const cases = [
  ['MHA 8K, 128 heads, batch 8', shape(8 * K, 8, 128)],
  ['MHA 32K, 64 heads, batch 8', shape(32 * K, 8, 64)],
  ['MHA 32K, 128 heads, batch 8', shape(32 * K, 8, 128)],
  ['MHA 128K, 128 heads, batch 8', shape(128 * K, 8, 128)],
  ['DeepSeek-V3 128K, batch 8 (d 56)', shape(128 * K, 8, 128, 56)],
  ['backward 128K, 128 heads, batch 1', shape(128 * K, 1, 128, 128, 'bwd')],
];
console.log('naive block-first, throughput / SHF: L2 kept nothing (MALL as is) | L2 and MALL kept nothing');
for (const [label, s] of cases) {
  const ref = simulateAttention(backend, s, 'swizzled-head-first');
  // The reference's step sample, so both runs look up the same steps.
  const o = { stepSample: ref.sampled.stepSample };
  const l2Only = simulateAttention(shrunk(64, 1), s, 'naive-block-first', o);
  const none = simulateAttention(shrunk(64, 256), s, 'naive-block-first', o);
  console.log(
    `${label.padEnd(36)} SHF L2 ${pct(ref.l2HitRate).padStart(6)} | L2 ${pct(l2Only.l2HitRate).padStart(6)} MALL ${pct(l2Only.llcHitRate ?? 0).padStart(6)} ${(ref.timeMs / l2Only.timeMs).toFixed(3)}× | L2 ${pct(none.l2HitRate).padStart(6)} MALL ${pct(none.llcHitRate ?? 0).padStart(6)} ${(ref.timeMs / none.timeMs).toFixed(3)}×`,
  );
}
