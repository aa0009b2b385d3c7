import { loadBackend } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { describe, expect, it } from 'vitest';
import { NUMA_ATTENTION_RESULTS, attentionValidation, attentionValidationPoints } from '../src/validation.js';

describe('attention validation', () => {
  it('fails every row, saying why, when mi300x is not loaded', () => {
    const rows = attentionValidation([loadBackend(h100, 'test')]);
    expect(rows).toHaveLength(NUMA_ATTENTION_RESULTS.length);
    for (const r of rows) {
      expect(r.ok).toBe(false);
      expect(r.experiment).toMatch(/mi300x is not loaded/);
    }
  });

  it('judges rates in points (5) and ratios in percent (10), and a published range as published', () => {
    const rows = attentionValidation([loadBackend(h100, 'test')]);
    rows.forEach((r, i) => {
      const p = NUMA_ATTENTION_RESULTS[i]!;
      expect(r.errorUnit).toBe(p.metric === 'l2HitRate' ? 'pt' : '%');
      expect(r.tolerance).toBe(Array.isArray(p.published) ? 0 : p.metric === 'l2HitRate' ? 5 : 10);
      expect(r.kind).toBe('claim');
    });
  });

  it('plans a bounded number of simulations, SHF included wherever a ratio is read', () => {
    const ratios = new Set(NUMA_ATTENTION_RESULTS.filter((r) => r.metric === 'relativeThroughput').map((r) => JSON.stringify(r.shape)));
    expect(attentionValidationPoints()).toBeGreaterThanOrEqual(ratios.size);
    expect(attentionValidationPoints()).toBeLessThan(60);
  });
});
