import { addCounters, buildPrefillGraph, inputError, zeroCounters, type Backend, type ModelSpec } from '@fleet/core';
import { DEFAULT_MAX_SIM_STEPS, doesNotFit, parallelismOf, parallelismProblem, residentBytes } from './decode.js';
import { resolvePolicy } from '../policies/registry.js';
import { fp8RefusalOn } from '../policies/options.js';
import {
  layerKinds,
  layersToSample,
  simulateStep,
  stepSimulation,
  worseExtrapolation,
  type LayerExtrapolation,
  type StepOptions,
  type StepResult,
} from './step.js';
import { NO_TRAFFIC, trafficOf, type StepTraffic } from './traffic.js';

export interface PrefillOptions extends StepOptions {
  /** Prompt tokens per request. */
  prompt: number;
  /** Chunked prefill: tokens per step (default: the whole prompt in one step). */
  chunk?: number;
  /** Chunks simulated (evenly spaced, at least the first and the last); the others are interpolated. Default 2. */
  chunksSimulated?: number;
  /** Tensor-parallel degree (as `DecodeOptions.tp`). */
  tp?: number;
  /** Expert-parallel degree (as `DecodeOptions.ep`). */
  ep?: number;
}

export interface PrefillPrediction extends StepTraffic {
  status: 'ok' | 'unsupported';
  reason?: string;
  /** Time to first token: every chunk of the prompt through the model, the LM head on the last token. */
  ttftMs: number;
  /** Prompt tokens processed per second (batch × prompt / TTFT). */
  tokensPerSecond: number;
  tasksPerLayer: number;
  launches: number;
  /** What was simulated; `layersExtrapolated` says how the other layers were filled in. */
  sampling: { chunks: number; chunksSimulated: number[]; layersSimulated: number; layersTotal: number; layersExtrapolated: LayerExtrapolation };
  tp: number;
  ep: number;
  devices: number;
  perDeviceBytes: number;
}

/**
 * Predict prefill for one (backend, policy, batch, prompt): the prompt runs in chunks (one
 * step without `chunk`), each attending causally over the chunks before it; a few chunks
 * are simulated with a few layers each, the layers extrapolated from the steady-state layer
 * and the chunks between interpolated linearly in their position (attention grows linearly
 * with the context a chunk sees; everything else stays).
 */
export function predictPrefill(backend: Backend, model: ModelSpec, opts: PrefillOptions): PrefillPrediction {
  const chunk = opts.chunk ?? opts.prompt;
  const nChunks = Math.ceil(opts.prompt / Math.max(1, chunk));
  const S = layersToSample(layerKinds(model, opts.prompt), opts.layers ?? 3);
  const sampling = {
    chunks: nChunks,
    chunksSimulated: [] as number[],
    layersSimulated: S,
    layersTotal: model.numLayers,
    layersExtrapolated: 'none' as LayerExtrapolation,
  };
  const par = parallelismOf(opts);
  const perDevice = Number.isInteger(opts.prompt) && opts.prompt >= 1 ? residentBytes(model, opts.batch, opts.prompt, opts.weights, par.tp) : NaN;
  const unsupported = (reason: string): PrefillPrediction => ({
    status: 'unsupported',
    reason,
    ttftMs: NaN,
    tokensPerSecond: NaN,
    ...NO_TRAFFIC,
    tasksPerLayer: NaN,
    launches: NaN,
    sampling,
    ...par,
    perDeviceBytes: perDevice,
  });
  if (!Number.isInteger(opts.prompt) || opts.prompt < 1) throw inputError(`\`prompt\` must be a positive integer for prefill (got ${opts.prompt})`, 'prompt');
  if (!Number.isInteger(chunk) || chunk < 1) throw inputError(`\`chunk\` must be a positive integer (got ${chunk})`, 'chunk');
  const resolved = resolvePolicy(backend, opts.policy, opts.overrides, opts.policies);
  if ('reason' in resolved) return unsupported(resolved.reason);
  const { policy } = resolved;
  if (policy.prefill) return unsupported(policy.prefill);
  const problem = parallelismProblem(backend, model, par);
  if (problem) return unsupported(problem);
  if (par.tp > 1 && policy.tensorParallel) return unsupported(`${policy.name} has no tensor-parallel schedule`);
  const refused =
    policy.refusesOptions?.({ phase: 'prefill', weights: opts.weights, overrides: opts.overrides, tp: par.tp, ep: par.ep }) ??
    fp8RefusalOn(backend, opts.weights);
  if (refused) return unsupported(refused);
  const capacity = backend.topology.memory.hbm.capacityBytes;
  if (perDevice > capacity) return unsupported(doesNotFit(backend.name, perDevice, capacity, par.tp));

  const k = Math.min(nChunks, Math.max(2, opts.chunksSimulated ?? 2));
  // Evenly spaced chunk indices, first and last included when two or more are simulated.
  const picked = k === 1 ? [nChunks - 1] : Array.from({ length: k }, (_, i) => Math.round((i * (nChunks - 1)) / (k - 1)));
  // A sliding window stops a chunk's attention growing once its queries' windows are full:
  // the chunks either side of that bend are simulated too, so the interpolation follows it.
  const window = model.slidingWindow?.tokens;
  if (window !== undefined && window < opts.prompt && k > 1) {
    const bends = [Math.floor(window / chunk) - 1, Math.floor(window / chunk), Math.ceil((window - 1) / chunk)];
    for (const i of bends) if (i > 0 && i < nChunks - 1 && !picked.includes(i)) picked.push(i);
    picked.sort((a, b) => a - b);
  }
  sampling.chunksSimulated = picked.map((i) => i * chunk);
  const layers = Array.from({ length: S }, (_, i) => i);
  const budget = opts.maxSimSteps ?? DEFAULT_MAX_SIM_STEPS;
  const results: { index: number; r: StepResult }[] = [];
  for (const i of picked) {
    const len = Math.min(chunk, opts.prompt - i * chunk);
    const g = buildPrefillGraph(model, {
      batch: opts.batch,
      promptLen: len,
      contextLen: i * chunk,
      routing: opts.routing,
      ...(par.tp > 1 ? { tp: par.tp } : {}),
    });
    const r = simulateStep(backend, resolved, g, {
      ...stepSimulation(model, opts, layers, i * chunk + len),
      maxSimSteps: budget,
      tooLarge: (steps) =>
        inputError(
          `simulation too large: ${model.name} prefill of ${len} tokens × batch ${opts.batch} needs ${steps.toExponential(2)} tile steps (limit ${budget.toExponential(2)}); raise it with \`maxSimSteps\`, use \`chunk\`, or simulate fewer layers with \`layers\``,
          'maxSimSteps',
        ),
    });
    results.push({ index: i, r });
    sampling.layersExtrapolated = worseExtrapolation(sampling.layersExtrapolated, r.extrapolation);
  }
  // Interpolate the chunks not simulated: time and bytes linear in the chunk's index.
  const at = (i: number, f: (r: StepResult) => number): number => {
    if (results.length === 1) return f(results[0]!.r);
    let j = results.findIndex((x) => x.index >= i);
    if (j <= 0) j = 1;
    const a = results[j - 1]!;
    const b = results[j]!;
    const t = (i - a.index) / (b.index - a.index);
    return f(a.r) + t * (f(b.r) - f(a.r));
  };
  let timeNs = 0;
  let launches = 0;
  const total = zeroCounters();
  for (let i = 0; i < nChunks; i++) {
    timeNs += at(i, (r) => r.timeNs);
    launches += at(i, (r) => r.launches);
  }
  // Counters: the simulated chunks' mean, once per chunk.
  for (const { r } of results) addCounters(total, r.counters, nChunks / results.length);
  return {
    status: 'ok',
    ttftMs: timeNs / 1e6,
    tokensPerSecond: (opts.batch * opts.prompt) / (timeNs * 1e-9),
    ...trafficOf(total),
    tasksPerLayer: results[results.length - 1]!.r.tasksPerLayer,
    launches,
    sampling,
    ...par,
    perDeviceBytes: perDevice,
  };
}
