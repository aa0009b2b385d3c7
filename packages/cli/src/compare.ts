import { inputError, type Backend, type ModelSpec, type Routing } from '@fleet/core';
import { predictDecode, type DecodePrediction, type PolicyOverrides, type WeightType } from '@fleet/ops';

export interface CompareOptions {
  backends: Backend[];
  policies: string[] | null;
  batches: number[];
  prompt: number;
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
}

export interface CompareRow {
  backend: string;
  policy: string;
  batch: number;
  promptTokens: number;
  decodeTokens: number;
  /** Decoder-layer linear weight type, e.g. `bf16`, `u4g128`. */
  weights: string;
  status: 'ok' | 'unsupported';
  reason?: string;
  tpotMs?: number;
  l2HitRate?: number;
  hbmReadBytes?: number;
  hbmWriteBytes?: number;
  /** Bytes read past the L2 per token (LLC or HBM): L2-to-fabric read traffic. */
  fabricReadBytes?: number;
  tasksPerLayer?: number;
  fencesPerToken?: number;
  dispatchesPerToken?: number;
  launchesPerToken?: number;
  /** MoE models: distinct routed experts that received tokens, mean per MoE layer (their weights are what is read). */
  activeExperts?: number;
  /** MoE models: routed experts per MoE layer. */
  experts?: number;
}

/** The comparison grid: every backend × policy × batch, in a stable order. */
export function compareJobs(o: CompareOptions): { backend: Backend; policy: string; batch: number }[] {
  const jobs: { backend: Backend; policy: string; batch: number }[] = [];
  for (const backend of o.backends) {
    const policies = o.policies ?? backend.policies.map((p) => p.policy);
    for (const policy of policies) for (const batch of o.batches) jobs.push({ backend, policy, batch });
  }
  return jobs;
}

export function runJob(model: ModelSpec, job: { backend: Backend; policy: string; batch: number }, o: CompareOptions): CompareRow {
  const r: DecodePrediction = predictDecode(job.backend, model, {
    policy: job.policy,
    batch: job.batch,
    prompt: o.prompt,
    decode: o.decode,
    positions: o.positions,
    layers: o.layers,
    overrides: o.overrides,
    weights: o.weights,
    maxSimSteps: o.maxSimSteps,
    routing: o.routing,
  });
  const base = { backend: job.backend.name, policy: job.policy, batch: job.batch, promptTokens: o.prompt, decodeTokens: o.decode, weights: o.weights?.name ?? 'bf16' };
  if (r.status !== 'ok') return { ...base, status: 'unsupported', reason: r.reason };
  return {
    ...base,
    status: 'ok',
    tpotMs: round(r.tpotMs, 4),
    l2HitRate: round(r.l2HitRate, 4),
    hbmReadBytes: Math.round(r.hbmReadBytes),
    hbmWriteBytes: Math.round(r.hbmWriteBytes),
    fabricReadBytes: Math.round(r.fabricReadBytes),
    tasksPerLayer: r.tasksPerLayer,
    fencesPerToken: Math.round(r.fencesPerToken),
    dispatchesPerToken: Math.round(r.dispatchesPerToken),
    launchesPerToken: Math.round(r.launchesPerToken),
    ...(r.activeExperts !== undefined ? { activeExperts: round(r.activeExperts, 2), experts: r.experts } : {}),
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
