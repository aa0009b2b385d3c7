/**
 * A schedule: the knobs a policy sets for the shared decompositions and runtimes. A policy's
 * behaviour lives in its family module (policies/); these are the values it runs with, and
 * what a user may override to isolate one mechanism.
 */
import type { AccessPolicy, ExecutionStyle } from '@fleet/core';
import type { AttentionMapping } from '@fleet/attention-study';

/** Chiplet-task tile orders (FLEET): cooperative M-major, M-split, or the thrashing N-major. */
export type Traversal = 'm-tile' | 'm-split' | 'n-major';

/** Which partition runs an MoE expert's chiplet-tasks. */
export type ExpertPlacement = 'owner' | 'spread';

export interface Schedule {
  /** The runtime: a persistent megakernel, or one kernel per stage. */
  style: ExecutionStyle;
  /** Kernel-per-op: eager launches or one replayed graph. */
  launchMode?: 'eager' | 'graph';
  /**
   * Chiplet-task tile order: cooperative M-major (a weight tile shared in L2 by the workers
   * of successive batch tiles), M-split (each XCD one batch tile), or N-major (successive
   * workers on different columns: the thrashing order).
   */
  traversal?: Traversal;
  /** Fuse SiLU·mul into the gate+up projection's epilogue. */
  fuseActivation: boolean;
  /** Vendor-BLAS style split-K when the output alone cannot fill the device (no library model). */
  splitK: boolean;
  weightPolicy: AccessPolicy;
  storePolicy: AccessPolicy;
  /** Persistent: two-level completion counting for chiplet-tasks. */
  twoLevelCounting: boolean;
  /** Persistent: schedulers own their partition's workers. */
  chipletAware: boolean;
  /**
   * Chiplet-task schedules, MoE: which partition runs an expert's tiles. `owner`: expert e on
   * partition e mod P, so its weights, inputs and outputs stay in one L2; `spread`: every
   * expert's columns over all partitions (balanced, each reads every expert's inputs).
   * Default `spread`: with few active experts (Mixtral at batch 1: 2 of 8) owners idle most
   * partitions.
   */
  expertPlacement?: ExpertPlacement;
  /**
   * Prefill attention on a launch-order kernel: which workgroup-to-partition mapping its grid
   * uses (the NUMA attention study's four; `naive-block-first` is the launch order itself).
   * Default: the library kernel's own order.
   */
  attentionMapping?: AttentionMapping;
  /** Cluster policies (ClusterFusion): CTAs per thread-block cluster (default: the backend's tuning). */
  clusterSize?: number;
  /** Cluster policies: how a cluster splits a head group — SplitToken (KV positions) or SplitHead (head dim). */
  clusterDataflow?: 'split-token' | 'split-head';
  /** Cluster policies: exchange through DSMEM (default) or, off, through global memory (the paper's ablation). */
  dsmem?: boolean;
}

/** Schedule knobs a user may override on a policy, to isolate one mechanism. */
export interface PolicyOverrides {
  weightPolicy?: AccessPolicy;
  storePolicy?: AccessPolicy;
  fuseActivation?: boolean;
  traversal?: Traversal;
  twoLevelCounting?: boolean;
  expertPlacement?: ExpertPlacement;
  attentionMapping?: AttentionMapping;
  clusterSize?: number;
  clusterDataflow?: 'split-token' | 'split-head';
  dsmem?: boolean;
}

/** A schedule with overrides applied. */
export function withOverrides(schedule: Schedule, o: PolicyOverrides | undefined): Schedule {
  if (!o) return schedule;
  const out = { ...schedule };
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
