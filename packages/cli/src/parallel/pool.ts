import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FleetError } from '@fleet/core';
import type { CompareRow } from '../compare.js';
import { SweepRunner, type SweepJob, type SweepSpec } from './job.js';

/** The compiled worker script (tests run from sources, so fall back to the package's dist). */
function workerPath(): string {
  const here = fileURLToPath(import.meta.url);
  const beside = join(dirname(here), 'worker.js');
  return existsSync(beside) ? beside : join(dirname(here), '..', '..', 'dist', 'parallel', 'worker.js');
}

/** Default parallelism: every core the process may use. */
export function defaultJobs(): number {
  return availableParallelism();
}

/** How a sweep may be stopped before it finishes. */
export interface StopOptions {
  /** Aborting it stops the sweep: running workers are ended, and the rows finished so far are returned. */
  signal?: AbortSignal;
  /**
   * Run on a worker thread even with one thread, so the calling thread stays free to report
   * and to stop it at any moment (a time limit, a step that takes minutes). Without it one
   * thread runs the jobs in-process, yielding to the event loop between jobs: timers, Ctrl-C
   * and `signal` take effect when the running job ends, and no worker loads every module again.
   */
  isolate?: boolean;
}

/**
 * Jobs whose policies run one compiled graph (kernel-per-op launched eagerly or as one graph):
 * the same key for the same configuration, null for any other policy.
 */
function sharedGraphKey(j: SweepJob): string | null {
  return j.policy === 'kernel-per-op' || j.policy === 'kernel-per-op-graph' ? `${j.backend}|${j.batch}|${j.prompt}|${j.tp ?? 1}` : null;
}

/**
 * The next job for a worker whose last job had graph key `last`: a pending job with the same
 * key first (the worker's simulation memo then gives it from the last one, exactly), else the
 * first pending job. Output order does not depend on it: rows are placed by index.
 */
function takeNext(pending: SweepJob[], last: string | null): SweepJob | undefined {
  const i = last === null ? -1 : pending.findIndex((j) => sharedGraphKey(j) === last);
  return i >= 0 ? pending.splice(i, 1)[0] : pending.shift();
}

/**
 * Run sweep jobs on `jobs` worker threads (in-process when 1, unless `isolate`): each worker
 * loads the model and backends once and takes jobs one at a time. Results come back in job
 * order, so the output does not depend on scheduling. `tick` is called as each job completes.
 * When stopped, the array holds the finished rows and holes for the others.
 */
export async function runSweep(
  spec: SweepSpec,
  work: readonly SweepJob[],
  jobs: number,
  tick: (label: string) => void,
  stop: StopOptions = {},
): Promise<(CompareRow | undefined)[]> {
  const out: (CompareRow | undefined)[] = new Array(work.length);
  const label = (j: SweepJob) => `${j.backend} ${j.policy} b${j.batch} p${j.prompt}`;
  const threads = Math.max(1, Math.min(jobs, work.length));
  const signal = stop.signal;
  if (threads === 1 && !stop.isolate) {
    const runner = await SweepRunner.create(spec);
    for (const j of work) {
      if (signal?.aborted) break;
      out[j.index] = runner.run(j);
      tick(label(j));
      // Let progress timers, a time limit or Ctrl-C run before the next job.
      if (work.length > 1) await new Promise((resolve) => setImmediate(resolve));
    }
    return out;
  }
  const pending = [...work];
  let failure: { message: string; exitCode?: number } | null = null;
  await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(workerPath(), { workerData: spec });
          // The graph of this worker's last job, where the next one could share it.
          let last: string | null = null;
          const end = () => void w.terminate();
          signal?.addEventListener('abort', end, { once: true });
          w.on('exit', () => signal?.removeEventListener('abort', end));
          const feed = () => {
            const job = failure || signal?.aborted ? undefined : takeNext(pending, last);
            if (!job) {
              w.postMessage(null);
              return;
            }
            last = sharedGraphKey(job);
            w.postMessage(job);
          };
          w.on('message', (m: { ready?: boolean; index?: number; row?: CompareRow; error?: string; exitCode?: number }) => {
            if (m.ready) return feed();
            if (m.error !== undefined) failure ??= { message: m.error, exitCode: m.exitCode };
            else {
              out[m.index!] = m.row!;
              tick(label(work[m.index!]!));
            }
            feed();
          });
          w.on('error', (e) => {
            failure ??= { message: e.message };
            reject(e);
          });
          w.on('exit', () => resolve());
        }),
    ),
  ).catch(() => undefined);
  if (failure) {
    const f = failure as { message: string; exitCode?: number };
    throw new FleetError(f.message, (f.exitCode ?? 2) as 1 | 2 | 3);
  }
  return out;
}
