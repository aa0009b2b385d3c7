/**
 * What the loaded plugins bound to a contribution point, each value checked before use: its
 * data fields against a JSON Schema (ajv), its methods present. A wrong one is a one-line error
 * naming the plugin, not a failure mid-command.
 */
import { describeAjvError, inputError, schemaCompiler, type BackendRegistry } from '@fleet/core';

/**
 * The values bound to `token`, in load order, each checked against `schema` and `methods`, and
 * unique by their `key` field (a second one with the same key names both plugins).
 */
export function checkedContributions<T>(
  registry: BackendRegistry,
  token: symbol,
  what: string,
  check: { schema: object; methods: readonly string[]; key: keyof T & string },
): T[] {
  const validate = schemaCompiler().compile(check.schema);
  const seen = new Map<unknown, string>();
  return registry.contributions(token).map(({ value, origin }) => {
    if (!validate(value)) throw inputError(`${origin}: ${what} ${describeAjvError(validate.errors![0]!)}`);
    const v = value as Record<string, unknown>;
    for (const m of check.methods) if (typeof v[m] !== 'function') throw inputError(`${origin}: ${what} must have a method ${m}()`);
    const key = v[check.key];
    if (seen.has(key)) throw inputError(`${what} '${String(key)}' is bound twice: by ${seen.get(key)} and ${origin}`);
    seen.set(key, origin);
    return value as T;
  });
}
