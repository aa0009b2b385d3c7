import { Option, type Command } from 'commander';
import { inputError, listPresets, loadModel } from '@fleet/core';
import { policyNames } from '@fleet/ops';
import { loadBackends } from '../backends.js';
import { compareJobs, parseInt1, parseIntList, runJob, type CompareRow } from '../compare.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';
import { COMPARE_FORMATS, formatCompare } from '../format/index.js';

/** `fleet compare`: backends × policies × batch sizes for one model. */
export function registerCompare(program: Command, io: Io): void {
  program
    .command('compare')
    .description('compare decode TPOT, L2 hit rate and HBM traffic across backends, policies and batch sizes')
    .option('--model <name|path>', `preset (${listPresets().join(', ')}), a config.json, or a directory with config.json and *.safetensors`, 'qwen3-8b')
    .option('--backends <list>', 'comma-separated backend names (default: all installed)')
    .option('--policies <list>', `comma-separated policies (default: each backend's own; known: ${policyNames().join(', ')})`)
    .option('--batch <list>', 'comma-separated batch sizes', '1,8,32')
    .option('--prompt <n>', 'prompt tokens in the KV cache before decoding', '64')
    .option('--decode <n>', 'decode tokens; TPOT is their mean', '1024')
    .option('--positions <n>', 'decode positions simulated (evenly spaced; TPOT is near-linear in position)', '1')
    .option('--sample-layers <n>', 'decoder layers simulated; the rest repeat the steady-state layer', '3')
    .addOption(new Option('--format <fmt>', 'output format').choices(COMPARE_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .action(async (o) => {
      const model = loadModel(o.model);
      const registry = await loadBackends(io.cwd);
      const backends = o.backends ? (o.backends as string).split(',').map((n) => registry.get(n.trim())) : registry.all();
      const known = new Set([...policyNames(), ...registry.all().flatMap((b) => b.policies.map((p) => p.policy))]);
      const policies = o.policies ? (o.policies as string).split(',').map((p) => p.trim()) : null;
      for (const p of policies ?? []) if (!known.has(p)) throw inputError(`--policies: unknown policy '${p}' (known: ${[...known].join(', ')})`);
      const opts = {
        backends,
        policies,
        batches: parseIntList('--batch', o.batch),
        prompt: parseInt1('--prompt', o.prompt, 0, 1_000_000),
        decode: parseInt1('--decode', o.decode, 1, 1_000_000),
        positions: parseInt1('--positions', o.positions, 1, 64),
        layers: parseInt1('--sample-layers', o.sampleLayers, 1, 1000),
      };
      const jobs = compareJobs(opts);
      const bar = progress(io, jobs.length);
      const rows: CompareRow[] = [];
      for (const job of jobs) {
        bar.tick(`${job.backend.name} ${job.policy} b${job.batch}`);
        rows.push(runJob(model, job, opts));
      }
      bar.stop();
      const sampling = {
        decodePositions: opts.positions,
        layersSimulated: Math.min(opts.layers, model.numLayers),
        layersTotal: model.numLayers,
        note: `TPOT is the mean over ${opts.decode} decode positions, estimated from ${Math.min(opts.positions, opts.decode)} simulated position(s); ${Math.min(opts.layers, model.numLayers)} of ${model.numLayers} layers simulated, the rest repeat the steady-state layer`,
      };
      io.out(formatCompare(o.json ? 'json' : o.format, { model, sampling, rows }));
    });

}
