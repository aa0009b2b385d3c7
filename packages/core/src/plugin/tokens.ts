/**
 * Contribution points a backend binds in its `ContainerModule`. `Symbol.for` keys keep the
 * tokens identical even if two copies of `@fleet/core` end up in one process.
 */
export const TOKENS = {
  /** `Topology` (data, validated against the schema). Exactly one. */
  Topology: Symbol.for('fleet.core.Topology'),
  /** `CostModel`. Exactly one. */
  CostModel: Symbol.for('fleet.core.CostModel'),
  /** `PolicySupport`, one binding per policy the backend knows about (multi-binding). */
  PolicySupport: Symbol.for('fleet.core.PolicySupport'),
  /** `StreamContribution`, zero or more (multi-binding): backend accounting on the event stream. */
  StreamContribution: Symbol.for('fleet.core.StreamContribution'),
  /** `CollectiveModel`, zero or more (multi-binding). */
  Collective: Symbol.for('fleet.core.Collective'),
  /** `KernelLibrary`, at most one: how the vendor libraries pick kernels for kernel-per-op policies. */
  KernelLibrary: Symbol.for('fleet.core.KernelLibrary'),
  /** `NodeSpec`, at most one: the multi-device node this device ships in and its collective library (tensor parallelism). */
  Node: Symbol.for('fleet.core.Node'),
  /** `Backend`: the assembled view of the above, bound by core. */
  Backend: Symbol.for('fleet.core.Backend'),
} as const;

/** Tokens every backend must bind. */
export const REQUIRED_TOKENS = ['Topology', 'CostModel', 'PolicySupport'] as const;
