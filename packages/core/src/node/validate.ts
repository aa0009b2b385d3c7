import { schemaValidator } from '../topology/schema-compiler.js';
import { lineError } from '../model/messages.js';
import { describeAjvError } from '../topology/validate.js';
import { nodeTopologySchema } from './schema.js';
import type { NodeTopology } from './node-topology.js';

const validateFn = schemaValidator<NodeTopology>(nodeTopologySchema);

/**
 * Validate a node topology against its schema and cross-field rules; throws a one-line
 * `FleetError` naming `origin` and the field.
 */
export function validateNodeTopology(data: unknown, origin: string): NodeTopology {
  const fail = (msg: string): never => {
    throw lineError(`invalid node topology from ${origin}: ${msg}`);
  };
  if (!validateFn(data)) {
    const e = validateFn.errors?.[0];
    fail(e ? describeAjvError(e) : 'does not match the schema');
  }
  const n = data as NodeTopology;
  if (n.interconnect.kind === 'full-mesh' && n.devices > 1 && n.interconnect.linksPerDevice < n.devices - 1) {
    fail(
      `/interconnect/linksPerDevice: a full mesh of ${n.devices} devices needs at least ${n.devices - 1} links per device (got ${n.interconnect.linksPerDevice})`,
    );
  }
  return n;
}
