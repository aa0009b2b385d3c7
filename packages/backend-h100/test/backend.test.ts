import { loadBackend } from '@fleet/core';
import { runConformanceSuite } from '@fleet/core/conformance';
import { describe, expect, it } from 'vitest';
import { collectives } from '@fleet/family-hopper';
import descriptor from '../src/index.js';

runConformanceSuite(descriptor);

describe('h100 descriptor', () => {
  it('loads through core', () => {
    const b = loadBackend(descriptor, 'test');
    expect(b.name).toBe('h100');
    expect(b.topology.name).toBe('h100');
    expect(b.tuning.persistent?.workersPerPartition).toBeGreaterThan(0);
  });

  it('binds four collectives under TOKENS.Collective: reduce and gather, on and off chip', () => {
    const b = loadBackend(descriptor, 'test');
    expect(b.collectives.map((c) => `${c.name}:${c.onChip}`).sort()).toEqual(collectives.map((c) => `${c.name}:${c.onChip}`).sort());
    expect(b.collectives.filter((c) => c.onChip)).toHaveLength(2);
  });
});
