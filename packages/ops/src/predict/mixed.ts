import { buildMixedGraph, inputError, isMoeLayer, l2HitRate, type Backend, type ModelSpec, type Routing, type SimEvent } from '@fleet/core';
import { POLICIES, withOverrides, type PolicyOverrides } from '../policies/policy.js';
import type { WeightType } from '../quant/weight-type.js';
import { DEFAULT_MAX_SIM_STEPS, residentBytes } from './decode.js';
import { prefillUnsupported } from './prefill.js';
import { simulateStep } from './step.js';

export interface MixedOptions {
  policy: string;
  /** Decode requests in the step. */
  batch: number;
  /** Tokens each decode request has cached. */
  context: number;
  /** Prompt tokens of the chunk riding along. */
  chunk: number;
  /** Tokens of that prompt cached by earlier chunks. Default 0. */
  chunkContext?: number;
  layers?: number;
  granularityBytes?: number;
  weights?: WeightType;
  maxSimSteps?: number;
  overrides?: PolicyOverrides;
  /** MoE models: expert routing (default uniform). */
  routing?: Routing;
  observers?: ((events: readonly SimEvent[]) => void)[];
}

export interface MixedPrediction {
  status: 'ok' | 'unsupported';
  reason?: string;
  /** Time of the step: every decode request's next token and the chunk's forward. */
  stepMs: number;
  /** Tokens the step processes per second (decode tokens + chunk tokens). */
  tokensPerSecond: number;
  l2HitRate: number;
  hbmReadBytes: number;
  hbmWriteBytes: number;
  fabricReadBytes: number;
  tasksPerLayer: number;
}

/**
 * Predict one continuous-batching step: `batch` decode requests and one prefill chunk share
 * the step's linear layers, attention runs per kind. Its time is what each decode request
 * waits for its next token while the chunk rides along.
 */
export function predictMixed(backend: Backend, model: ModelSpec, opts: MixedOptions): MixedPrediction {
  const found = POLICIES.find((p) => p.name === opts.policy);
  const def = found ? withOverrides(found, opts.overrides) : undefined;
  const support = backend.policies.find((p) => p.policy === opts.policy);
  const unsupported = (reason: string): MixedPrediction => ({
    status: 'unsupported', reason, stepMs: NaN, tokensPerSecond: NaN, l2HitRate: NaN, hbmReadBytes: NaN, hbmWriteBytes: NaN, fabricReadBytes: NaN, tasksPerLayer: NaN,
  });
  if (!Number.isInteger(opts.chunk) || opts.chunk < 1) throw inputError(`--chunk must be a positive integer (got ${opts.chunk})`);
  if (!support) return unsupported(`backend ${backend.name} does not declare policy '${opts.policy}'`);
  if (support.unsupportedReason) return unsupported(support.unsupportedReason);
  if (!def) return unsupported(`policy '${opts.policy}' is declared by ${backend.name} but has no compiler in @fleet/ops yet`);
  const why = prefillUnsupported(def);
  if (why) return unsupported(why);
  const chunkContext = opts.chunkContext ?? 0;
  const need = residentBytes(model, opts.batch, opts.context + 1, opts.weights) + residentBytes(model, 1, chunkContext + opts.chunk, opts.weights) - residentBytes(model, 1, 0, opts.weights);
  const capacity = backend.topology.memory.hbm.capacityBytes;
  if (need > capacity) {
    return unsupported(`does not fit: weights and KV cache need ${(need / 1e9).toFixed(1)} GB, ${backend.name} has ${(capacity / 1e9).toFixed(1)} GB of device memory`);
  }
  const S = Math.max(1, Math.min(model.numLayers, opts.layers ?? 3));
  const budget = opts.maxSimSteps ?? DEFAULT_MAX_SIM_STEPS;
  const g = buildMixedGraph(model, { batch: opts.batch, contextLen: opts.context, chunk: opts.chunk, chunkContext , routing: opts.routing });
  const r = simulateStep(backend, def, support, g, {
    layers: Array.from({ length: S }, (_, i) => i),
    weights: opts.weights,
    granularityBytes: opts.granularityBytes,
    observers: opts.observers,
    isMoeLayer: (l) => isMoeLayer(model, l),
    maxSimSteps: budget,
    tooLarge: (steps) =>
      inputError(`simulation too large: a step of ${opts.batch} decode requests and a ${opts.chunk}-token chunk needs ${steps.toExponential(2)} tile steps (limit ${budget.toExponential(2)}); raise it with --max-sim-steps or simulate fewer layers with --sample-layers`),
  });
  return {
    status: 'ok',
    stepMs: r.timeNs / 1e6,
    tokensPerSecond: (opts.batch + opts.chunk) / (r.timeNs * 1e-9),
    l2HitRate: l2HitRate(r.counters),
    hbmReadBytes: r.counters.hbmReadBytes,
    hbmWriteBytes: r.counters.hbmWriteBytes,
    fabricReadBytes: r.counters.fabricReadBytes,
    tasksPerLayer: r.tasksPerLayer,
  };
}
