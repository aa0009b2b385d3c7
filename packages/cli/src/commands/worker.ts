import type { Command } from 'commander';
import { inputError } from '@fleet/core';
import { parseInt1 } from '../compare.js';
import type { Io } from '../io.js';

/** `fleet worker`: run sweep jobs from a BullMQ queue until stopped (SIGINT or SIGTERM). */
export function registerWorker(program: Command, io: Io): void {
  program
    .command('worker')
    .description('run `fleet sweep --queue` jobs from a Redis queue until stopped; start any number, on any machines')
    .requiredOption('--queue <url>', 'Redis holding the queue (redis://host:port)')
    .option('--queue-name <name>', 'BullMQ queue name', 'fleet-sweep')
    .option('--concurrency <n>', 'jobs at a time, each on its own thread (default: all cores)')
    .option('--lock-duration <ms>', "a job's lock lifetime: a dead worker's job goes back on the queue after about this", '30000')
    .option('--stalled-interval <ms>', 'how often to look for jobs whose worker died', '30000')
    .action(async (o) => {
      const { parseQueueUrl, probeRedis, redact, startWorker } = await import('../sweep/queue.js');
      const { defaultWorkers } = await import('../sweep/local.js');
      const url = parseQueueUrl('--queue', o.queue);
      if (!/^[A-Za-z0-9._-]{1,100}$/.test(o.queueName)) throw inputError(`--queue-name: '${o.queueName}' must be 1-100 letters, digits, '.', '_' or '-'`);
      const concurrency = o.concurrency === undefined ? defaultWorkers() : parseInt1('--concurrency', o.concurrency, 1, 1024);
      const lockDurationMs = parseInt1('--lock-duration', o.lockDuration, 100, 3_600_000);
      const stalledIntervalMs = parseInt1('--stalled-interval', o.stalledInterval, 100, 3_600_000);
      await probeRedis('--queue', url);
      const log = (line: string) => io.err(`fleet worker: ${line}\n`);
      const worker = startWorker({ url, name: o.queueName, concurrency, lockDurationMs, stalledIntervalMs, log });
      log(`listening on queue '${o.queueName}' at ${redact(url)}, ${concurrency} job(s) at a time`);
      await new Promise<void>((resolveStop) => {
        const stop = (signal: string) => {
          log(`${signal}: finishing running jobs`);
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          // close() waits for running jobs; their results still reach the queue.
          void worker.close().then(() => resolveStop());
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
