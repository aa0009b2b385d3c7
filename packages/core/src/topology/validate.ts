import type { ErrorObject } from 'ajv/dist/2020.js';
import { schemaValidator } from './schema-compiler.js';
import { escapeControls, lineError } from '../model/messages.js';
import { MAX_CACHE_BYTES, topologySchema } from './schema.js';
import type { Topology } from './topology.js';

const validateFn = schemaValidator<Topology>(topologySchema);

/** Compute units of a whole device: each one is simulated, so their number is bounded. */
export const MAX_TOTAL_COMPUTE_UNITS = 65536;

/** One line naming the JSON pointer and the rule that failed (control characters in keys escaped). */
export function describeAjvError(e: ErrorObject): string {
  const where = e.instancePath === '' ? '(root)' : e.instancePath;
  const allowed = e.params && 'allowedValues' in e.params ? ` (allowed: ${(e.params.allowedValues as unknown[]).join(', ')})` : '';
  const extra = e.params && 'additionalProperty' in e.params ? ` '${String(e.params.additionalProperty)}'` : '';
  return escapeControls(`${where}: ${e.message ?? e.keyword}${extra}${allowed}`);
}

/**
 * Validate a topology against the schema and its cross-field rules; throws a one-line
 * `FleetError` naming `origin` (the backend or file) and the offending field.
 */
export function validateTopology(data: unknown, origin: string): Topology {
  const fail = (msg: string): never => {
    throw lineError(`invalid topology from ${origin}: ${msg}`);
  };
  if (!validateFn(data)) {
    const err = validateFn.errors?.[0];
    fail(err ? describeAjvError(err) : 'does not match the schema');
  }
  const t = data as Topology;
  const l2 = t.memory.l2;
  if (l2.organisation === 'shared' && (l2.halves === undefined || l2.farExtraLatencyNs === undefined)) {
    fail(`/memory/l2: a shared L2 needs 'halves' and 'farExtraLatencyNs'`);
  }
  for (const [ptr, c] of [
    ['/memory/l2', l2],
    ['/memory/llc', t.memory.llc],
    ['/computeUnit/l1', t.computeUnit.l1],
  ] as const) {
    if (!c) continue;
    const sets = c.capacityBytes / (c.lineBytes * c.associativity);
    if (!Number.isInteger(sets)) fail(`${ptr}: capacityBytes must be a multiple of lineBytes × associativity`);
  }
  const partitions = t.partitions.computeUnits.length;
  if (l2.organisation === 'per-partition' && l2.capacityBytes * partitions > MAX_CACHE_BYTES) {
    fail(
      `/memory/l2/capacityBytes: ${partitions} per-partition L2s of ${l2.capacityBytes} bytes exceed ${MAX_CACHE_BYTES} bytes in total (at most ${Math.floor(MAX_CACHE_BYTES / partitions)} each)`,
    );
  }
  const units = t.partitions.computeUnits.reduce((a, b) => a + b, 0);
  if (units > MAX_TOTAL_COMPUTE_UNITS) fail(`/partitions/computeUnits: ${units} compute units in total exceed ${MAX_TOTAL_COMPUTE_UNITS}`);
  const scopes = new Set<string>();
  for (const [i, s] of t.coherence.entries()) {
    if (scopes.has(s.scope)) fail(`/coherence/${i}/scope: duplicate scope '${s.scope}'`);
    scopes.add(s.scope);
  }
  for (const need of ['chiplet', 'device'] as const) {
    if (!scopes.has(need)) fail(`/coherence: missing scope '${need}' (needed by the runtimes)`);
  }
  return t;
}
