/**
 * The installed policies: Fleet's own, then any a plugin package contributes by binding
 * `TOKENS.Policy` in its module (discovered as backends are). One resolver decides whether a
 * backend runs a policy: the backend's explicit refusal, else the policy's own requirements.
 */
import { inputError, schemaValidator, TOKENS, type Backend, type BackendRegistry, type OpGraph, type TaskGraph } from '@fleet/core';
import type { CompileOptions } from '../compile/lowering.js';
import { withOverrides, type PolicyOverrides, type Schedule } from '../compile/schedule.js';
import { CLUSTERFUSION } from './clusterfusion.js';
import { KERNEL_PER_OP, KERNEL_PER_OP_GRAPH } from './kernel-per-op.js';
import { FLEET_MSPLIT, FLEET_MTILE, FLEET_KSPLIT, MIRAGE } from './megakernel.js';
import type { Policy } from './policy.js';
import { FLEET_WAVE_KSPLIT } from './wave-ksplit.js';

/** Fleet's policies, in the order reports list them. */
export const BUILTIN_POLICIES: readonly Policy[] = [
  KERNEL_PER_OP,
  KERNEL_PER_OP_GRAPH,
  MIRAGE,
  FLEET_MTILE,
  FLEET_MSPLIT,
  FLEET_KSPLIT,
  FLEET_WAVE_KSPLIT,
  CLUSTERFUSION,
];

const validatePolicy = schemaValidator({
  type: 'object',
  required: ['name', 'description', 'schedule', 'prefill', 'tensorParallel'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9.-]*$' },
    description: { type: 'string' },
    schedule: {
      type: 'object',
      required: ['style', 'fuseActivation', 'splitK', 'weightPolicy', 'storePolicy', 'twoLevelCounting', 'chipletAware'],
      properties: {
        style: { enum: ['persistent', 'kernel-per-op'] },
        launchMode: { enum: ['eager', 'graph'] },
        traversal: { enum: ['m-tile', 'm-split', 'n-major'] },
        fuseActivation: { type: 'boolean' },
        splitK: { type: 'boolean' },
        weightPolicy: { enum: ['default', 'streaming', 'nontemporal'] },
        storePolicy: { enum: ['default', 'streaming', 'nontemporal'] },
        twoLevelCounting: { type: 'boolean' },
        chipletAware: { type: 'boolean' },
        expertPlacement: { enum: ['owner', 'spread'] },
      },
    },
    prefill: { type: ['string', 'null'] },
    tensorParallel: { type: ['string', 'null'] },
  },
});

/** Check a contributed policy's shape, so a wrong one fails at load with its origin, not mid-simulation. */
export function checkPolicy(value: unknown, origin: string): Policy {
  if (!validatePolicy(value)) {
    const e = validatePolicy.errors![0]!;
    throw inputError(`${origin}: TOKENS.Policy binding${e.instancePath ? ` ${e.instancePath}` : ''} ${e.message ?? 'is invalid'}`);
  }
  const p = value as unknown as Record<string, unknown>;
  for (const m of ['unsupportedOn', 'functional', 'compile', 'runtime']) {
    if (typeof p[m] !== 'function') throw inputError(`${origin}: TOKENS.Policy '${String(p.name)}' must have a method ${m}()`);
  }
  return value as Policy;
}

/** Policies by name; a second policy with the same name is an error. */
export class PolicyRegistry {
  private readonly byName = new Map<string, { policy: Policy; origin: string }>();

  constructor(policies: readonly Policy[] = BUILTIN_POLICIES, origin = '@fleet/ops') {
    for (const p of policies) this.add(p, origin);
  }

  /** Add a policy (checked: a contributed value may have any shape). */
  add(policy: Policy, origin: string): void {
    const prev = this.byName.get(policy.name);
    if (prev) throw inputError(`duplicate policy name '${policy.name}': from ${prev.origin} and ${origin}`);
    this.byName.set(policy.name, { policy: checkPolicy(policy, origin), origin });
  }

  get(name: string): Policy | undefined {
    return this.byName.get(name)?.policy;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  all(): Policy[] {
    return [...this.byName.values()].map((v) => v.policy);
  }
}

/** Fleet's own policies and those the loaded plugins contributed (`TOKENS.Policy`). */
export function installedPolicies(backends?: BackendRegistry): PolicyRegistry {
  const registry = new PolicyRegistry();
  for (const { value, origin } of backends?.contributions(TOKENS.Policy) ?? []) registry.add(value as Policy, origin);
  return registry;
}

const builtin = new PolicyRegistry();

/** Why `backend` cannot run `policy` (its explicit refusal first, then the policy's requirements), or null. */
export function unsupportedReason(backend: Backend, policy: Policy): string | null {
  return backend.tuning.policies?.[policy.name]?.refuse ?? policy.unsupportedOn(backend);
}

/** A policy resolved for a run: the policy and its schedule with the user's overrides. */
export interface ResolvedPolicy {
  policy: Policy;
  schedule: Schedule;
}

/**
 * The policy a prediction runs, with the user's overrides; or why the backend cannot run it.
 * `policy` is a name (looked up in `registry`, Fleet's own policies by default) or a policy object.
 */
export function resolvePolicy(
  backend: Backend,
  policy: string | Policy,
  overrides?: PolicyOverrides,
  registry: PolicyRegistry = builtin,
): ResolvedPolicy | { reason: string } {
  const p = typeof policy === 'string' ? registry.get(policy) : policy;
  if (!p) return { reason: `no installed policy is named '${String(policy)}' (installed: ${registry.names().join(', ')})` };
  const why = unsupportedReason(backend, p);
  if (why) return { reason: why };
  return { policy: p, schedule: withOverrides(p.schedule, overrides) };
}

/** The names of Fleet's own policies (help texts; plugins may add more). */
export function policyNames(): string[] {
  return builtin.names();
}

/**
 * Compile `graph` under `policy` on `backend` with exactly `opts` (no tuning added) and the
 * policy's schedule with `overrides`: for experiments on one policy's task graph.
 */
export function compilePolicy(graph: OpGraph, policy: Policy, backend: Backend, opts: CompileOptions, overrides?: PolicyOverrides): TaskGraph {
  return policy.compile(graph, backend, withOverrides(policy.schedule, overrides), opts);
}
