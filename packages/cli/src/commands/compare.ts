import { Option, type Command } from 'commander';
import { compareJobs, parseInt1, type CompareRow } from '../compare.js';
import { defaultJobs, runSweep } from '../parallel/pool.js';
import { addCompareOptions, resolveCompareOptions } from '../report/compare-options.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';
import { COMPARE_FORMATS, formatCompare } from '../format/index.js';

/** `fleet compare`: backends × policies × batch sizes for one model. */
export function registerCompare(program: Command, io: Io): void {
  addCompareOptions(
    program
      .command('compare')
      .description('compare decode TPOT (or prefill TTFT), L2 hit rate and HBM traffic across backends, policies, batch sizes and prompts'),
  )
    .addOption(new Option('--format <fmt>', 'output format').choices(COMPARE_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('--jobs <n>', 'worker threads for the sweep (default: all cores when there are 8 or more runs)')
    .action(async (o) => {
      const { model, opts, sampling, overrides } = await resolveCompareOptions(o, io);
      const jobs = compareJobs(opts).map((j, index) => ({ index, backend: j.backend.name, policy: j.policy, batch: j.batch, prompt: j.prompt, tp: j.tp }));
      // Worker start-up (module loading) costs about a second: only worth it for real sweeps.
      const threads = o.jobs === undefined ? (jobs.length >= 8 ? defaultJobs() : 1) : parseInt1('--jobs', o.jobs, 1, 256);
      const spec = {
        model: o.model,
        cwd: io.cwd ?? process.cwd(),
        phase: opts.phase ?? 'decode',
        prompt: opts.prompt,
        ...(opts.chunk !== undefined ? { chunk: opts.chunk } : {}),
        decode: opts.decode,
        positions: opts.positions,
        layers: opts.layers,
        weights: opts.weights?.name ?? 'bf16',
        maxSimSteps: opts.maxSimSteps,
        overrides,
        routing: o.routing,
        ...(opts.ep !== undefined ? { ep: opts.ep } : {}),
      };
      const bar = progress(io, jobs.length);
      const rows: CompareRow[] = await runSweep(spec, jobs, threads, bar.tick);
      bar.stop();
      io.out(formatCompare(o.json ? 'json' : o.format, { model, sampling, rows, overrides }));
    });
}
