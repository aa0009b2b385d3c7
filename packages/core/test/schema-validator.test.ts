/** Validators come precompiled from the build when their schema is unchanged, else are compiled: the same answers either way. */
import { describe, expect, it } from 'vitest';
import { describeAjvError, requestedSchemas, schemaCompiler, schemaValidator, topologySchema } from '../src/index.js';

describe('schemaValidator', () => {
  it('validates as the strict compiler does, first error only', () => {
    const schema = { type: 'object', additionalProperties: false, required: ['n'], properties: { n: { type: 'integer', minimum: 1 } } };
    const v = schemaValidator(schema);
    const c = schemaCompiler().compile(schema);
    for (const data of [{ n: 2 }, { n: 0 }, { m: 1 }, { n: 1, x: 2 }, 'n']) {
      expect(v(data)).toBe(c(data));
      expect(v.errors?.map(describeAjvError)).toEqual(c.errors?.map(describeAjvError));
    }
    expect(requestedSchemas()).toContain(schema);
  });

  it("a schema changed since the build is compiled, not checked by the build's stale code", () => {
    const { $id: _, ...rest } = topologySchema;
    const changed = { ...rest, maxProperties: 100 };
    const v = schemaValidator(changed);
    expect(v({})).toBe(false);
    expect(describeAjvError(v.errors![0]!)).toBe("(root): must have required property 'name'");
    expect(schemaValidator(topologySchema)).not.toBe(v);
  });
});
