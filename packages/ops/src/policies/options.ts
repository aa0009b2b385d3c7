/**
 * Which run options a policy honours. A policy that cannot honour an option refuses the run
 * with the reason (an `unsupported` result), rather than running without it and reporting
 * numbers labelled with an option it ignored.
 */
import type { Backend } from '@fleet/core';
import type { PolicyOverrides } from '../compile/schedule.js';
import type { WeightType } from '../quant/weight-type.js';

/** What a prediction asks of its policy beyond the backend and the model. */
export interface PolicyRunOptions {
  /** The step simulated: a decode step (default), a prefill, or a mixed serving step. */
  phase?: 'decode' | 'prefill' | 'mixed';
  /** Decoder-layer linear weights (default bf16). */
  weights?: WeightType;
  /** Schedule knobs the user overrode. */
  overrides?: PolicyOverrides;
  /** Tensor-parallel degree (default 1). */
  tp?: number;
  /** Expert-parallel degree (default 1). */
  ep?: number;
}

/** A schedule knob a user may override. */
export type ScheduleKnob = keyof PolicyOverrides;

/** Every schedule knob, in the order messages list them. */
export const SCHEDULE_KNOBS: readonly ScheduleKnob[] = [
  'weightPolicy',
  'storePolicy',
  'fuseActivation',
  'traversal',
  'twoLevelCounting',
  'expertPlacement',
  'clusterSize',
  'clusterDataflow',
  'dsmem',
];

/** The knobs a thread-block-cluster policy reads (ClusterFusion's cluster kernel). */
export const CLUSTER_KNOBS: readonly ScheduleKnob[] = ['clusterSize', 'clusterDataflow', 'dsmem'];

/** What each knob sets, for refusal messages. */
const KNOB_MEANING: Readonly<Record<ScheduleKnob, string>> = {
  weightPolicy: 'how weight tiles are loaded',
  storePolicy: 'how activations are stored',
  fuseActivation: 'fusing SiLU·mul into the gate+up projection',
  traversal: "the order of a chiplet-task's tiles",
  twoLevelCounting: "a persistent megakernel's completion counting",
  expertPlacement: "which partition runs an expert's chiplet-tasks",
  attentionMapping: "the order a prefill's attention workgroups are dispatched in",
  clusterSize: 'CTAs per thread-block cluster',
  clusterDataflow: 'how a cluster splits a head group',
  dsmem: "whether a cluster's collectives use distributed shared memory",
};

/**
 * Options no policy can honour in the run's phase: an attention mapping orders a prefill's
 * attention grid, and a decode step's attention has none to order.
 */
export function refusedInPhase(o: PolicyRunOptions): string | null {
  if (o.phase === 'decode' && o.overrides?.attentionMapping !== undefined)
    return `\`attentionMapping\` (${KNOB_MEANING.attentionMapping}) applies to a prefill; a decode step's attention has no grid to order`;
  return null;
}

/**
 * The refusal for overrides a schedule has no use for: `honoured` lists the knobs the
 * policy's lowering and runtime read. Fields are quoted (`traversal`) so a CLI can name its flags.
 */
export function unusedOverrides(policy: string, overrides: PolicyOverrides | undefined, honoured: readonly ScheduleKnob[]): string | null {
  const unused = SCHEDULE_KNOBS.filter((k) => overrides?.[k] !== undefined && !honoured.includes(k));
  if (unused.length === 0) return null;
  const what = unused.map((k) => `\`${k}\` (${KNOB_MEANING[k]})`).join(', ');
  const uses = honoured.length > 0 ? `it uses ${honoured.map((k) => `\`${k}\``).join(', ')}` : 'it takes no schedule override';
  return `${policy} has no use for ${what}: ${uses}`;
}

/** The refusal for weights other than dense 16-bit ones, for a policy whose kernels are modelled with those only. */
export function sixteenBitWeightsOnly(policy: string, weights: WeightType | undefined, why: string): string | null {
  if (!weights || (weights.kind === 'dense' && weights.bits === 16)) return null;
  return `${policy} runs with 16-bit weights only (\`weights\` ${weights.name}): ${why}`;
}

/** The refusal of W8A8 FP8 weights for a policy whose tiles have no FP8 matrix path. */
export function noFp8Tiles(policy: string, weights: WeightType | undefined, why: string): string | null {
  if (weights?.kind !== 'fp8') return null;
  return `${policy} has no W8A8 FP8 GEMM (\`weights\` ${weights.name}): ${why}`;
}

/**
 * Why `backend` cannot run a W8A8 FP8 GEMM of these types: its kernel library names the FP8
 * encodings its device's matrix units take (OCP e4m3/e5m2 on Hopper and CDNA4, FNUZ on
 * CDNA3), and a library without an FP8 model runs none.
 */
export function fp8RefusalOn(backend: Backend, weights: WeightType | undefined): string | null {
  if (weights?.kind !== 'fp8') return null;
  const lib = backend.kernelLibrary;
  const why = !backend.topology.computeUnit.matrixFlopsPerNs.fp8
    ? 'its topology gives no FP8 matrix rate (no FP8 tensor cores)'
    : lib?.fp8Refusal
      ? lib.fp8Refusal({ weights: weights.type.name, activations: weights.activation.name, scales: weights.scales })
      : 'its kernel library model has no FP8 GEMM';
  return why ? `${backend.name} runs no W8A8 GEMM for \`weights\` ${weights.name}: ${why}` : null;
}
