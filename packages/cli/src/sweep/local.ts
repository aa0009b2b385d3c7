/** Running a sweep's jobs on this machine: in-process for one worker, else a Piscina thread pool. */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { SweepJobRunner, toFailure, type JobFailure, type SweepContext, type SweepResult } from './runner.js';
import type { SweepJobSpec } from './spec.js';
import type { ThreadAnswer, ThreadTask } from './thread.js';

/** Called once per job as it finishes: its result line, or why it failed. */
export type OnJobDone = (job: SweepJobSpec, result: SweepResult | null, failure: JobFailure | null) => void;

/** A compiled module beside this one (tests run from sources, so fall back to the package's dist). */
export function compiledPath(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, name);
  return existsSync(beside) ? beside : join(here, '..', '..', 'dist', 'sweep', name);
}

/** Default local parallelism: every core this process may use. */
export function defaultWorkers(): number {
  return availableParallelism();
}

/**
 * Run `jobs` on `workers` threads (in this thread when 1: no start-up cost). Each thread
 * loads backends and models once; jobs go to whichever thread is free.
 */
export async function runLocal(jobs: readonly SweepJobSpec[], ctx: SweepContext, workers: number, done: OnJobDone): Promise<void> {
  const threads = Math.max(1, Math.min(workers, jobs.length));
  if (jobs.length === 0) return;
  if (threads === 1) {
    const runner = await SweepJobRunner.create(ctx);
    for (const job of jobs) {
      let result: SweepResult | null = null;
      let failure: JobFailure | null = null;
      try {
        result = runner.run(job);
      } catch (e) {
        failure = toFailure(e);
      }
      done(job, result, failure);
      // Let the progress bar and signals through between jobs.
      await new Promise((r) => setImmediate(r));
    }
    return;
  }
  const pool = new Piscina<ThreadTask, ThreadAnswer>({
    filename: pathToFileURL(compiledPath('thread.js')).href,
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: 1,
  });
  try {
    await Promise.all(
      jobs.map((job) =>
        pool.run({ job, ctx }).then(
          (a) => (a.ok ? done(job, a.result, null) : done(job, null, a.failure)),
          (e: unknown) => done(job, null, toFailure(e)),
        ),
      ),
    );
  } finally {
    await pool.destroy();
  }
}
