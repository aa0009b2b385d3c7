import { buildMixedGraph, inputError, type Backend, type ModelSpec } from '@fleet/core';
import { DEFAULT_MAX_SIM_STEPS, doesNotFit, residentBytes } from './decode.js';
import { resolvePolicy } from '../policies/registry.js';
import { fp8RefusalOn } from '../policies/options.js';
import { layerKinds, layersToSample, simulateStep, stepSimulation, type StepOptions } from './step.js';
import { NO_TRAFFIC, trafficOf, type StepTraffic } from './traffic.js';

export interface MixedOptions extends StepOptions {
  /** Tokens each decode request (`batch` of them) has cached. */
  context: number;
  /** Prompt tokens of the chunk riding along. */
  chunk: number;
  /** Tokens of that prompt cached by earlier chunks. Default 0. */
  chunkContext?: number;
}

export interface MixedPrediction extends StepTraffic {
  status: 'ok' | 'unsupported';
  reason?: string;
  /** Time of the step: every decode request's next token and the chunk's forward. */
  stepMs: number;
  /** Tokens the step processes per second (decode tokens + chunk tokens). */
  tokensPerSecond: number;
  tasksPerLayer: number;
}

/**
 * Predict one continuous-batching step: `batch` decode requests and one prefill chunk share
 * the step's linear layers, attention runs per kind. Its time is what each decode request
 * waits for its next token while the chunk rides along.
 */
export function predictMixed(backend: Backend, model: ModelSpec, opts: MixedOptions): MixedPrediction {
  const unsupported = (reason: string): MixedPrediction => ({
    status: 'unsupported',
    reason,
    stepMs: NaN,
    tokensPerSecond: NaN,
    ...NO_TRAFFIC,
    tasksPerLayer: NaN,
  });
  if (!Number.isInteger(opts.chunk) || opts.chunk < 1) throw inputError(`\`chunk\` must be a positive integer (got ${opts.chunk})`, 'chunk');
  const resolved = resolvePolicy(backend, opts.policy, opts.overrides, opts.policies);
  if ('reason' in resolved) return unsupported(resolved.reason);
  if (resolved.policy.prefill) return unsupported(resolved.policy.prefill);
  const refused = resolved.policy.refusesOptions?.({ phase: 'mixed', weights: opts.weights, overrides: opts.overrides }) ?? fp8RefusalOn(backend, opts.weights);
  if (refused) return unsupported(refused);
  const chunkContext = opts.chunkContext ?? 0;
  const need =
    residentBytes(model, opts.batch, opts.context + 1, opts.weights) +
    residentBytes(model, 1, chunkContext + opts.chunk, opts.weights) -
    residentBytes(model, 1, 0, opts.weights);
  const capacity = backend.topology.memory.hbm.capacityBytes;
  if (need > capacity) return unsupported(doesNotFit(backend.name, need, capacity, 1));
  const kvLen = Math.max(opts.context + 1, chunkContext + opts.chunk);
  const S = layersToSample(layerKinds(model, kvLen), opts.layers ?? 3);
  const budget = opts.maxSimSteps ?? DEFAULT_MAX_SIM_STEPS;
  const g = buildMixedGraph(model, { batch: opts.batch, contextLen: opts.context, chunk: opts.chunk, chunkContext, routing: opts.routing });
  const r = simulateStep(backend, resolved, g, {
    ...stepSimulation(
      model,
      opts,
      Array.from({ length: S }, (_, i) => i),
      kvLen,
    ),
    maxSimSteps: budget,
    tooLarge: (steps) =>
      inputError(
        `simulation too large: a step of ${opts.batch} decode requests and a ${opts.chunk}-token chunk needs ${steps.toExponential(2)} tile steps (limit ${budget.toExponential(2)}); raise it with \`maxSimSteps\` or simulate fewer layers with \`layers\``,
        'maxSimSteps',
      ),
  });
  return {
    status: 'ok',
    stepMs: r.timeNs / 1e6,
    tokensPerSecond: (opts.batch + opts.chunk) / (r.timeNs * 1e-9),
    ...trafficOf(r.counters),
    tasksPerLayer: r.tasksPerLayer,
  };
}
