import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { inputError } from '../errors/fleet-error.js';
import { topologySchema } from './schema.js';
import type { Topology } from './topology.js';

const ajv = new Ajv2020({ strict: true, allErrors: false });
const validateFn = ajv.compile<Topology>(topologySchema);

/** One line naming the JSON pointer and the rule that failed. */
export function describeAjvError(e: ErrorObject): string {
  const where = e.instancePath === '' ? '(root)' : e.instancePath;
  const allowed = e.params && 'allowedValues' in e.params ? ` (allowed: ${(e.params.allowedValues as unknown[]).join(', ')})` : '';
  const extra = e.params && 'additionalProperty' in e.params ? ` '${String(e.params.additionalProperty)}'` : '';
  return `${where}: ${e.message ?? e.keyword}${extra}${allowed}`;
}

/**
 * Validate a topology against the schema and its cross-field rules; throws a one-line
 * `FleetError` naming `origin` (the backend or file) and the offending field.
 */
export function validateTopology(data: unknown, origin: string): Topology {
  if (!validateFn(data)) {
    const err = validateFn.errors?.[0];
    throw inputError(`invalid topology from ${origin}: ${err ? describeAjvError(err) : 'does not match the schema'}`);
  }
  const t = data;
  const l2 = t.memory.l2;
  if (l2.organisation === 'shared' && (l2.halves === undefined || l2.farExtraLatencyNs === undefined)) {
    throw inputError(`invalid topology from ${origin}: /memory/l2: a shared L2 needs 'halves' and 'farExtraLatencyNs'`);
  }
  for (const [ptr, c] of [['/memory/l2', l2], ['/memory/llc', t.memory.llc], ['/computeUnit/l1', t.computeUnit.l1]] as const) {
    if (!c) continue;
    const sets = c.capacityBytes / (c.lineBytes * c.associativity);
    if (!Number.isInteger(sets)) {
      throw inputError(`invalid topology from ${origin}: ${ptr}: capacityBytes must be a multiple of lineBytes × associativity`);
    }
  }
  const scopes = new Set<string>();
  for (const [i, s] of t.coherence.entries()) {
    if (scopes.has(s.scope)) throw inputError(`invalid topology from ${origin}: /coherence/${i}/scope: duplicate scope '${s.scope}'`);
    scopes.add(s.scope);
  }
  for (const need of ['chiplet', 'device'] as const) {
    if (!scopes.has(need)) throw inputError(`invalid topology from ${origin}: /coherence: missing scope '${need}' (needed by the runtimes)`);
  }
  return t;
}
