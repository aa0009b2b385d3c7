/**
 * Contribution points a backend binds in its `ContainerModule`. `Symbol.for` keys keep the
 * tokens identical even if two copies of `@fleet/core` end up in one process.
 */
export const TOKENS = {
  /** `Topology` (data, validated against the schema). Exactly one. */
  Topology: Symbol.for('fleet.core.Topology'),
  /** `CostModel`. Exactly one. */
  CostModel: Symbol.for('fleet.core.CostModel'),
  /** `BackendTuning`, at most one: workers and schedulers, kernel granularity, cluster size, rare refusals. */
  Tuning: Symbol.for('fleet.core.Tuning'),
  /** `StreamContribution`, zero or more (multi-binding): backend accounting on the event stream. */
  StreamContribution: Symbol.for('fleet.core.StreamContribution'),
  /** `CollectiveModel`, zero or more (multi-binding). */
  Collective: Symbol.for('fleet.core.Collective'),
  /** `KernelLibrary`, at most one: how the vendor libraries pick kernels for kernel-per-op policies. */
  KernelLibrary: Symbol.for('fleet.core.KernelLibrary'),
  /** `NodeSpec`, at most one: the multi-device node this device ships in and its collective library (tensor parallelism). */
  Node: Symbol.for('fleet.core.Node'),
  /**
   * Contribution points any plugin (backend or extension) may add to (multi-bindings):
   * `Policy` — a scheduling policy (@fleet/ops' `Policy` interface);
   * `ValidationSuite` — a `fleet validate` suite; `ReportSection` — a section of `fleet report`.
   */
  Policy: Symbol.for('fleet.core.Policy'),
  ValidationSuite: Symbol.for('fleet.core.ValidationSuite'),
  ReportSection: Symbol.for('fleet.core.ReportSection'),
  /** `Backend`: the assembled view of the above, bound by core. */
  Backend: Symbol.for('fleet.core.Backend'),
} as const;

/** Tokens every backend must bind. */
export const REQUIRED_TOKENS = ['Topology', 'CostModel'] as const;

/** The contribution points a plugin may multi-bind; the registry collects them with their origin. */
export const CONTRIBUTION_TOKENS = ['Policy', 'ValidationSuite', 'ReportSection'] as const;
