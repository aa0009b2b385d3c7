import { Option, type Command } from 'commander';
import { compareJobs, parseInt1, type CompareRow } from '../compare.js';
import { defaultJobs, runSweep } from '../parallel/pool.js';
import { addCompareOptions, resolveCompareOptions } from '../report/compare-options.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';
import { COMPARE_FORMATS, formatCompare } from '../format/index.js';
import type { Phase } from '../compare.js';

/** Tokens through one step at and above which a run is announced as long (a chunked 8K prompt at batch 8 is 16K). */
const HEAVY_STEP_TOKENS = 8192;

/** Tokens one simulated step carries: the decode batch, a prefill chunk per request, or a mixed step's. */
function stepTokens(phase: Phase, batch: number, prompt: number, chunk: number | undefined): number {
  if (phase === 'prefill') return batch * Math.min(prompt, chunk ?? prompt);
  if (phase === 'mixed') return batch + (chunk ?? 512);
  return batch;
}

/**
 * What stops a comparison early: Ctrl-C, the time limit, or the caller's signal. `reason`
 * says which, once one has.
 */
export function stopper(io: Io, limitSeconds: number | undefined): { signal: AbortSignal; reason: string | null; dispose(): void } {
  const ctl = new AbortController();
  const state = { signal: ctl.signal, reason: null as string | null, dispose: () => {} };
  const fire = (reason: string) => {
    if (state.reason) return;
    state.reason = reason;
    ctl.abort();
  };
  const onSigint = () => fire('interrupted');
  process.once('SIGINT', onSigint);
  const timer = limitSeconds === undefined ? undefined : setTimeout(() => fire(`stopped at --time-limit ${limitSeconds} s`), limitSeconds * 1000);
  const onAbort = () => fire('interrupted');
  if (io.signal?.aborted) fire('interrupted');
  io.signal?.addEventListener('abort', onAbort, { once: true });
  state.dispose = () => {
    process.off('SIGINT', onSigint);
    if (timer) clearTimeout(timer);
    io.signal?.removeEventListener('abort', onAbort);
  };
  return state;
}

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
    .option('--time-limit <seconds>', 'stop after this long, print the configurations that finished and exit 2 (default: no limit)')
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
        ...(opts.customAllReduce === false ? { customAllReduce: false } : {}),
      };
      const limit = o.timeLimit === undefined ? undefined : parseInt1('--time-limit', o.timeLimit, 1, 1e7);
      const heavy = Math.max(...jobs.map((j) => stepTokens(opts.phase ?? 'decode', j.batch, j.prompt, opts.chunk)));
      // A time limit, or steps that take minutes, run on worker threads so this thread can stop
      // them mid-step. Otherwise one thread runs in-process (a worker would load every module
      // again, about half a second), reporting and stopping between configurations.
      const isolate = threads > 1 || limit !== undefined || (jobs.length > 1 && heavy >= HEAVY_STEP_TOKENS);
      if (jobs.length >= 8 || heavy >= HEAVY_STEP_TOKENS)
        io.err(
          `fleet: ${jobs.length} configuration${jobs.length === 1 ? '' : 's'} on ${Math.min(threads, jobs.length)} thread${threads === 1 ? '' : 's'}` +
            (heavy >= HEAVY_STEP_TOKENS ? `; steps of up to ${heavy} tokens take minutes each (use --chunk, a smaller --batch, or --time-limit)` : '') +
            '\n',
        );
      const stop = stopper(io, limit);
      const bar = progress(io, jobs.length, 'simulating', { log: jobs.length > 1 });
      const done = await runSweep(spec, jobs, threads, bar.advance, { signal: stop.signal, isolate });
      bar.stop();
      stop.dispose();
      const rows = done.filter((r): r is CompareRow => r !== undefined);
      io.out(formatCompare(o.json ? 'json' : o.format, { model, sampling, rows, overrides }));
      if (stop.reason && rows.length < jobs.length) {
        io.err(`fleet: ${stop.reason}: ${rows.length} of ${jobs.length} configurations finished (printed above)\n`);
        io.exitCode = stop.reason === 'interrupted' ? 130 : 2;
      }
    });
}
