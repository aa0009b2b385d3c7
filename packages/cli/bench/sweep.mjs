#!/usr/bin/env node
// Sweep wall time: `fleet sweep` over N cheap configurations (llama2-7b, 1 of 32 layers
// simulated, 1 decode position; mi350 and h100 × mirage and kernel-per-op-graph × batch
// 1..16 × weights × prompt lengths), run with 1 worker thread, all local cores, and — when
// redis-server is installed — 2 `fleet worker` processes on a local Redis. The three result
// files must be byte-identical. Run after a build:
//   node packages/cli/bench/sweep.mjs [--configs 1000] [--modes threads1,threads,queue]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/fleet.js', import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};

/** A spec of exactly `n` configurations (n a multiple of 20): 4 schedules × 5 batch sizes × weights × prompts. */
export function benchSpec(n) {
  if (n % 20 !== 0) throw new Error('--configs must be a multiple of 20');
  const weights = n % 40 === 0 ? ['bf16', 'u4g128'] : ['bf16'];
  const prompts = n / 20 / weights.length;
  return {
    model: ['llama2-7b'],
    backends: ['mi350', 'h100'],
    policies: ['mirage', 'kernel-per-op-graph'],
    batch: [1, 2, 4, 8, 16],
    prompt: Array.from({ length: prompts }, (_, i) => 64 + 128 * i),
    weights,
    sampleLayers: [1],
    decode: [16],
  };
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Time one `fleet sweep` into a fresh file; returns seconds and the file's bytes. */
function timeSweep(dir, name, extra) {
  const out = join(dir, `${name}.jsonl`);
  const t0 = performance.now();
  execFileSync(process.execPath, [BIN, 'sweep', join(dir, 'spec.json'), '--out', out, ...extra], { stdio: ['ignore', 'ignore', 'inherit'] });
  return { s: (performance.now() - t0) / 1000, bytes: readFileSync(out) };
}

async function timeQueued(dir) {
  const redisBin = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
  if (!redisBin) return null;
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const redis = spawn(redisBin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => redis.stdout.on('data', (d) => /Ready to accept/.test(String(d)) && resolve()));
  const workers = [0, 1].map(() => spawn(process.execPath, [BIN, 'worker', '--queue', url, '--concurrency', '1'], { stdio: ['ignore', 'ignore', 'pipe'] }));
  // Time from the sweep's start: workers are already listening, as on a standing cluster.
  await Promise.all(workers.map((w) => new Promise((resolve) => w.stderr.on('data', (d) => /listening/.test(String(d)) && resolve()))));
  try {
    return timeSweep(dir, 'queue', ['--queue', url]);
  } finally {
    for (const w of workers) w.kill('SIGKILL');
    redis.kill('SIGKILL');
  }
}

export async function benchSweep(n, modes) {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sweep-bench-'));
  writeFileSync(join(dir, 'spec.json'), JSON.stringify(benchSpec(n)));
  const rows = [];
  try {
    if (modes.includes('threads1')) rows.push(['1 worker thread', timeSweep(dir, 't1', ['--workers', '1'])]);
    if (modes.includes('threads')) rows.push([`${availableParallelism()} worker threads (all cores)`, timeSweep(dir, 'tn', [])]);
    if (modes.includes('queue')) {
      const q = await timeQueued(dir);
      rows.push(['2 queue workers (BullMQ, local Redis)', q]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const ran = rows.filter(([, r]) => r);
  const same = ran.every(([, r]) => r.bytes.equals(ran[0][1].bytes));
  return { rows, same };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(arg('--configs', '1000'));
  const modes = arg('--modes', 'threads1,threads,queue').split(',');
  const { rows, same } = await benchSweep(n, modes);
  console.log(
    `\`fleet sweep\` of ${n} configurations (llama2-7b, 1 sampled layer, 1 decode position; Node ${process.version}, ${availableParallelism()} cores):`,
  );
  for (const [what, r] of rows) console.log(`  ${what.padEnd(40)} ${r ? `${r.s.toFixed(1)} s` : 'skipped: redis-server is not installed'}`);
  console.log(`  results identical across runs: ${same ? 'yes' : 'NO'}`);
  if (!same) process.exitCode = 1;
}
