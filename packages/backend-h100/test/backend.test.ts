import { loadBackend } from '@fleet/core';
import { runConformanceSuite } from '@fleet/core/conformance';
import { describe, expect, it } from 'vitest';
import descriptor from '../src/index.js';

runConformanceSuite(descriptor);

describe('h100 descriptor', () => {
  it('loads through core', () => {
    const b = loadBackend(descriptor, 'test');
    expect(b.name).toBe('h100');
    expect(b.topology.name).toBe('h100');
    expect(b.tuning.persistent?.workersPerPartition).toBeGreaterThan(0);
  });
});
