import { loadBackend } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import h200 from '@fleet/backend-h200';
import { describe, expect, it } from 'vitest';
import { h100KsweepValidation, h100KsweepValidationPoints, h200KsweepValidation, h200KsweepValidationPoints } from '../src/index.js';

describe('skinny GEMMs over K', () => {
  it('the H100 runs at M ≤ 8 are calibration rows, the H200 run held out; the H200 streams the same shapes faster', { timeout: 60_000 }, () => {
    expect(h100KsweepValidationPoints()).toBe(534); // 278 at M = 1–64, 256 at M = 128 and 256
    expect(h200KsweepValidationPoints()).toBe(214);
    const a = h100KsweepValidation(loadBackend(h100, 'h100'), { quick: true });
    const b = h200KsweepValidation(loadBackend(h200, 'h200'), { quick: true });
    expect(a.every((r) => r.kind === 'calibration' && r.suite === 'h100-ksweep')).toBe(true);
    expect(b.every((r) => r.kind === 'measurement' && r.suite === 'h200-ksweep')).toBe(true);
    // same shapes, first H100 run against the H200: more bandwidth, less time
    for (let i = 0; i < b.length; i++) expect(b[i]!.predicted).toBeLessThan(a[i]!.predicted);
  });
});
