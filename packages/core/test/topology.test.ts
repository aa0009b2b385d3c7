import { describe, it, expect } from 'vitest';
import { topologySchema } from '../src/topology/schema.js';
import { coherenceScope, partitionCount, totalComputeUnits } from '../src/topology/topology.js';
import { describeAjvError, validateTopology } from '../src/topology/validate.js';
import { expectFleetError, testTopology } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: the edits reach into any field, including ones the schema rejects
type Editable = any;

/** A deep copy of the test topology, edited by `edit` (which may break it on purpose). */
function variant(edit: (t: Editable) => void): unknown {
  const t = structuredClone(testTopology()) as Editable;
  edit(t);
  return t;
}

function invalid(edit: (t: Editable) => void, ...words: string[]) {
  return expectFleetError(() => validateTopology(variant(edit), 'unit-test.json'), 2, 'invalid topology from unit-test.json', ...words);
}

describe('validateTopology', () => {
  it('accepts the test topology and its shared-L2 and LLC-less variants, returning the same object', () => {
    const t = testTopology();
    expect(validateTopology(t, 'x')).toBe(t);
    expect(testTopology({ sharedL2: true }).memory.l2.organisation).toBe('shared');
    expect(testTopology({ noLlc: true }).memory.llc).toBeUndefined();
    expect(totalComputeUnits(t)).toBe(8);
    expect(partitionCount(t)).toBe(2);
    expect(coherenceScope(t, 'device').release.writeBackDirty).toBe(true);
  });

  it('rejects an unknown property, naming its pointer and the property', () => {
    invalid((t) => (t.memory.l2.colour = 'blue'), '/memory/l2', "additional properties 'colour'");
  });

  it('rejects unknown properties at the root and in nested objects', () => {
    invalid((t) => (t.vendor = 'acme'), '(root)', "'vendor'");
    invalid((t) => (t.coherence[0].release.extra = 1), '/coherence/0/release', "'extra'");
    invalid((t) => (t.computeUnit.l1.banks = 4), '/computeUnit/l1', "'banks'");
  });

  it('names the JSON pointer of a value out of range', () => {
    invalid((t) => (t.memory.l2.lineBytes = 0), '/memory/l2/lineBytes', 'must be >= 1');
    invalid((t) => (t.memory.hbm.achievableBandwidthBytesPerNs = 0), '/memory/hbm/achievableBandwidthBytesPerNs');
    invalid((t) => (t.memory.llc.associativity = 1.5), '/memory/llc/associativity', 'integer');
    invalid((t) => (t.partitions.computeUnits = []), '/partitions/computeUnits');
  });

  it('lists the allowed values of an enum', () => {
    invalid((t) => (t.memory.l2.organisation = 'private'), '/memory/l2/organisation', 'per-partition, shared');
  });

  it('names a missing required property', () => {
    invalid((t) => delete t.memory.hbm, '/memory', "'hbm'");
    invalid((t) => delete t.sources, '(root)', "'sources'");
  });

  it('rejects a non-object', () => {
    expectFleetError(() => validateTopology(42, 'num'), 2, 'num', '(root)', 'must be object');
    expectFleetError(() => validateTopology(null, 'nul'), 2, 'nul', '(root)');
  });

  it('rejects a name that is not a lower-case slug', () => {
    invalid((t) => (t.name = 'Test GPU'), '/name');
  });

  it('rejects a shared L2 without halves or farExtraLatencyNs', () => {
    invalid(
      (t) => {
        t.memory.l2.organisation = 'shared';
        t.memory.l2.farExtraLatencyNs = 10;
      },
      '/memory/l2',
      'shared L2',
      "'halves'",
    );
    invalid(
      (t) => {
        t.memory.l2.organisation = 'shared';
        t.memory.l2.halves = 2;
      },
      '/memory/l2',
      "'farExtraLatencyNs'",
    );
  });

  it('rejects a cache capacity that is not a multiple of line × ways, naming the cache', () => {
    invalid((t) => (t.memory.l2.capacityBytes = 64 * 1024 + 128), '/memory/l2', 'multiple of lineBytes × associativity');
    invalid((t) => (t.memory.llc.capacityBytes = 1000), '/memory/llc', 'multiple');
    invalid((t) => (t.computeUnit.l1.associativity = 3), '/computeUnit/l1', 'multiple');
  });

  it('rejects a duplicate coherence scope and a missing chiplet or device scope', () => {
    invalid((t) => t.coherence.push(structuredClone(t.coherence[0])), '/coherence/2/scope', "duplicate scope 'chiplet'");
    invalid((t) => (t.coherence = t.coherence.filter((c: { scope: string }) => c.scope !== 'device')), '/coherence', "missing scope 'device'");
    invalid((t) => (t.coherence = t.coherence.filter((c: { scope: string }) => c.scope !== 'chiplet')), "missing scope 'chiplet'");
  });

  it('the schema requires every top-level field a Topology has', () => {
    const keys = Object.keys(testTopology()).sort();
    expect([...topologySchema.required].sort()).toEqual(keys);
  });

  it('describeAjvError formats a pointer, the message and the detail', () => {
    expect(describeAjvError({ instancePath: '', keyword: 'type', schemaPath: '#/type', params: { type: 'object' }, message: 'must be object' })).toBe(
      '(root): must be object',
    );
    expect(
      describeAjvError({
        instancePath: '/a/b',
        keyword: 'enum',
        schemaPath: '#',
        params: { allowedValues: ['x', 'y'] },
        message: 'must be equal to one of the allowed values',
      }),
    ).toBe('/a/b: must be equal to one of the allowed values (allowed: x, y)');
  });
});
