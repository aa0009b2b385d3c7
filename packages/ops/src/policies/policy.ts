import type { AccessPolicy, ExecutionStyle } from '@fleet/core';

/** How a scheduling policy turns an op graph into tasks. */
export interface PolicyDef {
  name: string;
  description: string;
  style: ExecutionStyle;
  /** Kernel-per-op: eager launches or one replayed graph. */
  launchMode?: 'eager' | 'graph';
  /** Linear ops as chiplet-tasks (one per partition, N-split) instead of CU-tasks. */
  chipletLinear: boolean;
  /**
   * Chiplet-task tile order: cooperative M-major (a weight tile shared in L2 by the workers
   * of successive batch tiles), M-split (each XCD one batch tile), or N-major (successive
   * workers on different columns: the thrashing order).
   */
  traversal?: 'm-tile' | 'm-split' | 'n-major';
  /** Fuse SiLU·mul into the gate+up projection's epilogue. */
  fuseActivation: boolean;
  /** Vendor-BLAS style split-K when the output alone cannot fill the device. */
  splitK: boolean;
  weightPolicy: AccessPolicy;
  storePolicy: AccessPolicy;
  /** Persistent: two-level completion counting for chiplet-tasks. */
  twoLevelCounting: boolean;
  /** Persistent: schedulers own their partition's workers. */
  chipletAware: boolean;
  /**
   * Chiplet-task policies, MoE: which partition runs an expert's tiles. `owner`: expert e on
   * partition e mod P, so its weights, inputs and outputs stay in one L2; `spread`: every
   * expert's columns over all partitions (balanced, each reads every expert's inputs).
   * Default `spread`: with few active experts (Mixtral at batch 1: 2 of 8) owners idle most
   * partitions.
   */
  expertPlacement?: 'owner' | 'spread';
}

export const POLICIES: readonly PolicyDef[] = [
  {
    name: 'kernel-per-op',
    description: 'one kernel per op (vLLM-style fusions), eager launches, vendor BLAS with split-K',
    style: 'kernel-per-op',
    launchMode: 'eager',
    chipletLinear: false,
    fuseActivation: false,
    splitK: true,
    weightPolicy: 'default',
    storePolicy: 'default',
    twoLevelCounting: false,
    chipletAware: false,
  },
  {
    name: 'kernel-per-op-graph',
    description: 'the same kernels replayed as one CUDA/HIP graph',
    style: 'kernel-per-op',
    launchMode: 'graph',
    chipletLinear: false,
    fuseActivation: false,
    splitK: true,
    weightPolicy: 'default',
    storePolicy: 'default',
    twoLevelCounting: false,
    chipletAware: false,
  },
  {
    name: 'mirage',
    description: 'persistent megakernel, CU-tasks, no chiplet awareness (Mirage MPK)',
    style: 'persistent',
    chipletLinear: false,
    fuseActivation: false,
    splitK: false,
    weightPolicy: 'default',
    storePolicy: 'default',
    twoLevelCounting: false,
    chipletAware: false,
  },
  {
    name: 'fleet-mtile',
    description: 'persistent, chiplet-tasks, cooperative M-major tiling, streaming weights, NT stores, fused SiLU',
    style: 'persistent',
    chipletLinear: true,
    traversal: 'm-tile',
    fuseActivation: true,
    splitK: false,
    weightPolicy: 'streaming',
    storePolicy: 'nontemporal',
    twoLevelCounting: true,
    chipletAware: true,
  },
  {
    name: 'fleet-msplit',
    description: 'persistent, chiplet-tasks, M-split (no weight sharing), streaming weights, NT stores, fused SiLU',
    style: 'persistent',
    chipletLinear: true,
    traversal: 'm-split',
    fuseActivation: true,
    splitK: false,
    weightPolicy: 'streaming',
    storePolicy: 'nontemporal',
    twoLevelCounting: true,
    chipletAware: true,
  },
  {
    name: 'clusterfusion',
    description: 'Hopper: QKV projection + attention + output projection fused per head group in a thread-block cluster (DSMEM collectives), FFN as kernels, one graph',
    style: 'kernel-per-op',
    launchMode: 'graph',
    chipletLinear: false,
    fuseActivation: false,
    splitK: true,
    weightPolicy: 'default',
    storePolicy: 'default',
    twoLevelCounting: false,
    chipletAware: false,
  },
];

/** Schedule knobs a user may override on any policy, to isolate one mechanism. */
export interface PolicyOverrides {
  weightPolicy?: AccessPolicy;
  storePolicy?: AccessPolicy;
  fuseActivation?: boolean;
  traversal?: 'm-tile' | 'm-split' | 'n-major';
  twoLevelCounting?: boolean;
  expertPlacement?: 'owner' | 'spread';
}

/** A policy with overrides applied (the name stays; callers report the overrides). */
export function withOverrides(def: PolicyDef, o: PolicyOverrides | undefined): PolicyDef {
  if (!o) return def;
  const out = { ...def };
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

export function policyNames(): string[] {
  return POLICIES.map((p) => p.name);
}
