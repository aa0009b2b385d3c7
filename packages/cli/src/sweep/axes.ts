/**
 * The axes of a sweep: each is a list in the spec, and the job grid is their cartesian
 * product in this order. A new comparison option becomes a sweep axis with one entry here
 * (its schema, default and how it maps onto the comparison) — the spec schema, job ids,
 * result lines and CSV columns all follow from this table.
 */
import type { PolicyOverrides } from '@fleet/ops';

const CACHE_POLICIES = ['default', 'streaming', 'nontemporal'] as const;
const ON_OFF = ['on', 'off'] as const;

/** One job's parameters: a value per axis (`null` = the policy's own choice). */
export interface SweepParams {
  model: string;
  backend: string;
  policy: string;
  batch: number;
  /** `null`: decode. */
  phase: 'decode' | 'prefill' | 'mixed' | null;
  prompt: number;
  /** Prefill chunk size; `null`: the whole prompt. */
  chunk: number | null;
  decode: number;
  positions: number;
  sampleLayers: number;
  weights: string;
  maxSimSteps: number;
  weightCache: (typeof CACHE_POLICIES)[number] | null;
  storeCache: (typeof CACHE_POLICIES)[number] | null;
  fuseSilu: (typeof ON_OFF)[number] | null;
  traversal: 'm-tile' | 'm-split' | 'n-major' | null;
  twoLevel: (typeof ON_OFF)[number] | null;
  /** Chiplet-task expert placement override (MoE); `null`: the policy's own. */
  expertPlacement: 'owner' | 'spread' | null;
  /** Tensor-parallel degree; `null`: 1. */
  tp: number | null;
  /** Expert-parallel degree (MoE); `null`: 1. */
  ep: number | null;
  /** MoE expert routing as `--routing` takes it; `null`: uniform. */
  routing: string | null;
}

export interface SweepAxis {
  /** The list's name in the spec. */
  specKey: string;
  /** The job parameter it sets. */
  param: keyof SweepParams;
  /** JSON Schema of one value (enums of installed backends and known policies are filled in at run time). */
  item: Record<string, unknown>;
  /**
   * The values used when the spec leaves the list out. `null` for `policies` means each
   * backend's own list; for an override, `[null]` means no override.
   */
  default: readonly unknown[] | null;
  /** Name of the field in a result line when the comparison row already carries it. */
  rowField?: string;
  help: string;
}

const int = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum });
const choice = (values: readonly string[]) => ({ enum: [...values, null] });

export const SWEEP_AXES: readonly SweepAxis[] = [
  {
    specKey: 'model',
    param: 'model',
    item: { type: 'string', minLength: 1 },
    default: ['qwen3-8b'],
    help: 'model preset, config.json or model directory (paths relative to the spec)',
  },
  { specKey: 'backends', param: 'backend', item: { type: 'string' }, default: null, rowField: 'backend', help: 'backend names (default: all installed)' },
  { specKey: 'policies', param: 'policy', item: { type: 'string' }, default: null, rowField: 'policy', help: "policies (default: each backend's own)" },
  { specKey: 'batch', param: 'batch', item: int(1, 4096), default: [1, 8, 32], rowField: 'batch', help: 'batch sizes' },
  {
    specKey: 'phase',
    param: 'phase',
    item: choice(['decode', 'prefill', 'mixed']),
    default: [null],
    rowField: 'phase',
    help: 'decode (TPOT, the default), prefill (TTFT) or mixed (one step with a prefill chunk)',
  },
  {
    specKey: 'prompt',
    param: 'prompt',
    item: int(0, 1_000_000),
    default: [64],
    rowField: 'promptTokens',
    help: 'prompt tokens: in the KV cache before decoding, or the prompt to prefill',
  },
  {
    specKey: 'chunk',
    param: 'chunk',
    item: { anyOf: [int(1, 1_000_000), { type: 'null' }] },
    default: [null],
    help: 'prefill: tokens per chunk (null: the whole prompt)',
  },
  { specKey: 'decode', param: 'decode', item: int(1, 1_000_000), default: [1024], rowField: 'decodeTokens', help: 'decode tokens; TPOT is their mean' },
  { specKey: 'positions', param: 'positions', item: int(1, 64), default: [1], help: 'decode positions simulated' },
  { specKey: 'sampleLayers', param: 'sampleLayers', item: int(1, 1000), default: [3], help: 'decoder layers simulated' },
  {
    specKey: 'weights',
    param: 'weights',
    item: { type: 'string', minLength: 1 },
    default: ['bf16'],
    rowField: 'weights',
    help: 'decoder-layer linear weight types (bf16, u4g128, ...)',
  },
  { specKey: 'maxSimSteps', param: 'maxSimSteps', item: int(1, 1e12), default: [10_000_000], help: 'simulated tile steps allowed per decode position' },
  {
    specKey: 'weightCache',
    param: 'weightCache',
    item: choice(CACHE_POLICIES),
    default: [null],
    help: 'weight load cache policy override (null: the policy’s own)',
  },
  { specKey: 'storeCache', param: 'storeCache', item: choice(CACHE_POLICIES), default: [null], help: 'activation store cache policy override' },
  { specKey: 'fuseSilu', param: 'fuseSilu', item: choice(ON_OFF), default: [null], help: 'fuse SiLU·mul into gate+up override' },
  { specKey: 'traversal', param: 'traversal', item: choice(['m-tile', 'm-split', 'n-major']), default: [null], help: 'chiplet-task tile order override' },
  { specKey: 'twoLevel', param: 'twoLevel', item: choice(ON_OFF), default: [null], help: 'two-level completion counting override' },
  // Axes added later default to null, which keeps the ids of the jobs that existed before them.
  {
    specKey: 'expertPlacement',
    param: 'expertPlacement',
    item: choice(['owner', 'spread']),
    default: [null],
    help: 'MoE chiplet-task expert placement override',
  },
  {
    specKey: 'tp',
    param: 'tp',
    item: { anyOf: [{ enum: [1, 2, 4, 8, 16, 32, 64] }, { type: 'null' }] },
    default: [null],
    rowField: 'tp',
    help: 'tensor-parallel degrees (null: 1)',
  },
  { specKey: 'ep', param: 'ep', item: { anyOf: [int(1, 64), { type: 'null' }] }, default: [null], rowField: 'ep', help: 'expert-parallel degrees (null: 1)' },
  {
    specKey: 'routing',
    param: 'routing',
    item: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] },
    default: [null],
    help: 'MoE expert routing: uniform, zipf:<s> or a JSON file of per-expert counts (null: uniform)',
  },
];

/** The schedule overrides of a job, as `fleet compare`'s flags would give them. */
export function overridesOfParams(p: SweepParams): PolicyOverrides | undefined {
  const out: PolicyOverrides = {};
  if (p.weightCache !== null) out.weightPolicy = p.weightCache;
  if (p.storeCache !== null) out.storePolicy = p.storeCache;
  if (p.fuseSilu !== null) out.fuseActivation = p.fuseSilu === 'on';
  if (p.traversal !== null) out.traversal = p.traversal;
  if (p.twoLevel !== null) out.twoLevelCounting = p.twoLevel === 'on';
  if (p.expertPlacement !== null) out.expertPlacement = p.expertPlacement;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A short label for progress bars and logs. */
export function jobLabel(p: SweepParams): string {
  return `${p.model} ${p.backend} ${p.policy} b${p.batch}${p.tp !== null && p.tp > 1 ? ` tp${p.tp}` : ''}`;
}

/** Configurations a spec may expand to unless `--max-jobs` says more (a sweep this size takes hours, its ids fit in memory). */
export const DEFAULT_MAX_JOBS = 100_000;
