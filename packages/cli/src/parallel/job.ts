import { loadModel, parseRouting, type ModelSpec } from '@fleet/core';
import { parseWeightType, type PolicyOverrides } from '@fleet/ops';
import { loadBackends } from '../backends.js';
import { policiesOf } from '../policies.js';
import { runJob, type CompareOptions, type CompareRow, type Phase } from '../compare.js';

/** Everything a worker needs to run comparison jobs: plain data, so it crosses threads. */
export interface SweepSpec {
  model: string;
  cwd: string;
  phase: Phase;
  prompt: number;
  chunk?: number;
  decode: number;
  positions: number;
  layers: number;
  weights: string;
  maxSimSteps?: number;
  overrides?: PolicyOverrides;
  /** `--routing` as given (parsed again in each worker). */
  routing?: string;
  /** Expert-parallel degree (default 1). */
  ep?: number;
  /** False: all-reduces through the collective library alone (`--no-custom-all-reduce`). */
  customAllReduce?: boolean;
}

export interface SweepJob {
  index: number;
  backend: string;
  policy: string;
  batch: number;
  prompt: number;
  /** Tensor-parallel degree (default 1). */
  tp?: number;
}

/** Loads the model and backends once, then runs jobs: used by workers and in-process alike. */
export class SweepRunner {
  private constructor(
    private readonly model: ModelSpec,
    private readonly opts: CompareOptions,
    private readonly registry: Awaited<ReturnType<typeof loadBackends>>,
  ) {}

  static async create(spec: SweepSpec): Promise<SweepRunner> {
    const registry = await loadBackends(spec.cwd);
    const opts: CompareOptions = {
      installed: policiesOf(registry),
      backends: [],
      policies: null,
      batches: [],
      phase: spec.phase,
      prompt: spec.prompt,
      ...(spec.chunk !== undefined ? { chunk: spec.chunk } : {}),
      decode: spec.decode,
      positions: spec.positions,
      layers: spec.layers,
      overrides: spec.overrides,
      weights: parseWeightType(spec.weights),
      maxSimSteps: spec.maxSimSteps,
      routing: parseRouting(spec.routing ?? 'uniform'),
      ...(spec.ep !== undefined ? { ep: spec.ep } : {}),
      ...(spec.customAllReduce === false ? { customAllReduce: false } : {}),
    };
    return new SweepRunner(loadModel(spec.model), opts, registry);
  }

  run(job: SweepJob): CompareRow {
    return runJob(
      this.model,
      { backend: this.registry.get(job.backend), policy: job.policy, batch: job.batch, prompt: job.prompt, tp: job.tp ?? 1 },
      this.opts,
    );
  }
}
