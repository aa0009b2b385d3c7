#!/usr/bin/env node
// Simulation speed figures on one core (medians), against the targets:
//   - a full step (all 36 layers of Qwen3-8B, no layer sampling) per backend and policy at
//     batch 1 / 64 / 256 (KV 1024) and batch 1 at KV 32K — target < 1 s;
//   - the default `fleet compare` on one worker thread — target < 5 s;
//   - a 100-configuration `fleet sweep` on all cores;
//   - engine events per second, and peak RSS — target < 500 MB.
// Run after a build:
//   npm run bench        (or: node packages/cli/bench/run.mjs [--quick])
// --quick: one run per figure, the full step on mi350 / h100 only, no compare or sweep.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildDecodeGraph, loadModel, simulateGraph } from '@fleet/core';
import { BUILTIN_POLICIES, compilePolicy, FLEET_MTILE, predictDecode, unsupportedReason } from '@fleet/ops';
import { loadBackends } from '../dist/backends.js';
import { benchSweep } from './sweep.mjs';

const quick = process.argv.includes('--quick');
const runs = quick ? 1 : 3;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn, n = runs) => {
  const t = [];
  let out;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    out = fn();
    t.push(performance.now() - t0);
  }
  return { ms: median(t), out };
};
const sec = (ms) => `${(ms / 1000).toFixed(2)} s`.padStart(8);

const registry = await loadBackends();
const model = loadModel('qwen3-8b');
console.log(`Fleet simulation speed (median of ${runs}; Node ${process.version}; one core)\n`);

const cells = [
  { label: 'b1', batch: 1, kv: 1024 },
  { label: 'b64', batch: 64, kv: 1024 },
  { label: 'b256', batch: 256, kv: 1024 },
  { label: 'b1 KV32K', batch: 1, kv: 32768 },
];
console.log(`full step, all ${model.numLayers} layers (target < 1 s):`);
console.log(`  ${'backend'.padEnd(7)} ${'policy'.padEnd(20)} ${cells.map((c) => c.label.padStart(8)).join(' ')}`);
let worst = 0;
for (const name of quick ? ['mi350', 'h100'] : ['mi350', 'mi300x', 'h100', 'h200']) {
  const b = registry.get(name);
  if (!b) continue;
  for (const p of BUILTIN_POLICIES.filter((x) => unsupportedReason(b, x) === null)) {
    const row = cells.map((c) => {
      const { ms } = time(() => predictDecode(b, model, { policy: p, batch: c.batch, prompt: c.kv - 1, decode: 1, positions: 1, layers: model.numLayers }), 1);
      worst = Math.max(worst, ms);
      return sec(ms);
    });
    console.log(`  ${name.padEnd(7)} ${p.name.padEnd(20)} ${row.join(' ')}`);
  }
}
console.log(`  slowest: ${sec(worst).trim()}`);

const mi350 = registry.get('mi350');
const graph = compilePolicy(buildDecodeGraph(model, { batch: 64, contextLen: 576 }), FLEET_MTILE, mi350, { layers: [0, 1, 2] });
const persistent = { workersPerPartition: 31, chipletAware: true, schedulers: 8, twoLevelCounting: true };
const sim = time(() => simulateGraph(mi350, graph, { persistent }));
console.log(`\nengine: ${sim.out.engineEvents} events in ${sim.ms.toFixed(0)} ms = ${(((sim.out.engineEvents / sim.ms) * 1000) / 1e6).toFixed(2)} M events/s`);

if (!quick) {
  const bin = fileURLToPath(new URL('../bin/fleet.js', import.meta.url));
  const compare = time(() => execFileSync(process.execPath, [bin, 'compare', '--json', '--jobs', '1'], { stdio: ['ignore', 'ignore', 'inherit'] }));
  console.log(`default \`fleet compare\`, one worker thread: ${sec(compare.ms).trim()} (target < 5 s)`);
  const sweep = await benchSweep(100, ['threads']);
  console.log(
    `\`fleet sweep\` of 100 configurations (llama2-7b, 1 sampled layer), all cores: ${sweep.rows[0][1].s.toFixed(1)} s  (1,000 configurations, 1 thread / all cores / 2 queue workers: node packages/cli/bench/sweep.mjs --configs 1000)`,
  );
}
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (target < 500 MB)`);
