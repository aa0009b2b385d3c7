#!/usr/bin/env node
// Simulation speed figures on one core (medians of CPU time, user + system: on a shared
// machine the wall clock counts other processes' turns too), each beside its target and, with
// `--baseline DIR` (another checkout, built: `git worktree add DIR main && cd DIR && npm ci`),
// as a ratio to that build measured side by side in the same run:
//   - a whole-model decode step (all 36 layers of Qwen3-8B asked for) per backend and policy
//     at batch 1 / 64 / 256 (KV 1024) and batch 1 at KV 32K — target ≤ 1 s, peak RSS ≤ 500 MB;
//   - the default `fleet compare` on one thread (`--jobs 1`) — target ≤ 4 s;
//   - the numa-attention validation suite (the attention-mapping study) — target ≤ 20 s;
//   - a 100-configuration `fleet sweep` on all cores (this build only).
// Every figure is measured in a fresh process (measure.mjs), so its peak RSS is its own.
//   npm run bench -- [--baseline DIR] [--quick] [--runs N] [--backends mi350,h100]
// --quick: one run per figure, mi350 / h100 only, no sweep.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const quick = process.argv.includes('--quick');
const runs = Number(arg('--runs', quick ? 1 : 3));
const here = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
const baseline = arg('--baseline', null);
const roots = baseline ? [here, baseline] : [here];
const MEASURE = fileURLToPath(new URL('./measure.mjs', import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median CPU time (`ms`), median wall time and worst RSS of `runs` fresh-process measurements of one figure in one build. */
function measure(root, args) {
  const ms = [];
  const wall = [];
  let rss = 0;
  let result = null;
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [MEASURE, '--root', root, ...args], { encoding: 'utf8', maxBuffer: 1 << 26, cwd: `${root}/packages/cli` });
    if (r.status !== 0) throw new Error(`bench: ${args.join(' ')} in ${root} failed: ${r.stderr.split('\n').slice(-5).join(' ')}`);
    const m = JSON.parse(r.stdout.trim().split('\n').pop());
    ms.push(m.cpuMs);
    wall.push(m.ms);
    rss = Math.max(rss, m.rssMB);
    result = m.result;
  }
  return { ms: median(ms), wallMs: median(wall), rss, result };
}

const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
const cell = (now, base) => (base ? `${sec(now.ms)} (${(base.ms / now.ms).toFixed(1)}× of ${sec(base.ms)})` : sec(now.ms));
const mark = (ok) => (ok ? 'ok  ' : 'MISS');

console.log(`Fleet simulation speed (CPU seconds, median of ${runs}; Node ${process.version}; one core${baseline ? `; baseline ${baseline}` : ''})\n`);

// Policies each backend runs, from this build.
const { BUILTIN_POLICIES, unsupportedReason } = await import('@fleet/ops');
const { loadBackends } = await import('../dist/backends.js');
const registry = await loadBackends();
const cells = [
  { label: 'b1', batch: 1, kv: 1024 },
  { label: 'b64', batch: 64, kv: 1024 },
  { label: 'b256', batch: 256, kv: 1024 },
  { label: 'b1 KV32K', batch: 1, kv: 32768 },
];
const backends = arg('--backends', quick ? 'mi350,h100' : 'mi350,mi300x,h100,h200').split(',');
console.log('whole-model decode step, Qwen3-8B, 36 layers (target ≤ 1 s and ≤ 500 MB each):');
let worst = { ms: 0, rss: 0 };
let misses = 0;
for (const name of backends) {
  const b = registry.get(name);
  if (!b) continue;
  for (const p of BUILTIN_POLICIES.filter((x) => unsupportedReason(b, x) === null)) {
    for (const c of cells) {
      const args = ['step', name, p.name, String(c.batch), String(c.kv)];
      const [now, base] = roots.map((r) => measure(r, args));
      const same = base ? Math.abs(now.result.tpotMs / base.result.tpotMs - 1) <= 1e-9 : true;
      const ok = now.ms <= 1000 && now.rss <= 500;
      if (!ok) misses++;
      worst = { ms: Math.max(worst.ms, now.ms), rss: Math.max(worst.rss, now.rss) };
      console.log(
        `  ${mark(ok)} ${name.padEnd(7)} ${p.name.padEnd(20)} ${c.label.padEnd(9)} ${cell(now, base).padEnd(34)} ${now.rss.toFixed(0).padStart(5)} MB` +
          `  ${now.result.layersExtrapolated} ${now.result.layersSimulated}/36${same ? '' : `  TPOT differs from baseline: ${now.result.tpotMs} vs ${base.result.tpotMs}`}`,
      );
    }
  }
}
console.log(`  slowest ${sec(worst.ms)}, largest ${worst.rss.toFixed(0)} MB; ${misses} over target\n`);

for (const [label, args, targetMs] of [
  ['default `fleet compare`, one thread', ['compare'], 4000],
  ['numa-attention suite (`fleet validate --suite numa-attention`)', ['suite', 'numa-attention'], 20000],
]) {
  const [now, base] = roots.map((r) => measure(r, args));
  console.log(
    `${mark(now.ms <= targetMs)} ${label}: ${cell(now, base)} (target ≤ ${sec(targetMs)}; wall ${sec(now.wallMs)}), peak RSS ${now.rss.toFixed(0)} MB`,
  );
}

if (!quick) {
  const { benchSweep } = await import('./sweep.mjs');
  const sweep = await benchSweep(100, ['threads']);
  console.log(
    `\`fleet sweep\` of 100 configurations (llama2-7b, 1 sampled layer), all cores: ${sweep.rows[0][1].s.toFixed(1)} s  (1,000 configurations, 1 thread / all cores / 2 queue workers: node packages/cli/bench/sweep.mjs --configs 1000)`,
  );
}
