/**
 * The BullMQ processor of `fleet worker`, run in a sandboxed worker thread so that the
 * worker's main thread keeps renewing job locks while a simulation runs (a blocked event
 * loop would let locks expire and hand the job to a second worker).
 */
import { UnrecoverableError, type SandboxedJob } from 'bullmq';
import { SweepJobRunner, toFailure, type SweepResult } from './runner.js';
import type { QueueJobData } from './queue.js';

const runners = new Map<string, Promise<SweepJobRunner>>();

export default async function processSweepJob(job: SandboxedJob<QueueJobData, SweepResult>): Promise<SweepResult> {
  // Model paths resolve as on the sweep's machine; backends are this worker's own.
  const ctx = { baseDir: job.data.baseDir, cwd: process.cwd() };
  const key = JSON.stringify(ctx);
  let runner = runners.get(key);
  if (!runner) {
    runner = SweepJobRunner.create(ctx);
    runners.set(key, runner);
  }
  try {
    return (await runner).run(job.data.job);
  } catch (e) {
    const f = toFailure(e);
    // Bad input (or a deadlocked schedule) fails the same way every time: fail once, no retries.
    if (f.exitCode !== 1) throw new UnrecoverableError(f.message);
    throw new Error(f.message);
  }
}
