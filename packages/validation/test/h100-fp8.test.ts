import { describe, expect, it } from 'vitest';
import { loadBackend } from '@fleet/core';
import { FP8_RELATIVE_EFFICIENCY } from '@fleet/family-hopper';

describe('H100 W8A8 FP8 GEMMs', () => {
  it('calibrates on at most half the shapes and judges the other half as measurements at 10%', async () => {
    const { h100Fp8Validation, fp8ValidationPoints, FP8_CALIBRATION_SHAPES } = await import('../src/index.js');
    const h100 = (await import('@fleet/backend-h100')).default;
    const rows = h100Fp8Validation(loadBackend(h100, 'h100'));
    expect(rows).toHaveLength(fp8ValidationPoints());
    const shape = (e: string) => /N=(\d+) K=(\d+)/.exec(e)!.slice(1).map(Number).join('x');
    const shapes = new Set(rows.map((r) => shape(r.experiment)));
    expect(shapes.size).toBe(6);
    expect(FP8_CALIBRATION_SHAPES.length).toBeLessThanOrEqual(shapes.size / 2);
    const cal = new Set(FP8_CALIBRATION_SHAPES.map(([n, k]) => `${n}x${k}`));
    for (const r of rows) {
      expect(r.kind, r.experiment).toBe(cal.has(shape(r.experiment)) ? 'calibration' : 'measurement');
      expect(r.tolerance).toBe(10);
    }
    // 54 held-out GEMMs (three variants × three shapes × six M) and their 18 per-tensor speedups.
    expect(rows.filter((r) => r.kind === 'measurement')).toHaveLength(72);
    // The one parameter: the FP8 main loop loses a little against bf16's share of its peak.
    expect(FP8_RELATIVE_EFFICIENCY).toBeGreaterThan(0.8);
    expect(FP8_RELATIVE_EFFICIENCY).toBeLessThan(1);
    // A regression guard, not the goal: the held-out rows' mean error (13.3% today).
    const held = rows.filter((r) => r.kind === 'measurement');
    expect(held.reduce((a, r) => a + Math.abs(r.error), 0) / held.length).toBeLessThan(15);
  });
});
