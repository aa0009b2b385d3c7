import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBackend } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { describe, expect, it } from 'vitest';
import { NUMA_ATTENTION_CLAIMS, attentionValidation, attentionValidationPoints } from '../src/validation.js';

/** The published claims as the study's dataset states them, when the dataset is beside the repository. */
const DATASET = join(dirname(fileURLToPath(import.meta.url)), '../../../../shared/reference/numa-attention-mi300x.json');

describe('attention validation', () => {
  it.skipIf(!existsSync(DATASET))('checks every claim of the published dataset, in its order', () => {
    const data = JSON.parse(readFileSync(DATASET, 'utf8')) as { claims: { what: string }[] };
    expect(NUMA_ATTENTION_CLAIMS.map((c) => c.what)).toEqual(data.claims.map((c) => c.what));
  });

  it('fails every claim, saying why, when mi300x is not loaded', () => {
    const rows = attentionValidation([loadBackend(h100, 'test')]);
    expect(rows.map((r) => r.id)).toEqual(NUMA_ATTENTION_CLAIMS.map((c) => c.id));
    for (const r of rows) {
      expect(r.ok).toBe(false);
      expect(r.predicted).toMatch(/mi300x/);
    }
  });

  it('plans a bounded number of simulations', () => {
    expect(attentionValidationPoints()).toBeGreaterThan(NUMA_ATTENTION_CLAIMS.length);
    expect(attentionValidationPoints()).toBeLessThan(200);
  });
});
