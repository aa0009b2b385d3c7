/** The installed policies as the CLI sees them: Fleet's own and those its plugins contribute. */
import { inputError, type Backend, type BackendRegistry } from '@fleet/core';
import { installedPolicies, resolvePolicy, unsupportedReason, type PolicyRegistry, type ResolvedPolicy } from '@fleet/ops';

const cache = new WeakMap<BackendRegistry, PolicyRegistry>();

/** The policies of a loaded plugin set (built once per registry). */
export function policiesOf(registry: BackendRegistry): PolicyRegistry {
  let p = cache.get(registry);
  if (!p) cache.set(registry, (p = installedPolicies(registry)));
  return p;
}

/** Each installed policy on `backend`: whether it runs there, and why not. */
export function policySupport(backend: Backend, policies: PolicyRegistry): { policy: string; supported: boolean; reason?: string }[] {
  return policies.all().map((p) => {
    const reason = unsupportedReason(backend, p);
    return { policy: p.name, supported: reason === null, ...(reason ? { reason } : {}) };
  });
}

/** The policy `name` resolved for one command on `backend`, or an input error naming `flag`. */
export function requirePolicy(backend: Backend, name: string, policies: PolicyRegistry, flag = '--policy'): ResolvedPolicy {
  const policy = policies.get(name);
  if (!policy) throw inputError(`${flag}: unknown policy '${name}' (known: ${policies.names().join(', ')})`);
  const r = resolvePolicy(backend, policy);
  if ('reason' in r) throw inputError(`${flag}: ${name} is unsupported on ${backend.name}: ${r.reason}`);
  return r;
}
