/** Worker thread of a parallel sweep: builds a runner from `workerData`, answers job messages. */
import { parentPort, workerData } from 'node:worker_threads';
import { SweepRunner, type SweepJob, type SweepSpec } from './job.js';

const runner = await SweepRunner.create(workerData as SweepSpec);
parentPort!.on('message', (job: SweepJob | null) => {
  if (job === null) {
    parentPort!.close();
    return;
  }
  try {
    parentPort!.postMessage({ index: job.index, row: runner.run(job) });
  } catch (e) {
    parentPort!.postMessage({ index: job.index, error: e instanceof Error ? e.message : String(e), exitCode: (e as { exitCode?: number }).exitCode });
  }
});
parentPort!.postMessage({ ready: true });
