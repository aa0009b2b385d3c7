/**
 * A scheduling policy: how a step's op graph becomes tasks, which runtime runs them, and what
 * it needs of a backend. Each family of policies is one module (kernel-per-op.ts,
 * megakernel.ts, clusterfusion.ts); a package outside Fleet adds its own by binding
 * `TOKENS.Policy` (see registry.ts).
 */
import type { Backend, OpGraph, PersistentOptions, TaskGraph } from '@fleet/core';
import type { CompileOptions } from '../compile/lowering.js';
import type { Schedule } from '../compile/schedule.js';
import type { PolicyRunOptions } from './options.js';

/** How the simulation runs a policy's task graph. */
export interface RuntimeOptions {
  /** Kernel-per-op: eager launches or one replayed graph. */
  launchMode?: 'eager' | 'graph';
  /** Persistent megakernels: workers, schedulers, completion counting. */
  persistent?: PersistentOptions;
}

export interface Policy {
  /** What users pass to `--policies` (lower-case, digits, dots and dashes). */
  readonly name: string;
  readonly description: string;
  /** The schedule it runs with; user overrides apply to a copy. */
  readonly schedule: Schedule;
  /**
   * Why it cannot run on `backend`, decided from the backend's topology and contributions
   * (partition-private L2, thread-block clusters, cluster collectives…), or null.
   */
  unsupportedOn(backend: Backend): string | null;
  /** Why it has no prefill (or mixed-step) schedule, or null. */
  readonly prefill: string | null;
  /** Why it has no tensor-parallel schedule, or null. */
  readonly tensorParallel: string | null;
  /**
   * Why it cannot honour `opts` — a weight type its kernels are not modelled with, a schedule
   * override its lowering never reads — or null. Without it, only `prefill` and
   * `tensorParallel` refuse. Quote option fields in backticks (`` `weights` ``).
   */
  refusesOptions?(opts: PolicyRunOptions): string | null;
  /** Why `fleet verify` cannot run it with data on `model`, or null. */
  functional(model: { mla?: unknown }): string | null;
  /** Compile one step's op graph into a task graph on `backend`. */
  compile(graph: OpGraph, backend: Backend, schedule: Schedule, opts: CompileOptions): TaskGraph;
  /** How `backend` runs the compiled graph. */
  runtime(backend: Backend, schedule: Schedule): RuntimeOptions;
  /** The policy a lone linear op runs under, when not this one (a fused block's outside kernels). */
  readonly linearPolicy?: Policy;
}
