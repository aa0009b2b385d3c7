import { Option, type Command } from 'commander';
import { compareJobs, runJob, type CompareRow } from '../compare.js';
import { addCompareOptions, resolveCompareOptions } from '../report/compare-options.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';
import { COMPARE_FORMATS, formatCompare } from '../format/index.js';

/** `fleet compare`: backends × policies × batch sizes for one model. */
export function registerCompare(program: Command, io: Io): void {
  addCompareOptions(program.command('compare').description('compare decode TPOT, L2 hit rate and HBM traffic across backends, policies and batch sizes'))
    .addOption(new Option('--format <fmt>', 'output format').choices(COMPARE_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .action(async (o) => {
      const { model, opts, sampling, overrides } = await resolveCompareOptions(o, io);
      const jobs = compareJobs(opts);
      const bar = progress(io, jobs.length);
      const rows: CompareRow[] = [];
      for (const job of jobs) {
        bar.tick(`${job.backend.name} ${job.policy} b${job.batch}`);
        rows.push(runJob(model, job, opts));
      }
      bar.stop();
      io.out(formatCompare(o.json ? 'json' : o.format, { model, sampling, rows, overrides }));
    });
}
