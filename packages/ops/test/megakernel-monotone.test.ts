import { describe, expect, it } from 'vitest';
import { loadBackend, loadModel } from '@fleet/core';
import mi350 from '@fleet/backend-mi350';
import { predictDecode } from '../src/index.js';

const model = loadModel('qwen3-8b');
const BATCHES = [1, 2, 4, 8, 16, 32, 64];

/**
 * A megakernel's decode step at a larger batch reads the same weights and more activation and
 * KV-cache rows, and its 16-row GEMM tiles only multiply: whatever the L2 shares between the
 * workers of a cooperative tile, the larger batch is never faster. Every megakernel MI350X
 * runs, Mirage MPK in its ROCm port's linear grid included.
 */
describe('megakernel decode TPOT is monotone in batch on MI350X', () => {
  const backend = loadBackend(mi350, 'mi350');
  for (const policy of ['mirage', 'fleet-mtile', 'fleet-msplit', 'fleet-ksplit', 'fleet-wave-ksplit']) {
    it(`${policy}: TPOT does not fall from batch 1 to 64`, () => {
      const tpot = BATCHES.map((batch) => predictDecode(backend, model, { policy, batch, prompt: 64, decode: 1024, layers: 3 }).tpotMs);
      for (let i = 1; i < tpot.length; i++) {
        expect(tpot[i], `batch ${BATCHES[i]} (${tpot[i]} ms) vs batch ${BATCHES[i - 1]} (${tpot[i - 1]} ms)`).toBeGreaterThanOrEqual(tpot[i - 1]!);
      }
    });
  }
});
