/**
 * `fleet verify`: run decode steps of a small model through a policy's compiled task graph
 * on a backend's simulated timeline with real numbers, and compare the logits (and the KV
 * caches they leave) with the plain straight-line reference. A schedule that lets a task run
 * before a producer it needs, drops a tile, or misplaces a write gives wrong numbers.
 *
 * Both runs start from the same weights, KV cache (random, standing for a prompt already
 * prefilled) and tokens; each keeps its own KV cache from step to step, and both are fed the
 * reference's greedy tokens (so a near-tie in the argmax cannot make them diverge).
 */
import { buildDecodeGraph, FleetError, inputError, parameterCount, simulateGraph, type Backend, type ModelSpec, type TaskGraph } from '@fleet/core';
import { type FloatDType, Rng, rounder } from '@fleet/numerics';
import { backendCompileOptions, fp8RefusalOn, resolvePolicy, type CompileOptions, type PolicyRegistry, type WeightType } from '@fleet/ops';
import { DecodeOps, DEFAULT_SEMANTICS, type DecodeSemantics, type Fp8Linears } from './decode-ops.js';
import { FunctionalExecutor } from './executor.js';
import { allocateState, referenceStep } from './reference.js';
import { VersionedMemory } from './versioned-memory.js';
import { modelFloatDType, randomWeights, type ModelWeights } from './weights.js';

/** Models larger than this are refused: functional runs hold every weight in memory. */
export const MAX_VERIFY_PARAMETERS = 200e6;

export interface VerifyOptions {
  policy: string;
  /** Where the policy name is looked up (default: Fleet's own policies). */
  policies?: PolicyRegistry;
  /** Requests decoded together (default 2). */
  batch?: number;
  /** Tokens in the KV cache before the first step (default 300: two flash-decoding chunks). */
  contextLen?: number;
  /** Decode steps (default 2). */
  steps?: number;
  /** Seeds the random weights, KV cache and tokens (default 1). */
  seed?: number;
  /** Weights to use instead of random ones (e.g. read from a checkpoint). */
  weights?: ModelWeights;
  /**
   * How the decoder layers' linears store their weights (default bf16): W8A8 FP8 types run
   * the FP8 codes and scales in both the compiled graph and the reference; group-quantized
   * types are not run functionally.
   */
  weightType?: WeightType;
  semantics?: Partial<DecodeSemantics>;
  /** Largest accepted max-relative error of the logits (default: `defaultTolerance`). */
  tolerance?: number;
  /**
   * Cluster policies: overrides of the backend's cluster size and active clusters, and the
   * dataflow (default: what the backend declares, as predictions use it).
   */
  cluster?: CompileOptions['cluster'];
  /** Rewrites each compiled graph before it runs (tests drop dependency edges with it). */
  transform?: (graph: TaskGraph, step: number) => TaskGraph;
}

export interface VerifyStep {
  step: number;
  /** Tokens in the KV cache before this step. */
  contextLen: number;
  /** max |logit − reference| / max |reference|. */
  maxRelError: number;
  maxAbsError: number;
  /**
   * Requests whose greedy token differs from the reference's where the reference's logits
   * are not a near-tie (within twice `maxAbsError`) that explains it.
   */
  tokenMismatches: number;
  /**
   * max |cache − reference cache| / max |reference cache| over the layers' K and V caches
   * after the step: a lost or misplaced KV append shows here at once, while it moves the
   * logits only a little (one cached position among many) and only from the next step on.
   */
  cacheRelError: number;
  tasks: number;
  simulatedNs: number;
}

export interface VerifyResult {
  backend: string;
  policy: string;
  status: 'pass' | 'fail' | 'unsupported';
  reason?: string;
  /** Worst step's error (NaN when unsupported, Infinity when a step produced no logits). */
  maxRelError: number;
  tolerance: number;
  steps: VerifyStep[];
}

/**
 * Default tolerance: the runs differ only where the schedule sums in another order
 * (split-K partials, flash-decoding chunks), i.e. by a few roundings of the storage type,
 * amplified through the layers; a missing dependency gives errors of order one.
 */
export function defaultTolerance(dtype: FloatDType): number {
  return dtype === 'fp32' ? 1e-4 : 2e-2;
}

/** Refuse models too large to hold and run in memory (a one-line input error). */
export function checkRunnable(spec: ModelSpec): void {
  const params = parameterCount(spec);
  if (params > MAX_VERIFY_PARAMETERS) {
    throw inputError(`model ${spec.name}: ${(params / 1e6).toFixed(0)}M parameters is too large to run functionally (at most ${MAX_VERIFY_PARAMETERS / 1e6}M)`);
  }
  modelFloatDType(spec);
}

function checkCount(field: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) throw inputError(`${field}: ${String(v)} is not an integer in ${min}..${max}`);
  return v;
}

/** Copy caches [b, kvh, from, d] into [b, kvh, to, d] (to ≥ from). */
function growCache(src: Float32Array, batch: number, kvHeads: number, from: number, to: number, d: number): Float32Array {
  const out = new Float32Array(batch * kvHeads * to * d);
  for (let e = 0; e < batch * kvHeads; e++) out.set(src.subarray(e * from * d, (e + 1) * from * d), e * to * d);
  return out;
}

/** max |got − want| (∞ where got is NaN), max |want| and their ratio. */
function compareTensors(got: Float32Array, want: Float32Array): { rel: number; abs: number; scale: number } {
  let abs = 0;
  let scale = 0;
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i]! - want[i]!);
    abs = Number.isNaN(d) ? Infinity : Math.max(abs, d);
    scale = Math.max(scale, Math.abs(want[i]!));
  }
  return { rel: scale > 0 ? abs / scale : abs, abs, scale };
}

/** Verify one policy on one backend. */
export function verifyDecode(backend: Backend, spec: ModelSpec, opts: VerifyOptions): VerifyResult {
  const dtype = modelFloatDType(spec);
  const tolerance = opts.tolerance ?? defaultTolerance(dtype);
  const base = { backend: backend.name, policy: opts.policy, tolerance, steps: [] as VerifyStep[] };
  const resolved = resolvePolicy(backend, opts.policy, undefined, opts.policies);
  if ('reason' in resolved) return { ...base, status: 'unsupported', reason: resolved.reason, maxRelError: NaN };
  const { policy, schedule } = resolved;
  const notYet = policy.functional(spec);
  if (notYet) return { ...base, status: 'unsupported', reason: notYet, maxRelError: NaN };
  const wt = opts.weightType;
  if (wt?.kind === 'quantized')
    return { ...base, status: 'unsupported', reason: `\`weights\` ${wt.name}: group-quantized weights are simulated for timing only`, maxRelError: NaN };
  const refused = wt ? (policy.refusesOptions?.({ phase: 'decode', weights: wt }) ?? fp8RefusalOn(backend, wt)) : null;
  if (refused) return { ...base, status: 'unsupported', reason: refused, maxRelError: NaN };
  if (wt?.kind === 'fp8' && (spec.moe || spec.mla))
    return {
      ...base,
      status: 'unsupported',
      reason: `W8A8 FP8 weights are modelled for dense layers only; ${spec.name} has ${spec.moe ? 'expert' : 'latent-attention'} layers`,
      maxRelError: NaN,
    };
  const fp8: Fp8Linears | undefined =
    wt?.kind === 'fp8'
      ? { weights: wt.type, activations: wt.activation, scaling: wt.scales === 'channel' ? 'row' : 'tensor', layers: spec.numLayers }
      : undefined;

  const batch = checkCount('batch', opts.batch ?? 2, 1, 256);
  const context = checkCount('contextLen', opts.contextLen ?? 300, 0, 100_000);
  const steps = checkCount('steps', opts.steps ?? 2, 1, 64);
  const seed = checkCount('seed', opts.seed ?? 1, 0, 2 ** 32 - 1);
  checkRunnable(spec);
  const sem: DecodeSemantics = { ...DEFAULT_SEMANTICS, dtype, ...opts.semantics };
  const round = rounder(sem.dtype);
  const weights = opts.weights ?? randomWeights(spec, seed);
  const rng = new Rng((Math.imul(seed, 0x9e3779b1) + 1) >>> 0);
  const { numLayers: L, vocabSize: vocab } = spec;
  // Cache entries per request: K and V per KV head, or MLA's one latent (rank + rope) per token.
  const kvh = spec.mla ? 1 : spec.numKvHeads;
  const d = spec.mla ? spec.mla.kvLoraRank + spec.mla.ropeDim : spec.headDim;
  const layers = Array.from({ length: L }, (_, l) => l);

  // The prefilled cache (random keys and values) and the first tokens, shared by both runs.
  const cacheNames = layers.flatMap((l) => (spec.mla ? [`L${l}.kv_latent`] : [`L${l}.k_cache`, `L${l}.v_cache`]));
  let refCache = new Map<string, Float32Array>();
  for (const n of cacheNames) {
    const c = rng.normals(batch * kvh * context * d);
    for (let i = 0; i < c.length; i++) c[i] = round(c[i]!);
    refCache.set(n, c);
  }
  let funCache = new Map([...refCache].map(([n, c]) => [n, c.slice()]));
  let tokens = Float32Array.from({ length: batch }, () => rng.int(vocab));

  const sim = policy.runtime(backend, schedule);
  // The cluster configuration predictions use (the framework kernel granularity, `kernels`,
  // is not applied: its repeated passes and split-K reduction kernels are costs, not numerics).
  const cluster = {
    size: backend.tuning.cluster?.size,
    maxActiveClusters: backend.tuning.cluster?.maxActiveClusters,
    collectives: backend.collectives,
    ...opts.cluster,
  };
  // Compiled regions count activations as 2-byte elements; an fp32 model's op graph is built
  // with 2-byte tensors so regions and tensors agree (the numerics still run in fp32).
  const graphSpec: ModelSpec = spec.dtype === 'fp32' ? { ...spec, dtype: 'bf16' } : spec;
  let worst = 0;
  let worstCache = 0;
  for (let step = 0; step < steps; step++) {
    const ctx = context + step;
    const graph = buildDecodeGraph(graphSpec, { batch, contextLen: ctx });

    const state = allocateState(graph);
    for (const n of cacheNames) state.set(n, growCache(refCache.get(n)!, batch, kvh, ctx, ctx + 1, d));
    state.get('tokens')!.set(tokens);
    referenceStep(graph, weights, sem, state, fp8);
    const refLogits = state.get('logits')!;
    const refTokens = state.get('tokens')!.slice();
    refCache = new Map(cacheNames.map((n) => [n, state.get(n)!.slice()]));

    // The backend's megakernel linear grid too (MPK's ROCm port splits the residual linears over K).
    const { persistentLinears } = backendCompileOptions(backend);
    let tg = policy.compile(graph, backend, schedule, {
      layers,
      cluster,
      library: backend.kernelLibrary,
      ...(persistentLinears ? { persistentLinears } : {}),
      ...(wt ? { weights: wt } : {}),
    });
    if (opts.transform) tg = opts.transform(tg, step);
    const memory = new VersionedMemory(graph, round);
    for (const n of cacheNames) memory.setInitial(n, growCache(funCache.get(n)!, batch, kvh, ctx, ctx + 1, d));
    memory.setInitial('tokens', tokens);
    let exec: FunctionalExecutor;
    try {
      exec = new FunctionalExecutor(graph, tg, memory, new DecodeOps(graph, weights, sem, fp8));
    } catch (e) {
      // A compiled graph whose tasks name ops or stages the op graph cannot have: no numbers to compare.
      return { ...base, status: 'fail', reason: `step ${step}: ${e instanceof Error ? e.message : String(e)}`, maxRelError: Infinity };
    }
    let simulatedNs: number;
    try {
      simulatedNs = simulateGraph(backend, tg, { ...sim, observers: [exec.observer] }).timeNs;
    } catch (e) {
      if (e instanceof FleetError) return { ...base, status: 'fail', reason: `step ${step}: ${e.message}`, maxRelError: Infinity };
      throw e;
    }
    if (exec.error) return { ...base, status: 'fail', reason: `step ${step}: ${exec.error.message}`, maxRelError: Infinity };
    const missing = exec.unfinished();
    if (missing.length > 0)
      return { ...base, status: 'fail', reason: `step ${step}: ${missing.length} tasks never finished (e.g. ${missing[0]})`, maxRelError: Infinity };

    const funLogits = memory.latest('logits');
    const funTokens = memory.latest('tokens');
    funCache = new Map(cacheNames.map((n) => [n, memory.latest(n).slice()]));
    let cacheAbs = 0;
    let cacheScale = 0;
    for (const n of cacheNames) {
      const c = compareTensors(funCache.get(n)!, refCache.get(n)!);
      cacheAbs = Math.max(cacheAbs, c.abs);
      cacheScale = Math.max(cacheScale, c.scale);
    }
    const cacheRel = cacheScale > 0 ? cacheAbs / cacheScale : cacheAbs;
    const err = compareTensors(funLogits, refLogits);
    let mismatches = 0;
    for (let b = 0; b < batch; b++) {
      if (funTokens[b] === refTokens[b]) continue;
      const ft = funTokens[b]!;
      const nearTie = Number.isInteger(ft) && ft >= 0 && ft < vocab && refLogits[b * vocab + ft]! >= refLogits[b * vocab + refTokens[b]!]! - 2 * err.abs;
      if (!nearTie) mismatches++;
    }
    base.steps.push({
      step,
      contextLen: ctx,
      maxRelError: err.rel,
      maxAbsError: err.abs,
      tokenMismatches: mismatches,
      cacheRelError: cacheRel,
      tasks: tg.tasks.length,
      simulatedNs,
    });
    worst = Math.max(worst, err.rel);
    worstCache = Math.max(worstCache, cacheRel);
    tokens = refTokens;
  }
  const badTokens = base.steps.reduce((n, s) => n + s.tokenMismatches, 0);
  const reason =
    worst > tolerance
      ? `max relative error ${worst.toExponential(2)} exceeds the tolerance ${tolerance.toExponential(2)}`
      : badTokens > 0
        ? `${badTokens} greedy tokens differ from the reference's without a near-tie in its logits`
        : worstCache > tolerance
          ? `the KV cache differs from the reference's: max relative error ${worstCache.toExponential(2)} exceeds the tolerance ${tolerance.toExponential(2)}`
          : undefined;
  return { ...base, status: reason ? 'fail' : 'pass', ...(reason ? { reason } : {}), maxRelError: worst };
}
