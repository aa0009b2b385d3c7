import { describe, expect, it } from 'vitest';
import { loadBackend, loadModel } from '@fleet/core';
import mi350 from '@fleet/backend-mi350';
import { predictDecode } from '../src/index.js';

const model = loadModel('qwen3-8b');
const BATCHES = [1, 2, 4, 8, 16, 32, 64];

/**
 * A megakernel's decode step at a larger batch reads the same weights and more activation and
 * KV-cache rows, and its 16-row GEMM tiles only multiply: whatever the L2 shares between the
 * workers of a cooperative tile, the larger batch is never faster.
 */
describe('megakernel decode TPOT is monotone in batch on MI350X', () => {
  const backend = loadBackend(mi350, 'mi350');
  const tpots = (policy: string) => BATCHES.map((batch) => predictDecode(backend, model, { policy, batch, prompt: 64, decode: 1024, layers: 3 }).tpotMs);
  for (const policy of ['fleet-mtile', 'fleet-msplit', 'fleet-ksplit', 'fleet-wave-ksplit']) {
    it(`${policy}: TPOT does not fall from batch 1 to 64`, () => {
      const tpot = tpots(policy);
      for (let i = 1; i < tpot.length; i++) {
        expect(tpot[i], `batch ${BATCHES[i]} (${tpot[i]} ms) vs batch ${BATCHES[i - 1]} (${tpot[i - 1]} ms)`).toBeGreaterThanOrEqual(tpot[i - 1]!);
      }
    });
  }

  // Mirage's CU-tasks are dealt by MPK's schedulers: an event of fewer than 8 tasks (a norm or
  // SiLU·mul at batch 4) is dispatched by one scheduler, 8 or more by all of them, and each
  // scheduler's round-robin cursor carries over from stage to stage. At batch 1–8, where the
  // GEMMs are the same tasks, that placement alone moves a step by up to 2% (batch 4 is 1.5%
  // slower than batch 8, all 36 layers simulated as well); beyond, the batch tiles dominate.
  it('mirage: TPOT within 2% over batch 1–8, and rising from batch 8 to 64', () => {
    const tpot = tpots('mirage');
    for (let i = 1; i < tpot.length; i++) {
      const ratio = tpot[i]! / tpot[i - 1]!;
      if (BATCHES[i]! <= 8) expect(ratio, `batch ${BATCHES[i]} vs ${BATCHES[i - 1]}`).toBeGreaterThan(0.98);
      else expect(ratio, `batch ${BATCHES[i]} vs ${BATCHES[i - 1]}`).toBeGreaterThan(1);
    }
  });
});
