import type { ValidationRow } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import { formatSuiteSummary, summariseSuites } from '../src/index.js';

const row = (suite: string, kind: ValidationRow['kind'], error: number): ValidationRow => ({
  suite,
  experiment: 'x',
  kind,
  published: 1,
  predicted: 1 + error / 100,
  unit: 'µs',
  error,
  errorUnit: '%',
  tolerance: 10,
  ok: Math.abs(error) <= 10,
  source: 'test',
});

describe('suite summaries', () => {
  it('average predicted rows only, and say when a suite predicts nothing', () => {
    const [mixed, cal] = summariseSuites([row('a', 'calibration', 30), row('a', 'measurement', -4), row('a', 'claim', 8), row('b', 'calibration', 2)]);
    expect(formatSuiteSummary(mixed!)).toBe('a: 2 of 3 within tolerance; MAPE 6.0% (2 predicted)');
    expect(formatSuiteSummary(cal!)).toBe('b: 1 of 1 within tolerance; no predicted rows (calibration only)');
  });
});
