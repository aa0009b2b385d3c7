import { inputError, type Backend, type ModelSpec, type Routing } from '@fleet/core';
import { withFlags } from './flags.js';
import {
  PolicyRegistry,
  predictDecode,
  predictMixed,
  predictPrefill,
  withLibraryCollectivesOnly,
  type DecodePrediction,
  type MixedPrediction,
  type PolicyOverrides,
  type PrefillPrediction,
  type WeightType,
} from '@fleet/ops';

/** What a comparison predicts: decode TPOT, prefill TTFT, or one mixed serving step. */
export const PHASES = ['decode', 'prefill', 'mixed'] as const;
export type Phase = (typeof PHASES)[number];

export interface CompareOptions {
  backends: Backend[];
  policies: string[] | null;
  /** Where policy names are looked up: Fleet's and the plugins' (default: Fleet's own). */
  installed?: PolicyRegistry;
  batches: number[];
  /**
   * `decode` (default): TPOT after `prompt` tokens; `prefill`: TTFT of a `prompt`-token
   * prompt; `mixed`: one step of `batch` decode requests (at `prompt` tokens) with a
   * `chunk`-token prefill chunk.
   */
  phase?: Phase;
  /** Prompt tokens: in the KV cache before decoding, or the prompt to prefill. */
  prompt: number;
  /** Several prompt lengths (one job each); default `[prompt]`. */
  prompts?: number[];
  /** Prefill: tokens per chunk (chunked prefill; default the whole prompt). Mixed: the chunk in the step (default 512). */
  chunk?: number;
  decode: number;
  positions: number;
  layers: number;
  overrides?: PolicyOverrides;
  /** Decoder-layer linear weight type (default bf16). */
  weights?: WeightType;
  /** Budget of simulated tile steps per decode position. */
  maxSimSteps?: number;
  /** MoE models: expert routing (default uniform). */
  routing?: Routing;
  /** Tensor-parallel degrees to compare (one job each); default [1]. */
  tps?: number[];
  /** Expert-parallel degree (mixture-of-experts models); default 1. */
  ep?: number;
  /**
   * Tensor-parallel all-reduces may run the serving engine's custom all-reduce where it is
   * faster (default true); false prices the collective library alone (NCCL/RCCL).
   */
  customAllReduce?: boolean;
}

export interface CompareRow {
  backend: string;
  policy: string;
  /** `decode` rows carry TPOT; `prefill` rows TTFT and tokens per second. */
  phase: Phase;
  batch: number;
  promptTokens: number;
  /** Decode rows: tokens decoded (TPOT is their mean). */
  decodeTokens?: number;
  /** Prefill rows: tokens per chunk when the prompt is chunked; mixed rows: the chunk in the step. */
  chunkTokens?: number;
  /** Decoder-layer linear weight type, e.g. `bf16`, `u4g128`. */
  weights: string;
  status: 'ok' | 'unsupported';
  reason?: string;
  tpotMs?: number;
  /** Mixed: the step's time, ms (what each decode request waits for its token). */
  stepMs?: number;
  /** Prefill: time to first token, ms (the whole prompt through the model, the LM head on its last token). */
  ttftMs?: number;
  /** Prefill: prompt tokens per second (batch × prompt / TTFT); mixed: (decode + chunk tokens) per second. */
  tokensPerSecond?: number;
  l2HitRate?: number;
  /** Bytes read from DRAM (HBM) per token, after the memory-side LLC (MI300X/MI350's MALL) where there is one. */
  hbmReadBytes?: number;
  /**
   * Bytes the L2s read from the fabric per token (their read misses and bypassing reads,
   * served by the LLC or HBM): what L2-to-fabric counters (CDNA `TCC_EA_RDREQ`, rocprof) count.
   * Equal to `hbmReadBytes` on a GPU without a memory-side cache (H100).
   */
  fabricReadBytes?: number;
  hbmWriteBytes?: number;
  tasksPerLayer?: number;
  /**
   * How the layers not simulated were filled in: `none` (all simulated), `proven` (they repeat
   * a layer shown to start and end in the same machine state: exact), `assumed` (they repeat
   * the last sampled layers, unproven).
   */
  layersExtrapolated?: 'none' | 'proven' | 'assumed';
  fencesPerToken?: number;
  dispatchesPerToken?: number;
  launchesPerToken?: number;
  /** MoE models: distinct routed experts that received tokens, mean per MoE layer (their weights are what is read). */
  activeExperts?: number;
  /** MoE models: routed experts per MoE layer. */
  experts?: number;
  /** Tensor-parallel degree of the run (every row `runJob` makes has it; 1 on one device). */
  tp?: number;
  /** Expert-parallel degree of the run. */
  ep?: number;
  /** Devices the run occupies (tp × ep). */
  devices?: number;
  /** Bytes each device holds (weights and KV cache shards). */
  perDeviceBytes?: number;
}

/** Prefill tokens a mixed step carries when `chunk` is not given (vLLM's default chunk order of magnitude). */
export const DEFAULT_MIXED_CHUNK = 512;

/** One configuration of the comparison grid. */
export interface CompareJob {
  backend: Backend;
  policy: string;
  batch: number;
  /** Prompt tokens of this job (default: the options' `prompt`). */
  prompt?: number;
  /** Tensor-parallel degree of this job (default 1). */
  tp?: number;
}

/** The comparison grid: every backend × policy × batch × prompt, in a stable order. */
export function compareJobs(o: CompareOptions): Required<CompareJob>[] {
  const jobs: Required<CompareJob>[] = [];
  const prompts = o.prompts ?? [o.prompt];
  const tps = o.tps ?? [1];
  const installed = (o.installed ?? new PolicyRegistry()).names();
  for (const backend of o.backends) {
    const policies = o.policies ?? installed;
    for (const policy of policies)
      for (const tp of tps) for (const batch of o.batches) for (const prompt of prompts) jobs.push({ backend, policy, batch, prompt, tp });
  }
  return jobs;
}

export function runJob(model: ModelSpec, j: CompareJob, o: CompareOptions): CompareRow {
  const job = o.customAllReduce === false ? { ...j, backend: withLibraryCollectivesOnly(j.backend) } : j;
  const prompt = job.prompt ?? o.prompt;
  const tp = job.tp ?? 1;
  const ep = o.ep ?? 1;
  const who = { backend: job.backend.name, policy: job.policy, tp, ep, devices: tp * ep };
  const weights = o.weights?.name ?? 'bf16';
  // What every phase's prediction takes from the job and the options.
  const shared = {
    policy: job.policy,
    policies: o.installed,
    batch: job.batch,
    layers: o.layers,
    overrides: o.overrides,
    weights: o.weights,
    maxSimSteps: o.maxSimSteps,
    routing: o.routing,
  };
  if ((o.phase ?? 'decode') === 'prefill') {
    const r = predictPrefill(job.backend, model, { ...shared, prompt, chunk: o.chunk, chunksSimulated: o.positions, tp, ep });
    const base = {
      ...who,
      phase: 'prefill' as const,
      batch: job.batch,
      promptTokens: prompt,
      ...(o.chunk !== undefined ? { chunkTokens: o.chunk } : {}),
      weights,
      ...(Number.isFinite(r.perDeviceBytes) ? { perDeviceBytes: Math.round(r.perDeviceBytes) } : {}),
    };
    if (r.status !== 'ok') return { ...base, status: 'unsupported', reason: withFlags(r.reason ?? '') };
    return {
      ...base,
      status: 'ok',
      ttftMs: round(r.ttftMs, 4),
      ...throughputFields(r),
      layersExtrapolated: r.sampling.layersExtrapolated,
    };
  }
  if (o.phase === 'mixed') {
    const chunk = o.chunk ?? DEFAULT_MIXED_CHUNK;
    // A mixed step is simulated on one device: parallelism is refused, not ignored.
    if (tp > 1 || ep > 1)
      return {
        ...who,
        phase: 'mixed',
        batch: job.batch,
        promptTokens: prompt,
        chunkTokens: chunk,
        weights,
        status: 'unsupported',
        reason: `a mixed step is simulated on one device (got tp ${tp}, ep ${ep})`,
      };
    const r = predictMixed(job.backend, model, { ...shared, context: prompt, chunk });
    const base = { ...who, phase: 'mixed' as const, batch: job.batch, promptTokens: prompt, chunkTokens: chunk, weights };
    if (r.status !== 'ok') return { ...base, status: 'unsupported', reason: withFlags(r.reason ?? '') };
    return {
      ...base,
      status: 'ok',
      stepMs: round(r.stepMs, 4),
      ...throughputFields(r),
    };
  }
  const r: DecodePrediction = predictDecode(job.backend, model, { ...shared, prompt, decode: o.decode, positions: o.positions, tp, ep });
  const base = {
    ...who,
    phase: 'decode' as const,
    batch: job.batch,
    promptTokens: prompt,
    decodeTokens: o.decode,
    weights,
    perDeviceBytes: Math.round(r.perDeviceBytes),
  };
  if (r.status !== 'ok') return { ...base, status: 'unsupported', reason: withFlags(r.reason ?? '') };
  return {
    ...base,
    status: 'ok',
    tpotMs: round(r.tpotMs, 4),
    l2HitRate: round(r.l2HitRate, 4),
    hbmReadBytes: Math.round(r.hbmReadBytes),
    fabricReadBytes: Math.round(r.fabricReadBytes),
    hbmWriteBytes: Math.round(r.hbmWriteBytes),
    tasksPerLayer: r.tasksPerLayer,
    layersExtrapolated: r.sampling.layersExtrapolated,
    fencesPerToken: Math.round(r.fencesPerToken),
    dispatchesPerToken: Math.round(r.dispatchesPerToken),
    // A persistent kernel launched once for the run: 1 / decode tokens per token.
    launchesPerToken: round(r.launchesPerToken, 4),
    ...(r.activeExperts !== undefined ? { activeExperts: round(r.activeExperts, 2), experts: r.experts } : {}),
  };
}

/** The columns prefill and mixed rows share, in their order. */
function throughputFields(r: PrefillPrediction | MixedPrediction) {
  return {
    tokensPerSecond: Math.round(r.tokensPerSecond),
    l2HitRate: round(r.l2HitRate, 4),
    hbmReadBytes: Math.round(r.hbmReadBytes),
    hbmWriteBytes: Math.round(r.hbmWriteBytes),
    fabricReadBytes: Math.round(r.fabricReadBytes),
    tasksPerLayer: r.tasksPerLayer,
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Parse `1,8,32` into integers in [min, max], naming the flag on error (plain digits only). */
export function parseIntList(flag: string, value: string, min = 1, max = 4096): number[] {
  const parts = value.split(',').map((s) => s.trim());
  return parts.map((p) => {
    const n = /^\d+$/.test(p) ? Number(p) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) throw inputError(`${flag}: '${p}' is not an integer in ${min}..${max}`);
    return n;
  });
}

/** Parse a comma-separated list of names: no empty names, no duplicates. */
export function parseNameList(flag: string, value: string): string[] {
  const names = value.split(',').map((s) => s.trim());
  if (names.some((n) => n === '')) throw inputError(`${flag}: empty name in '${value}' (a comma-separated list)`);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw inputError(`${flag}: '${dup}' is listed twice`);
  return names;
}

export function parseInt1(flag: string, value: string, min: number, max: number): number {
  return parseIntList(flag, value, min, max)[0]!;
}
