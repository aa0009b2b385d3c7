#!/usr/bin/env node
// One bench measurement in a fresh process, against the build under `--root` (this checkout
// or a baseline one), printed as JSON { ms, rssMB, result }: each figure's peak RSS is then
// that configuration's alone, and two builds are measured by the same code. `cpuMs` is the
// CPU time (user + system) the figure took: on a shared machine, what one core spent on it.
//   node measure.mjs --root DIR step BACKEND POLICY BATCH KV
//   node measure.mjs --root DIR compare
//   node measure.mjs --root DIR suite NAME
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const i = process.argv.indexOf('--root');
const root = process.argv[i + 1];
const [what, ...args] = process.argv.slice(i + 2);
const load = (p) => import(pathToFileURL(`${root}/packages/${p}`).href);
const bin = `${root}/packages/cli/bin/fleet.js`;

let ms;
let cpuMs;
let result;
let rssMB;
if (what === 'step') {
  const [backend, policy, batch, kv] = args;
  const { loadModel } = await load('core/dist/index.js');
  const { predictDecode } = await load('ops/dist/index.js');
  const { loadBackends } = await load('cli/dist/backends.js');
  const b = (await loadBackends()).get(backend);
  const model = loadModel('qwen3-8b');
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = predictDecode(b, model, { policy, batch: +batch, prompt: +kv - 1, decode: 1, positions: 1, layers: model.numLayers });
  ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  cpuMs = (c.user + c.system) / 1000;
  result = {
    tpotMs: r.tpotMs,
    hbmReadBytes: r.hbmReadBytes,
    l2HitRate: r.l2HitRate,
    layersSimulated: r.sampling.layersSimulated,
    layersExtrapolated: r.sampling.layersExtrapolated,
  };
  rssMB = process.resourceUsage().maxRSS / 1024;
} else {
  // A CLI run: its own process, timed from here; its peak RSS is the child's.
  const argv = what === 'compare' ? ['compare', '--json', '--jobs', '1'] : ['validate', '--suite', args[0], '--json'];
  const t0 = performance.now();
  const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${new URL('./rss-report.cjs', import.meta.url).pathname}` };
  const r = spawnSync(process.execPath, [bin, ...argv], { encoding: 'utf8', maxBuffer: 1 << 28, env });
  ms = performance.now() - t0;
  const out = r.stdout ?? ''; // a suite with misses exits non-zero; its time still counts
  const kb = /FLEET_BENCH_RSS_KB (\d+)/.exec(r.stderr ?? '');
  rssMB = kb ? +kb[1] / 1024 : NaN;
  const us = /FLEET_BENCH_CPU_US (\d+)/.exec(r.stderr ?? '');
  cpuMs = us ? +us[1] / 1000 : NaN;
  result = { bytes: out.length };
}
console.log(JSON.stringify({ ms, cpuMs, rssMB, result }));
