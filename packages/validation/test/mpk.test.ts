import { describe, expect, it } from 'vitest';
import { loadBackend } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { mpkValidation, speedupRow } from '../src/index.js';

describe('speedup rows', () => {
  it('a slowdown never passes as a speedup, however close; a speedup within tolerance does', () => {
    expect(speedupRow('x', [1.07, 1.15], 0.97, 10, 's').ok).toBe(false);
    expect(speedupRow('x', [1.0, 1.7], 0.995, 10, 's').ok).toBe(false);
    expect(speedupRow('x', [1.0, 1.7], 1.05, 10, 's').ok).toBe(true);
    expect(speedupRow('x', 1.2, 1.1, 10, 's').ok).toBe(true);
    expect(speedupRow('x', 1.2, 1.05, 10, 's').ok).toBe(false);
  });
});

describe('MPK suite', () => {
  it('quick: one launch for the run, at most 16 descriptors per fetch, a speedup over kernel-per-op-graph at batch 1', { timeout: 180_000 }, () => {
    const rows = mpkValidation(loadBackend(h100, 'h100'), { quick: true });
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.suite).toBe('mpk');
    const [launch, fetch, speedup] = rows;
    expect(launch!.predicted).toBeCloseTo(1, 6);
    expect(fetch!.predicted).toBeGreaterThanOrEqual(1);
    expect(fetch!.predicted).toBeLessThanOrEqual(16);
    expect(speedup!.experiment).toMatch(/stands in for SGLang\/vLLM/);
    expect(speedup!.ok).toBe(speedup!.predicted > 1 && speedup!.predicted <= 1.7 * 1.1);
  });
});
