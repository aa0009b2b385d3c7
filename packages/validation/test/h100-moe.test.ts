import { describe, expect, it } from 'vitest';
import { loadBackend } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { h100MoeValidation } from '../src/index.js';

describe('H100 MoE suite', () => {
  it('quick: Qwen3-30B-A3B TPOT within 20% at batch 1 and 64 (KV 1024) and batch 1 at KV 32K, growing with batch and KV', { timeout: 120_000 }, () => {
    const rows = h100MoeValidation(loadBackend(h100, 'h100'), { quick: true });
    const tpot = rows.filter((r) => r.experiment.includes('TPOT'));
    expect(tpot).toHaveLength(3);
    // KV 32K at batch 1 streams 3 GB of KV beyond the 1K step's weights: well over twice its time
    expect(tpot[2]!.predicted).toBeGreaterThan(tpot[0]!.predicted * 2);
    // the goal is 10% (the rows' verdict); guard a regression past 20%
    for (const r of tpot) expect(Math.abs(r.error), `${r.experiment}: ${r.predicted} vs ${String(r.published)}`).toBeLessThan(20);
    expect(tpot[1]!.predicted).toBeGreaterThan(tpot[0]!.predicted * 2);
  });
});
