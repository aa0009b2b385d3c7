import { loadBackend } from '@fleet/core';
import { runConformanceSuite } from '@fleet/core/conformance';
import { describe, expect, it } from 'vitest';
import descriptor from '../src/index.js';

runConformanceSuite(descriptor);

describe('mi350 descriptor', () => {
  it('loads through core', () => {
    const b = loadBackend(descriptor, 'test');
    expect(b.name).toBe('mi350');
    expect(b.topology.name).toBe('mi350');
    expect(b.tuning.persistent?.workersPerPartition).toBeGreaterThan(0);
  });
});
