import { extname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { inputError } from '@fleet/core';
import { parseInt1 } from '../compare.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';
import { loadBackends } from '../backends.js';
import { DEFAULT_MAX_JOBS, jobLabel } from '../sweep/axes.js';
import type { OnJobDone } from '../sweep/local.js';
import { SWEEP_FORMATS, SweepOutput, type SweepFormat } from '../sweep/output.js';
import type { JobFailure } from '../sweep/runner.js';

/** `fleet sweep`: every configuration of a spec, locally on threads or on a Redis queue. */
export function registerSweep(program: Command, io: Io): void {
  program
    .command('sweep')
    .description('run every configuration a spec of lists describes; one result per line, resumable')
    .argument('<spec>', 'JSON or YAML spec: lists of model, backends, policies, batch, prompt, decode, weights, ...')
    .requiredOption('--out <file>', 'results file (JSON Lines, or CSV with --format csv); jobs already in it are skipped')
    .addOption(new Option('--format <fmt>', 'output format (default: csv for a .csv file, else jsonl)').choices(SWEEP_FORMATS))
    .option('--workers <n>', 'local worker threads (default: all cores)')
    .option('--queue <url>', 'run on a BullMQ queue in Redis (redis://host:port) with `fleet worker`s instead of locally')
    .option('--queue-name <name>', 'BullMQ queue name', 'fleet-sweep')
    .option('--attempts <n>', 'with --queue: tries per job when a worker fails for reasons other than bad input', '3')
    .option('--max-jobs <n>', `refuse a spec that expands to more configurations than this (default ${DEFAULT_MAX_JOBS})`)
    .option('--json', 'print a machine-readable summary')
    .action(async (specPath: string, o) => {
      // The spec reader (yaml) and the thread pool (piscina) load only for a sweep.
      const [{ defaultWorkers, runLocal }, { loadSweep }] = await Promise.all([import('../sweep/local.js'), import('../sweep/spec.js')]);
      const cwd = io.cwd ?? process.cwd();
      if (o.queue !== undefined && o.workers !== undefined) throw inputError('--workers: not used with --queue (start `fleet worker`s instead)');
      const workers = o.workers === undefined ? defaultWorkers() : parseInt1('--workers', o.workers, 1, 1024);
      const attempts = parseInt1('--attempts', o.attempts, 1, 100);
      // BullMQ and its Redis client load only for queued sweeps.
      const queue = o.queue === undefined ? undefined : await import('../sweep/queue.js');
      const url = queue?.parseQueueUrl('--queue', o.queue);
      if (!/^[A-Za-z0-9._-]{1,100}$/.test(o.queueName)) throw inputError(`--queue-name: '${o.queueName}' must be 1-100 letters, digits, '.', '_' or '-'`);
      const registry = await loadBackends(cwd);
      const maxJobs = o.maxJobs === undefined ? DEFAULT_MAX_JOBS : parseInt1('--max-jobs', o.maxJobs, 1, 1e9);
      const sweep = loadSweep(resolve(cwd, specPath), registry, maxJobs);
      const outPath = resolve(cwd, o.out);
      const format: SweepFormat = o.format ?? (extname(outPath).toLowerCase() === '.csv' ? 'csv' : 'jsonl');
      if (queue && url) await queue.probeRedis('--queue', url);

      const out = new SweepOutput(outPath, format);
      const already = out.doneIds();
      const pending = sweep.jobs.filter((j) => !already.has(j.id));
      if (pending.length > 0)
        io.err(`fleet: ${sweep.jobs.length} configurations, ${sweep.jobs.length - pending.length} already in ${o.out}, ${pending.length} to run\n`);
      const bar = progress(io, pending.length, 'sweeping', { eta: true });
      const failures: { id: string; failure: JobFailure }[] = [];
      const done: OnJobDone = (job, result, failure) => {
        if (result) out.append(result);
        else {
          failures.push({ id: job.id, failure: failure! });
          io.err(`fleet: job ${job.id} (${jobLabel(job.params)}) failed: ${failure!.message}\n`);
        }
        bar.advance(jobLabel(job.params));
      };
      const t0 = performance.now();
      if (queue && url) {
        await queue.runQueued(
          pending,
          {
            url,
            name: o.queueName,
            baseDir: sweep.baseDir,
            attempts,
            onQueued: (n) => {
              if (n > 0 && !io.errIsTty) io.err(`fleet: ${n} jobs on queue '${o.queueName}' at ${queue.redact(url)}; waiting for \`fleet worker\`s\n`);
            },
          },
          done,
        );
      } else await runLocal(pending, { baseDir: sweep.baseDir, cwd }, workers, done);
      bar.stop();
      out.finish(sweep.jobs.map((j) => j.id));

      const seconds = (performance.now() - t0) / 1000;
      const summary = {
        schemaVersion: 1,
        out: outPath,
        format,
        jobs: sweep.jobs.length,
        skipped: sweep.jobs.length - pending.length,
        ran: pending.length - failures.length,
        failed: failures.length,
        seconds: Math.round(seconds * 10) / 10,
      };
      if (o.json) io.out(`${JSON.stringify(summary, null, 2)}\n`);
      else
        io.out(`${outPath}: ${summary.jobs} jobs, ${summary.ran} run now, ${summary.skipped} already there, ${summary.failed} failed (${summary.seconds} s)\n`);
      if (failures.length > 0) io.exitCode = Math.max(...failures.map((f) => f.failure.exitCode));
    });
}
