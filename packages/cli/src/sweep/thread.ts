/** A local worker thread of `fleet sweep` (run by Piscina): one job per call. */
import { SweepJobRunner, toFailure, type JobFailure, type SweepContext, type SweepResult } from './runner.js';
import type { SweepJobSpec } from './spec.js';

export interface ThreadTask {
  job: SweepJobSpec;
  ctx: SweepContext;
}

export type ThreadAnswer = { ok: true; result: SweepResult } | { ok: false; failure: JobFailure };

// Backends and models load once per thread, on its first job.
let runner: Promise<SweepJobRunner> | undefined;

export default async function runTask({ job, ctx }: ThreadTask): Promise<ThreadAnswer> {
  try {
    runner ??= SweepJobRunner.create(ctx);
    return { ok: true, result: (await runner).run(job) };
  } catch (e) {
    return { ok: false, failure: toFailure(e) };
  }
}
