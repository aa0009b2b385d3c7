import { describe, expect, it } from 'vitest';
import { loadBackend, parameterCount } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { familiesValidation, familyModel } from '../src/index.js';
import sweep from '../src/h100/measured/h100-families-ours.json' with { type: 'json' };

describe('model families no calibration used', () => {
  it("each bench shape has its released model's parameter count", () => {
    const count = (name: string) => parameterCount(familyModel(sweep.models.find((m) => m.config.name === name)!.config)) / 1e9;
    // the model cards: 1.24B, 3.21B, 8.03B, 7.62B, 12.2B
    expect(count('llama3.2-1b')).toBeCloseTo(1.24, 1);
    expect(count('llama3.2-3b')).toBeCloseTo(3.21, 1);
    expect(count('llama3-8b')).toBeCloseTo(8.03, 1);
    expect(count('qwen2.5-7b')).toBeCloseTo(7.62, 1);
    expect(count('mistral-nemo-12b')).toBeCloseTo(12.25, 1);
  });

  it('quick suite: batch-1 decode of every family on the H100 within 10%', { timeout: 120_000 }, () => {
    const rows = familiesValidation(loadBackend(h100, 'h100'), 'h100', { quick: true });
    expect(rows.length).toBe(10); // five models, both attention layouts
    // Llama-3.2-1B at batch 1 is 388 kernels of 5 µs: with the graph's measured ~0.4 µs between
    // them (not a tiny kernel's 1.2 µs launch period) the step is within 10%, still over.
    const small = rows.find((r) => r.experiment.startsWith('llama3.2-1b') && r.experiment.includes('grouped query rows'))!;
    expect((small.predicted as number) / (small.published as number)).toBeGreaterThan(1);
    for (const r of rows) expect(r.ok, `${r.experiment}: ${r.predicted} vs ${JSON.stringify(r.published)}`).toBe(true);
  });
});
