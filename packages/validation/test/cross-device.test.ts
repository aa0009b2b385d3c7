import { loadBackend, loadModel } from '@fleet/core';
import { predictPrefill } from '@fleet/ops';
import h100 from '@fleet/backend-h100';
import mi350 from '@fleet/backend-mi350';
import { describe, expect, it } from 'vitest';

// Predictions of two devices side by side: only this package depends on both.
describe('MI350X against H100', () => {
  it('Qwen3-8B prefill of 2048 tokens is faster than on an H100', () => {
    // By mechanism: prefill is GEMM-bound and hipBLASLt on MI350 issues 2307 × 0.56 ≈ 1300
    // TFLOP/s against cuBLAS's ≈ 780 on the H100 (1.66×); CK's attention, softmax not hidden
    // under the MFMAs, gives some of it back. A 20% margin leaves room for that, not for a tie.
    const model = loadModel('qwen3-8b');
    const opts = { policy: 'kernel-per-op-graph', batch: 1, prompt: 2048 } as const;
    const a = predictPrefill(loadBackend(mi350, 'mi350'), model, opts).ttftMs;
    const b = predictPrefill(loadBackend(h100, 'h100'), model, opts).ttftMs;
    expect(a).toBeLessThan(0.8 * b);
  }, 60_000);
});
