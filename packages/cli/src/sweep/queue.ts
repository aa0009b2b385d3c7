/**
 * Sweeps across machines on a BullMQ queue in Redis: `fleet sweep --queue` adds the jobs and
 * collects results; any number of `fleet worker`s, anywhere that reaches Redis, run them.
 *
 * Jobs are keyed by their sweep job id, so adding a job twice (a rerun, a second sweep of the
 * same configuration) is one job. Results stay in Redis until the sweep that collects them
 * removes them, so a sweep that was stopped and started again still gets the results that
 * finished meanwhile. A worker that dies mid-job stops renewing its lock; another worker's
 * stalled-job check puts the job back on the queue.
 */
import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { inputError } from '@fleet/core';
import { jobLabel } from './axes.js';
import { compiledPath, type OnJobDone } from './local.js';
import type { SweepResult } from './runner.js';
import type { SweepJobSpec } from './spec.js';

/** What a queued job carries: the job and where its model paths resolve. */
export interface QueueJobData {
  job: SweepJobSpec;
  baseDir: string;
}

/** Check a `redis://` or `rediss://` URL; the error names the flag. */
export function parseQueueUrl(flag: string, url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw inputError(`${flag}: '${url}' is not a URL (expected redis://host:port)`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw inputError(`${flag}: '${url}' is not a redis:// or rediss:// URL`);
  if (u.hostname === '') throw inputError(`${flag}: '${url}' has no host (expected redis://host:port)`);
  return url;
}

/** BullMQ's connection: workers must retry Redis commands indefinitely (BullMQ requires it). */
export function connectionOf(url: string): ConnectionOptions {
  return { url, maxRetriesPerRequest: null } as ConnectionOptions;
}

/** Fail fast with one line when Redis cannot be reached (rather than retrying forever). */
export async function probeRedis(flag: string, url: string, timeoutMs = 5000): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // The 'error' event carries the cause (ECONNREFUSED, ...); connect() only says the connection closed.
  let cause: string | undefined;
  client.on('error', (e: Error) => (cause ??= e.message));
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    throw inputError(`${flag}: cannot reach Redis at ${redact(url)}: ${(cause ?? (e as Error).message).split('\n')[0]}`);
  } finally {
    client.disconnect();
  }
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** BullMQ job ids must not be plain integers; ours are hex, which can be all digits. */
const queueJobId = (id: string) => `sweep-${id}`;

export interface QueueSweepOptions {
  url: string;
  name: string;
  baseDir: string;
  /** Tries per job for failures other than bad input. */
  attempts: number;
  /** How often finished jobs are collected. */
  pollMs?: number;
  /** Told once the jobs are on the queue. */
  onQueued?: (added: number) => void;
}

/**
 * Put `jobs` on the queue and wait until each has finished (or failed for good), calling
 * `done` once per job; collected jobs are removed from Redis.
 */
export async function runQueued(jobs: readonly SweepJobSpec[], o: QueueSweepOptions, done: OnJobDone): Promise<void> {
  const queue = new Queue<QueueJobData, SweepResult>(o.name, { connection: connectionOf(o.url) });
  queue.on('error', () => {});
  try {
    const pending = new Map(jobs.map((j) => [queueJobId(j.id), j]));
    // Chunks keep each Redis call small; ids make re-adding a job that is already there a no-op.
    for (let i = 0; i < jobs.length; i += 500) {
      await queue.addBulk(
        jobs.slice(i, i + 500).map((job) => ({
          name: jobLabel(job.params),
          data: { job, baseDir: o.baseDir },
          opts: { jobId: queueJobId(job.id), attempts: o.attempts, backoff: { type: 'fixed', delay: 1000 } },
        })),
      );
    }
    o.onQueued?.(jobs.length);
    // Polling the finished sets (not the event stream) cannot miss a result: they stay until collected.
    while (pending.size > 0) {
      let collected = 0;
      for (const state of ['completed', 'failed'] as const) {
        const finished = (await queue.getJobs([state], 0, 499, true)) as Job<QueueJobData, SweepResult>[];
        for (const j of finished) {
          const job = j?.id ? pending.get(j.id) : undefined;
          if (!job) continue;
          pending.delete(j.id!);
          collected++;
          if (state === 'completed') done(job, j.returnvalue, null);
          else done(job, null, { message: j.failedReason || 'failed', exitCode: /UnrecoverableError/.test(j.stacktrace?.join('\n') ?? '') ? 2 : 1 });
          await queue.remove(j.id!);
        }
      }
      if (collected === 0) await new Promise((r) => setTimeout(r, o.pollMs ?? 250));
    }
  } finally {
    await queue.close();
  }
}

export interface WorkerOptions {
  url: string;
  name: string;
  concurrency: number;
  /** How long a job's lock lasts without renewal: a killed worker's job is retried after about this. */
  lockDurationMs: number;
  /** How often stalled jobs (lock expired) are looked for. */
  stalledIntervalMs: number;
  log: (line: string) => void;
}

/** Start a worker: jobs run in sandboxed worker threads, `concurrency` at a time. */
export function startWorker(o: WorkerOptions): Worker<QueueJobData, SweepResult> {
  const worker = new Worker<QueueJobData, SweepResult>(o.name, compiledPath('processor.js'), {
    connection: connectionOf(o.url),
    concurrency: o.concurrency,
    useWorkerThreads: true,
    lockDuration: o.lockDurationMs,
    stalledInterval: o.stalledIntervalMs,
    // A job may outlive a few dead workers before it is given up as failed.
    maxStalledCount: 3,
  });
  const started = new Map<string, number>();
  const tag = (j: Job<QueueJobData>) => `${j.data.job.id} ${jobLabel(j.data.job.params)}`;
  worker.on('active', (j) => {
    started.set(j.id!, performance.now());
    o.log(`start ${tag(j)} (start ${j.attemptsStarted})`);
  });
  worker.on('completed', (j) => o.log(`done ${tag(j)} in ${((performance.now() - (started.get(j.id!) ?? performance.now())) / 1000).toFixed(2)} s`));
  worker.on('failed', (j, err) => {
    if (j) o.log(`failed ${tag(j)}: ${err.message.split('\n')[0]}`);
  });
  worker.on('error', (err) => o.log(`error: ${err.message.split('\n')[0]}`));
  return worker;
}
