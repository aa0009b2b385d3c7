import { Command, CommanderError, Option } from 'commander';
import cliProgress from 'cli-progress';
import { describeModel, FleetError, inputError, listPresets, loadModel, MODEL_PRESETS, API_VERSION } from '@fleet/core';
import { policyNames } from '@fleet/ops';
import { loadBackends, topologySummary } from './backends.js';
import { compareJobs, parseInt1, parseIntList, runJob, type CompareRow } from './compare.js';
import { formatTable } from './table.js';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Whether stderr is a terminal (progress bars only then). */
  errIsTty: boolean;
  /** Where `fleet.config.json` and installed backends are looked for (default: the process's cwd). */
  cwd?: string;
}

const defaultIo: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  errIsTty: Boolean(process.stderr.isTTY),
};

/** Build the `fleet` command. */
export function buildProgram(io: Io = defaultIo): Command {
  const program = new Command('fleet')
    .description('Predict and compare LLM decode on multi-die and cluster GPUs')
    .version(`fleet 0.1.0 (backend API ${API_VERSION})`)
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

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
    .addOption(new Option('--format <fmt>', 'output format').choices(['table', 'json']).default('table'))
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
      const bar = io.errIsTty ? new cliProgress.SingleBar({ format: 'simulating {bar} {value}/{total} {job}', stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic) : null;
      bar?.start(jobs.length, 0, { job: '' });
      const rows: CompareRow[] = [];
      for (const job of jobs) {
        bar?.update(rows.length, { job: `${job.backend.name} ${job.policy} b${job.batch}` });
        rows.push(runJob(model, job, opts));
      }
      bar?.update(rows.length, { job: '' });
      bar?.stop();
      const sampling = {
        decodePositions: opts.positions,
        layersSimulated: Math.min(opts.layers, model.numLayers),
        layersTotal: model.numLayers,
        note: `TPOT is the mean over ${opts.decode} decode positions, estimated from ${Math.min(opts.positions, opts.decode)} simulated position(s); ${Math.min(opts.layers, model.numLayers)} of ${model.numLayers} layers simulated, the rest repeat the steady-state layer`,
      };
      if (o.json || o.format === 'json') {
        io.out(JSON.stringify({ schemaVersion: 1, model: model.name, sampling, results: rows }, null, 2) + '\n');
      } else {
        io.out(`${describeModel(model)}\n\n${formatTable(rows)}\n\n${sampling.note}.\n`);
      }
    });

  program
    .command('backends')
    .description('list installed backends: name, API version, topology summary')
    .option('--json', 'machine-readable output')
    .action(async (o) => {
      const registry = await loadBackends(io.cwd);
      const list = registry.all().map((b) => ({
        name: b.name,
        apiVersion: b.apiVersion,
        topology: topologySummary(b),
        policies: b.policies.map((p) => ({ policy: p.policy, supported: !p.unsupportedReason, ...(p.unsupportedReason ? { reason: p.unsupportedReason } : {}) })),
      }));
      if (o.json) io.out(JSON.stringify({ schemaVersion: 1, backends: list }, null, 2) + '\n');
      else for (const b of list) io.out(`${b.name.padEnd(10)} api ${b.apiVersion}  ${b.topology}\n`);
    });

  program
    .command('models')
    .description('list model presets')
    .option('--json', 'machine-readable output')
    .action((o) => {
      const names = listPresets();
      if (o.json) io.out(JSON.stringify({ schemaVersion: 1, models: names.map((n) => MODEL_PRESETS[n]) }, null, 2) + '\n');
      else for (const n of names) io.out(`${describeModel(MODEL_PRESETS[n]!)}\n`);
    });

  return program;
}

/** Run the CLI; returns the exit code. Bad input prints one line and exits 2; deadlocks 3. */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof FleetError) {
      io.err(`fleet: ${e.message}\n`);
      return e.exitCode;
    }
    io.err(`fleet: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
