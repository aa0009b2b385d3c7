import {
  addCounters,
  buildDecodeGraph,
  inputError,
  zeroCounters,
  type Backend,
  type BackendMetric,
  type MemoryCounters,
  type ModelSpec,
  type OpGraph,
  DTYPE_BYTES,
  parameterCount,
  activeExpertsOf,
  cachedTokenLayers,
  kvElementsPerToken,
  tensorParallelProblem,
} from '@fleet/core';
import { layerKinds, layersToSample, proofTries, simulateStep, stepSimulation, worseExtrapolation, type LayerExtrapolation, type StepOptions } from './step.js';
import { NO_TRAFFIC, trafficOf, type StepTraffic } from './traffic.js';
import { resolvePolicy } from '../policies/registry.js';
import { fp8RefusalOn, refusedInPhase } from '../policies/options.js';
import { STEP_K, TILE_M, TILE_N } from '../decompose/linear.js';
import { KV_CHUNK } from '../decompose/attention.js';
import { decoderLinearBytes } from '../quant/cost.js';
import { DENSE_BF16 } from '../quant/weight-type.js';
import type { WeightType } from '../quant/weight-type.js';

export interface DecodeOptions extends StepOptions {
  /** Prompt tokens already in the KV cache when decoding starts. */
  prompt: number;
  /** Tokens generated; TPOT is the mean over these positions. */
  decode: number;
  /** Decode positions simulated (evenly spaced); the rest interpolate. Default 2. */
  positions?: number;
  /** Tensor-parallel degree: the step runs on `tp` devices of the backend's node, one rank simulated (they are symmetric). Default 1. */
  tp?: number;
  /**
   * Expert-parallel degree for mixture-of-experts models: `ep` groups of `tp` devices, the
   * experts spread over all `tp × ep` devices (attention data-parallel over the groups).
   * Default 1; a dense model has no experts to spread.
   */
  ep?: number;
}

/** How many devices a run uses and why it may not split: the parallelism shared by decode and prefill. */
export interface Parallelism {
  tp: number;
  ep: number;
  devices: number;
}

/**
 * Check a run's parallelism against the model and the backend's node: a reason it cannot
 * run (an `unsupported` result), or null.
 */
export function parallelismProblem(backend: Backend, model: ModelSpec, p: Parallelism): string | null {
  if (p.ep > 1) {
    if (!model.moe) return `expert parallelism (ep ${p.ep}) needs a mixture-of-experts model; ${model.name} is dense`;
    return `expert parallelism (ep ${p.ep}) is not modelled yet: the step graph runs all ${model.moe.numExperts} of ${model.name}'s experts on one device`;
  }
  if (p.devices <= 1) return null;
  // The step graph shards attention heads, the dense FFN and the vocabulary; experts and latent attention are not sharded.
  if (model.moe || model.mla) return `tensor parallelism is modelled for dense models; ${model.name} has ${model.moe ? 'expert' : 'latent-attention'} layers`;
  const why = tensorParallelProblem(model, p.tp);
  if (why) return why;
  const node = backend.node;
  if (!node) return `backend ${backend.name} describes no multi-device node (tp ${p.tp} needs one)`;
  if (p.devices > node.topology.devices) return `tp ${p.tp} × ep ${p.ep} needs ${p.devices} devices; node ${node.topology.name} has ${node.topology.devices}`;
  return null;
}

/** Resolve and check `tp`/`ep` options (bad values are input errors, naming the field). */
export function parallelismOf(opts: { tp?: number; ep?: number }): Parallelism {
  const tp = opts.tp ?? 1;
  const ep = opts.ep ?? 1;
  if (!Number.isInteger(tp) || tp < 1 || tp > 64) throw inputError(`\`tp\` must be an integer in 1..64 (got ${tp})`, 'tp');
  if (!Number.isInteger(ep) || ep < 1 || ep > 64) throw inputError(`\`ep\` must be an integer in 1..64 (got ${ep})`, 'ep');
  return { tp, ep, devices: tp * ep };
}

export interface DecodePrediction extends StepTraffic {
  status: 'ok' | 'unsupported';
  reason?: string;
  tpotMs: number;
  tasksPerLayer: number;
  /** What was simulated rather than extrapolated. */
  /**
   * What was simulated: decode positions, decoder layers (of `layersTotal`), and how the
   * other layers were filled in (`LayerExtrapolation`).
   */
  sampling: { positions: number[]; layersSimulated: number; layersTotal: number; layersExtrapolated: LayerExtrapolation };
  fencesPerToken: number;
  dispatchesPerToken: number;
  launchesPerToken: number;
  backendMetrics: BackendMetric[];
  /**
   * MoE models: distinct routed experts that received tokens, mean per MoE layer (their
   * weights are what a step reads), and the expert count they are drawn from.
   */
  activeExperts?: number;
  experts?: number;
  tp: number;
  ep: number;
  /** Devices the run occupies (tp × ep). */
  devices: number;
  /** Bytes each device holds: its weight shard and its share of the KV cache. */
  perDeviceBytes: number;
}

/**
 * Decode iterations a persistent policy's step simulation runs in its one launch: the
 * megakernel is launched once and serves every decode step, so a step is the second iteration —
 * begun by the previous one's end-of-task-graph event, counters carried on, caches as the
 * previous step left them — not a fresh launch.
 */
export const DECODE_ITERATIONS = 2;

/** Default budget of simulated tile steps per decode position (≈ a minute of simulation on one core). */
export const DEFAULT_MAX_SIM_STEPS = 10_000_000;

/** GEMM and attention tile steps a compiled step will simulate, estimated from the op graph before compiling. */
export function simulationSteps(g: OpGraph, layers: ReadonlySet<number>): number {
  let n = 0;
  for (const op of g.ops) {
    if (!layers.has(op.layer)) continue;
    if (op.kind === 'linear') n += Math.ceil(op.m / TILE_M) * Math.ceil(op.n / TILE_N) * Math.ceil(op.k / STEP_K);
    else if (op.kind === 'attention') n += op.batch * op.kvHeads * Math.ceil(op.kvLen / KV_CHUNK);
    else if (op.kind === 'grouped-linear') for (const g of op.groups) n += Math.ceil(g.rows / TILE_M) * Math.ceil(op.n / TILE_N) * Math.ceil(op.k / STEP_K);
  }
  return n;
}

/**
 * Bytes a decode run needs resident in one device's memory: the weights and the whole KV
 * cache, or with tensor parallelism `tp` one rank's shard — the split weights / tp (norms
 * replicated), the KV heads it holds (numKvHeads / tp, at least one: replicated beyond).
 */
export function residentBytes(model: ModelSpec, batch: number, tokens: number, weights: WeightType | undefined, tp = 1): number {
  const el = DTYPE_BYTES[model.dtype];
  if (model.moe || model.mla) {
    // Every expert is resident (any may be routed to); MLA caches one latent per token and layer.
    return parameterCount(model) * el + batch * cachedTokenLayers(model, tokens) * kvElementsPerToken(model) * el;
  }
  const layerLinear = decoderLinearBytes({ ...model, numLayers: 1 }, weights ?? DENSE_BF16).total * (weights ? 1 : el / 2);
  const norms = model.numLayers * model.normsPerLayer * model.hiddenSize + model.hiddenSize + (model.qkNorm ? 2 * model.numLayers * model.headDim : 0);
  const rest = (parameterCount(model) - decoderLinearElements(model) - norms) * el;
  const kvHeads = tp > 1 ? Math.max(1, model.numKvHeads / tp) : model.numKvHeads;
  const kv = 2 * batch * kvHeads * model.headDim * cachedTokenLayers(model, tokens) * el;
  return (layerLinear * model.numLayers + rest) / tp + norms * el + kv;
}

function decoderLinearElements(m: ModelSpec): number {
  const q = m.numHeads * m.headDim;
  const kv = m.numKvHeads * m.headDim;
  return m.numLayers * m.hiddenSize * (q + 2 * kv + q + 3 * m.intermediateSize);
}

/**
 * Predict decode for one (backend, policy, batch): simulate a few decode positions with a
 * few layers each, extrapolate the steady-state layer to the whole model, and average.
 */
export function predictDecode(backend: Backend, model: ModelSpec, opts: DecodeOptions): DecodePrediction {
  const sampling = { positions: [] as number[], layersSimulated: 0, layersTotal: model.numLayers, layersExtrapolated: 'none' as LayerExtrapolation };
  const par = parallelismOf(opts);
  const perDevice = residentBytes(model, opts.batch, opts.prompt + opts.decode, opts.weights, par.tp);
  const unsupported = (reason: string): DecodePrediction => ({
    status: 'unsupported',
    reason,
    tpotMs: NaN,
    ...NO_TRAFFIC,
    tasksPerLayer: NaN,
    sampling,
    fencesPerToken: NaN,
    dispatchesPerToken: NaN,
    launchesPerToken: NaN,
    backendMetrics: [],
    ...par,
    perDeviceBytes: perDevice,
  });
  const resolved = resolvePolicy(backend, opts.policy, opts.overrides, opts.policies);
  if ('reason' in resolved) return unsupported(resolved.reason);
  const { policy } = resolved;
  if (!Number.isInteger(opts.decode) || opts.decode < 1) throw inputError(`\`decode\` must be a positive integer (got ${opts.decode})`, 'decode');
  if ((model.moe || model.mla) && opts.weights && opts.weights.kind !== 'dense') {
    return unsupported(
      `${opts.weights.kind === 'fp8' ? 'W8A8 FP8' : 'quantized'} weights (\`weights\` ${opts.weights.name}) are modelled for dense layers only; ${model.name} has ${model.moe ? 'expert' : 'latent-attention'} layers`,
    );
  }
  if (!Number.isInteger(opts.prompt) || opts.prompt < 0) throw inputError(`\`prompt\` must be a non-negative integer (got ${opts.prompt})`, 'prompt');

  const why = parallelismProblem(backend, model, par);
  if (why) return unsupported(why);
  if (par.tp > 1 && policy.tensorParallel) return unsupported(`${policy.name} has no tensor-parallel schedule: ${policy.tensorParallel}`);
  const asked = { phase: 'decode', weights: opts.weights, overrides: opts.overrides, tp: par.tp, ep: par.ep } as const;
  const refused = refusedInPhase(asked) ?? policy.refusesOptions?.(asked) ?? fp8RefusalOn(backend, opts.weights);
  if (refused) return unsupported(refused);
  const capacity = backend.topology.memory.hbm.capacityBytes;
  if (perDevice > capacity) return unsupported(doesNotFit(backend.name, perDevice, capacity, par.tp));
  const nPos = Math.max(1, Math.min(opts.decode, opts.positions ?? 2));
  const positions = Array.from({ length: nPos }, (_, i) => opts.prompt + Math.floor(((i + 0.5) * opts.decode) / nPos));
  // Every kind of layer sampled (MoE past dense first layers, global past windowed ones).
  const L = model.numLayers;
  const kvLen = positions[positions.length - 1]! + 1;
  const S = layersToSample(layerKinds(model, kvLen), opts.layers ?? 3);
  sampling.positions = positions;
  const budget = opts.maxSimSteps ?? DEFAULT_MAX_SIM_STEPS;

  // `proofOnly`: the run is wanted only if its layers are proven to repeat (`simulateStep` says why they are not).
  const simulate = (S: number, proofOnly = false) => {
    const layers = Array.from({ length: S }, (_, i) => i);
    const acc = {
      timeNs: 0,
      fences: 0,
      dispatches: 0,
      launches: 0,
      tasksPerLayer: 0,
      experts: { total: 0, layers: 0 },
      total: zeroCounters(),
      metrics: [] as BackendMetric[],
      extrapolation: 'none' as LayerExtrapolation,
    };
    for (const pos of positions) {
      const g = buildDecodeGraph(model, { batch: opts.batch, contextLen: pos, routing: opts.routing, ...(par.tp > 1 ? { tp: par.tp } : {}) });
      if (pos === positions[0]) acc.experts = activeExpertsOf(g);
      const estimate = simulationSteps(g, new Set([-1, L, ...layers]));
      if (estimate > budget) {
        throw inputError(
          `simulation too large: ${model.name} at batch ${opts.batch} needs about ${estimate.toExponential(2)} tile steps per decode position (limit ${budget.toExponential(2)}); raise it with \`maxSimSteps\` or simulate fewer layers with \`layers\``,
          'maxSimSteps',
        );
      }
      const r = simulateStep(backend, resolved, g, { ...stepSimulation(model, opts, layers, pos + 1), iterations: DECODE_ITERATIONS, proofOnly });
      if (typeof r === 'string') return r;
      acc.tasksPerLayer = r.tasksPerLayer;
      acc.timeNs += r.timeNs;
      addCounters(acc.total, r.counters, 1 / nPos);
      acc.fences += r.fences / nPos;
      acc.dispatches += r.dispatches / nPos;
      // A persistent kernel is launched once for the run: its launch spreads over the decode tokens.
      acc.launches += (r.launches + r.launchesPerRun / opts.decode) / nPos;
      acc.extrapolation = worseExtrapolation(acc.extrapolation, r.extrapolation);
      if (pos === positions[0]) acc.metrics.push(...r.backendMetrics);
    }
    return { ...acc, layersSimulated: S };
  };
  type Run = Exclude<ReturnType<typeof simulate>, string>;
  // The whole model asked for: a few layers first, exact when a steady layer is proven
  // (the rest repeat it); otherwise every layer.
  const proven = (): Run | null => {
    for (const k of proofTries(backend)) {
      const r = k < L ? simulate(k, true) : 'unprovable';
      if (r === 'unprovable') return null;
      if (r !== 'unproven' && r.extrapolation === 'proven') return r;
    }
    return null;
  };
  const run = (S === L && !opts.observers?.length ? proven() : null) ?? (simulate(S) as Run);
  sampling.layersSimulated = run.layersSimulated;
  sampling.layersExtrapolated = run.extrapolation;
  const { timeNs, fences, dispatches, launches, tasksPerLayer, experts, total, metrics } = run;
  return {
    status: 'ok',
    tpotMs: timeNs / nPos / 1e6,
    ...trafficOf(total),
    tasksPerLayer,
    sampling,
    fencesPerToken: fences,
    dispatchesPerToken: dispatches,
    launchesPerToken: launches,
    backendMetrics: metrics,
    ...(model.moe ? { activeExperts: experts.layers > 0 ? experts.total / experts.layers : 0, experts: model.moe.numExperts } : {}),
    ...par,
    perDeviceBytes: perDevice,
  };
}

/** The `unsupported` reason of a run too large for its devices, with the numbers. */
export function doesNotFit(backend: string, perDevice: number, capacity: number, tp: number): string {
  const what =
    tp > 1
      ? `weights/${tp} and KV cache/${tp} need ${(perDevice / 1e9).toFixed(1)} GB per device`
      : `weights and KV cache need ${(perDevice / 1e9).toFixed(1)} GB`;
  return `does not fit: ${what}, ${backend} has ${(capacity / 1e9).toFixed(1)} GB of device memory`;
}

export type { MemoryCounters };
