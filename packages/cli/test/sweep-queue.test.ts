/**
 * `fleet sweep --queue` through real Redis and two `fleet worker` processes, one of them
 * killed (SIGKILL) in the middle of a job: the results must equal a local run's, byte for byte.
 * Needs `redis-server` on PATH (CI installs it); skipped, saying so, when it is absent.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, writeTinyModel } from './helpers.js';

const REDIS = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
const FLEET = fileURLToPath(new URL('../bin/fleet.js', import.meta.url));
if (!REDIS) console.warn('sweep-queue.test.ts: skipped: redis-server is not installed (apt-get install redis-server)');

/** A free loopback port (the OS picks one; Redis binds it right after). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A child process with its stderr collected, and a way to wait for a line in it. */
interface Proc {
  child: ChildProcess;
  err: () => string;
  waitFor: (re: RegExp, ms: number) => Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

function start(cmd: string, args: string[], cwd: string): Proc {
  const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const onData = (d: Buffer) => {
    err += d.toString();
    for (const w of [...waiters]) {
      const m = err.match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stderr!.on('data', onData);
  child.stdout!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    err: () => err,
    exited,
    waitFor: (re, ms) =>
      new Promise((resolve, reject) => {
        const m = err.match(re);
        if (m) return resolve(m);
        const t = setTimeout(() => reject(new Error(`timed out waiting for ${re} in:\n${err}`)), ms);
        waiters.push({
          re,
          resolve: (x) => {
            clearTimeout(t);
            resolve(x);
          },
        });
      }),
  };
}

describe.skipIf(!REDIS)('fleet sweep --queue with fleet worker (real redis-server)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-queue-'));
  const model = writeTinyModel(dir);
  const procs: Proc[] = [];
  let url = '';
  // Short lock and stalled-check periods: a killed worker's job is back on the queue in about 2 s.
  const worker = () => {
    const p = start(process.execPath, [FLEET, 'worker', '--queue', url, '--concurrency', '1', '--lock-duration', '1500', '--stalled-interval', '500'], dir);
    procs.push(p);
    return p;
  };

  beforeAll(async () => {
    const port = await freePort();
    url = `redis://127.0.0.1:${port}`;
    const redis = start(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], dir);
    procs.push(redis);
    await redis.waitFor(/Ready to accept connections/, 15_000);
  });

  afterAll(async () => {
    for (const p of procs.reverse()) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
  });

  it('two workers, one killed mid-job: every result arrives, equal to a local run', async () => {
    writeFileSync(
      join(dir, 'spec.json'),
      JSON.stringify({
        model: [model, 'llama2-7b'],
        backends: ['mi350', 'mi300x', 'h100'],
        policies: ['kernel-per-op', 'mirage'],
        batch: [1, 4],
        sampleLayers: 1,
        decode: 8,
      }),
    );
    const local = await run(['sweep', 'spec.json', '--out', 'local.jsonl', '--workers', '1'], dir);
    expect(local.code, local.err).toBe(0);

    const a = worker();
    const b = worker();
    await Promise.all([a.waitFor(/listening/, 30_000), b.waitFor(/listening/, 30_000)]);
    const sweep = start(process.execPath, [FLEET, 'sweep', 'spec.json', '--queue', url, '--out', 'queued.jsonl'], dir);
    procs.push(sweep);
    // The first job on a worker loads the simulator into a fresh thread (about a second): kill it then.
    const [, killedId] = await a.waitFor(/start ([0-9a-f]{16}) /, 60_000);
    a.child.kill('SIGKILL');
    expect(await sweep.exited, sweep.err()).toBe(0);

    expect(readFileSync(join(dir, 'queued.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'local.jsonl'), 'utf8'));
    expect(a.err()).not.toContain(`done ${killedId}`);
    // The surviving worker picked the killed worker's job up again.
    expect(b.err()).toContain(`start ${killedId}`);
    expect(b.err()).toContain(`done ${killedId}`);
    expect(sweep.err()).toMatch(/24 jobs on queue 'fleet-sweep'/);

    // A rerun finds everything in the output file and queues nothing.
    const again = await run(['sweep', 'spec.json', '--queue', url, '--out', 'queued.jsonl', '--json'], dir);
    expect(JSON.parse(again.out)).toMatchObject({ jobs: 24, skipped: 24, ran: 0 });
  });

  it('a job that fails for bad input is reported once and not retried', async () => {
    const b = procs.find((p) => p.err().includes('listening') && p.child.exitCode === null && p.child.signalCode === null)!;
    writeFileSync(
      join(dir, 'tight.json'),
      JSON.stringify({ model: ['llama2-7b'], backends: ['mi350'], policies: ['mirage'], batch: [1, 2], sampleLayers: 1, maxSimSteps: 10 }),
    );
    const r = await run(['sweep', 'tight.json', '--queue', url, '--out', 'tight.jsonl', '--attempts', '5', '--json'], dir);
    expect(r.code).toBe(2);
    const failures = r.err.split('\n').filter((l) => / failed: /.test(l));
    expect(failures).toHaveLength(2);
    for (const f of failures) expect(f).toMatch(/^fleet: job [0-9a-f]{16} \(llama2-7b mi350 mirage b[12]\) failed: simulation too large/);
    expect(JSON.parse(r.out)).toMatchObject({ jobs: 2, failed: 2, ran: 0 });
    for (const f of failures) {
      const id = /job ([0-9a-f]{16})/.exec(f)![1]!;
      expect(b.err().split(`start ${id}`).length - 1, `${id} started once`).toBe(1);
    }
  });

  it('an unreachable Redis is one line and exit 2, not a hang', async () => {
    const port = await freePort();
    const r = await run(['sweep', 'spec.json', '--queue', `redis://127.0.0.1:${port}`, '--out', 'x.jsonl'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^fleet: --queue: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+\/?: .*ECONNREFUSED/);
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
  });
});
