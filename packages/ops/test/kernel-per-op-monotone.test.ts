import { describe, expect, it } from 'vitest';
import { loadBackend, loadModel } from '@fleet/core';
import mi300x from '@fleet/backend-mi300x';
import mi350 from '@fleet/backend-mi350';
import { predictDecode } from '../src/index.js';

const model = loadModel('qwen3-8b');
const BATCHES = [1, 2, 4, 8, 16, 32, 64];

/**
 * More requests per step never make a decode step cheaper: each batch reads the same weights
 * and a larger activation and KV cache. On CDNA the library switches kernels between 4 rows
 * (vLLM's wvSplitK) and 8 (hipBLASLt); that switch must not make the larger batch faster.
 */
describe('kernel-per-op decode TPOT is monotone in batch on CDNA', () => {
  for (const [name, descriptor] of [
    ['mi300x', mi300x],
    ['mi350', mi350],
  ] as const) {
    const backend = loadBackend(descriptor, name);
    for (const policy of ['kernel-per-op-graph', 'kernel-per-op']) {
      it(`${name} ${policy}: TPOT does not fall from batch 1 to 64`, () => {
        const tpot = BATCHES.map((batch) => predictDecode(backend, model, { policy, batch, prompt: 64, decode: 1024, layers: 3 }).tpotMs);
        for (let i = 1; i < tpot.length; i++) {
          expect(tpot[i], `batch ${BATCHES[i]} (${tpot[i]} ms) vs batch ${BATCHES[i - 1]} (${tpot[i - 1]} ms)`).toBeGreaterThanOrEqual(tpot[i - 1]!);
        }
      });
    }
  }
});
