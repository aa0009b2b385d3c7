import { schemaValidator } from '../topology/schema-compiler.js';
import { lineError, showValue } from './messages.js';
import type { ModelSpec } from './model-spec.js';

/**
 * The numerical constants of a Hugging Face `config.json` that change a model's numbers but
 * not its shapes: the RoPE base and the RMSNorm epsilon. The timing simulation never reads
 * them; functional runs (`fleet verify`) compute with them. A config that omits one (or
 * writes `null`) leaves it to the consumer's default, as transformers does.
 */

/** Config field → `ModelSpec` field; each schema's `description` is the rule its error states. */
const FIELDS = {
  rope_theta: 'ropeTheta',
  rms_norm_eps: 'rmsNormEps',
} as const satisfies Record<string, keyof ModelSpec>;

type ConfigField = keyof typeof FIELDS;

const positive = { type: 'number', exclusiveMinimum: 0, description: 'a positive number' } as const;

const schema = {
  type: 'object',
  properties: { rope_theta: positive, rms_norm_eps: positive },
} as const;

const validate = schemaValidator(schema);

/** The numerical constants a config states, as `ModelSpec` fields (only those present). */
export type ModelNumerics = Pick<ModelSpec, (typeof FIELDS)[ConfigField]>;

/**
 * Read `rope_theta` and `rms_norm_eps` from a parsed config; a bad value is a one-line
 * `FleetError` naming `origin` and the field.
 */
export function parseNumerics(cfg: Record<string, unknown>, origin: string): ModelNumerics {
  const stated: Partial<Record<ConfigField, unknown>> = {};
  for (const f of Object.keys(FIELDS) as ConfigField[]) {
    if (cfg[f] !== undefined && cfg[f] !== null) stated[f] = cfg[f];
  }
  if (!validate(stated)) {
    const field = validate.errors![0]!.instancePath.slice(1) as ConfigField;
    throw lineError(`${origin}: field '${field}' (${showValue(stated[field])}) must be ${schema.properties[field].description}`);
  }
  const out: ModelNumerics = {};
  for (const f of Object.keys(stated) as ConfigField[]) out[FIELDS[f]] = stated[f] as number;
  return out;
}
