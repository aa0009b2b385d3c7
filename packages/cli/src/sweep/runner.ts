/**
 * Runs one sweep job through the same path as `fleet compare` (`runJob`) and shapes its
 * result line. Used in-process, by local worker threads and by queue workers alike, so a
 * job's line is the same wherever it runs.
 */
import { FleetError, loadModel, parseRouting, type BackendRegistry, type ModelSpec } from '@fleet/core';
import { parseWeightType } from '@fleet/ops';
import { loadBackends } from '../backends.js';
import { runJob, type CompareRow } from '../compare.js';
import { SWEEP_AXES, overridesOfParams } from './axes.js';
import { modelPath, type SweepJobSpec } from './spec.js';
import { withFlags } from '../flags.js';
import { resolve } from 'node:path';

/**
 * One line of a sweep's output: `id`, `model`, the comparison row (the `fleet compare --json`
 * result contract) and then the job's other parameters.
 */
export type SweepResult = { id: string; model: string } & CompareRow & Record<string, unknown>;

/** What a job needs besides its parameters: where model paths and backends are found. */
export interface SweepContext {
  /** Folder relative model paths resolve against (the spec's). */
  baseDir: string;
  /** Where `fleet.config.json` and installed backends are looked for. */
  cwd: string;
}

/** A failed job as it crosses a thread or a queue: the message and the CLI exit code. */
export interface JobFailure {
  message: string;
  exitCode: 1 | 2 | 3;
}

/** Loads backends once and models on first use, then runs jobs. */
export class SweepJobRunner {
  private readonly models = new Map<string, ModelSpec>();
  private constructor(
    private readonly registry: BackendRegistry,
    private readonly ctx: SweepContext,
  ) {}

  static async create(ctx: SweepContext): Promise<SweepJobRunner> {
    return new SweepJobRunner(await loadBackends(ctx.cwd), ctx);
  }

  run(job: SweepJobSpec): SweepResult {
    const p = job.params;
    const path = modelPath(p.model, this.ctx.baseDir);
    let model = this.models.get(path);
    if (!model) {
      model = loadModel(path);
      this.models.set(path, model);
    }
    const backend = this.registry.get(p.backend);
    const weights = parseWeightType(p.weights, 'weights');
    const row = runJob(
      model,
      { backend, policy: p.policy, batch: p.batch, tp: p.tp ?? 1 },
      {
        backends: [backend],
        policies: [p.policy],
        batches: [p.batch],
        phase: p.phase ?? 'decode',
        prompt: p.prompt,
        ...(p.chunk !== null ? { chunk: p.chunk } : {}),
        decode: p.decode,
        positions: p.positions,
        layers: p.sampleLayers,
        overrides: overridesOfParams(p),
        weights,
        maxSimSteps: p.maxSimSteps,
        ep: p.ep ?? 1,
        routing: parseRouting(p.routing === null ? 'uniform' : routingPath(p.routing, this.ctx.baseDir)),
      },
    );
    return resultLine(job, row);
  }
}

/** A routing spec as the parser takes it: a histogram file's path resolves against the spec's folder. */
function routingPath(routing: string, baseDir: string): string {
  return /^(uniform|zipf:)/.test(routing) ? routing : resolve(baseDir, routing);
}

/** `{ id, model, ...row, <other parameters> }`: fixed key order, so lines compare byte for byte. */
export function resultLine(job: SweepJobSpec, row: CompareRow): SweepResult {
  const rest: Record<string, unknown> = {};
  for (const a of SWEEP_AXES) if (a.param !== 'model' && a.rowField === undefined) rest[a.param] = job.params[a.param];
  return { id: job.id, model: job.params.model, ...row, ...rest } as SweepResult;
}

/** A thrown error as a `JobFailure` (Fleet's own errors keep their exit code). */
export function toFailure(e: unknown): JobFailure {
  if (e instanceof FleetError) return { message: withFlags(e.message), exitCode: e.exitCode };
  return { message: `internal error: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, exitCode: 1 };
}
