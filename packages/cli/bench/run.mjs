#!/usr/bin/env node
// Simulation speed figures (medians): one decode step per backend and policy at batch 1 and
// 64 as `fleet compare`/`fleet validate` run it (3 sampled layers), one full 36-layer step,
// engine events per second, the default `fleet compare`, and peak RSS. Run after a build:
//   npm run bench        (or: node packages/cli/bench/run.mjs [--quick])
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildDecodeGraph, loadModel, simulateGraph } from '@fleet/core';
import { compilePolicy, POLICIES, predictDecode } from '@fleet/ops';
import { loadBackends } from '../dist/backends.js';
import { benchSweep } from './sweep.mjs';

const quick = process.argv.includes('--quick');
const runs = quick ? 1 : 3;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn) => {
  const t = [];
  let out;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    out = fn();
    t.push(performance.now() - t0);
  }
  return { ms: median(t), out };
};

const registry = await loadBackends();
const model = loadModel('qwen3-8b');
console.log(`Fleet simulation speed (median of ${runs}; Node ${process.version}; one core)\n`);
console.log('decode step, 3 of 36 layers simulated (validation fidelity):');
for (const name of ['mi350', 'mi300x', 'h100']) {
  const b = registry.get(name);
  for (const p of b.policies.filter((x) => !x.unsupportedReason)) {
    const cells = [1, 64].map((batch) => time(() => predictDecode(b, model, { policy: p.policy, batch, prompt: 64, decode: 1024 })).ms);
    console.log(`  ${name.padEnd(7)} ${p.policy.padEnd(20)} batch 1: ${(cells[0] / 1000).toFixed(2)} s   batch 64: ${(cells[1] / 1000).toFixed(2)} s`);
  }
}

const mi350 = registry.get('mi350');
const full = time(() => predictDecode(mi350, model, { policy: 'fleet-mtile', batch: 64, prompt: 64, decode: 1024, layers: 36 }));
console.log(`\nfull step, all 36 layers, mi350 fleet-mtile batch 64: ${(full.ms / 1000).toFixed(2)} s (target < 1 s)`);

const graph = compilePolicy(buildDecodeGraph(model, { batch: 64, contextLen: 576 }), POLICIES.find((p) => p.name === 'fleet-mtile'), mi350.topology, { layers: [0, 1, 2] });
const persistent = { workersPerPartition: 31, chipletAware: true, schedulers: 8, twoLevelCounting: true };
const sim = time(() => simulateGraph(mi350, graph, { persistent }));
console.log(`engine: ${sim.out.engineEvents} events in ${sim.ms.toFixed(0)} ms = ${((sim.out.engineEvents / sim.ms) * 1000 / 1e6).toFixed(2)} M events/s`);

if (!quick) {
  const bin = fileURLToPath(new URL('../bin/fleet.js', import.meta.url));
  const t0 = performance.now();
  execFileSync(process.execPath, [bin, 'compare', '--json'], { stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(`default \`fleet compare\`: ${((performance.now() - t0) / 1000).toFixed(1)} s (target < 30 s)`);
  const sweep = await benchSweep(100, ['threads']);
  console.log(`\`fleet sweep\` of 100 configurations (llama2-7b, 1 sampled layer), all cores: ${sweep.rows[0][1].s.toFixed(1)} s  (1,000 configurations, 1 thread / all cores / 2 queue workers: node packages/cli/bench/sweep.mjs)`);
}
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (target < 1 GB)`);
