import { Ajv2020 } from 'ajv/dist/2020.js';

let shared: Ajv2020 | null = null;

/**
 * The one strict JSON Schema compiler every Fleet module validates data with. Ajv compiles
 * its draft-2020 meta-schema once per instance (about 30 ms), so a compiler per module cost
 * a process — and each of `fleet compare`'s worker threads — a third of a second at start-up.
 */
export function schemaCompiler(): Ajv2020 {
  shared ??= new Ajv2020({ strict: true, allErrors: false });
  return shared;
}
