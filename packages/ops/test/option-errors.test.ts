import { describe, expect, it } from 'vitest';
import { FleetError, loadBackend, loadModel } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { parallelismOf, predictDecode, predictMixed, predictPrefill } from '../src/index.js';

const backend = loadBackend(h100, '@fleet/backend-h100');
const qwen = loadModel('qwen3-8b');
const base = { policy: 'kernel-per-op-graph', batch: 1, prompt: 64, decode: 1 };

/** The FleetError `run` throws. */
function errorOf(run: () => unknown): FleetError {
  try {
    run();
  } catch (e) {
    if (e instanceof FleetError) return e;
    throw e;
  }
  throw new Error('no error');
}

// Callers read their own option names in the messages (the CLI turns them into flags).
describe('bad options name the option field', () => {
  it('tp, ep, prompt, decode and chunk: the field at fault, quoted, and in `field`', () => {
    const cases: [() => unknown, string, string][] = [
      [() => parallelismOf({ tp: 0 }), 'tp', '`tp` must be an integer in 1..64 (got 0)'],
      [() => parallelismOf({ ep: 65 }), 'ep', '`ep` must be an integer in 1..64 (got 65)'],
      [() => predictDecode(backend, qwen, { ...base, prompt: -1 }), 'prompt', '`prompt` must be a non-negative integer (got -1)'],
      [() => predictDecode(backend, qwen, { ...base, decode: 0 }), 'decode', '`decode` must be a positive integer (got 0)'],
      [() => predictPrefill(backend, qwen, { ...base, prompt: 0 }), 'prompt', '`prompt` must be a positive integer for prefill (got 0)'],
      [() => predictPrefill(backend, qwen, { ...base, prompt: 64, chunk: 0 }), 'chunk', '`chunk` must be a positive integer (got 0)'],
    ];
    for (const [run, field, message] of cases) {
      const e = errorOf(run);
      expect([e.field, e.message, e.exitCode]).toEqual([field, message, 2]);
    }
  });

  it('a simulation over its step budget names maxSimSteps and the options that shrink it', () => {
    const decode = errorOf(() => predictDecode(backend, qwen, { ...base, maxSimSteps: 10 }));
    expect(decode.field).toBe('maxSimSteps');
    expect(decode.message).toMatch(/^simulation too large: .*; raise it with `maxSimSteps` or simulate fewer layers with `layers`$/);
    const prefill = errorOf(() => predictPrefill(backend, qwen, { ...base, prompt: 256, maxSimSteps: 10 }));
    expect(prefill.message).toMatch(/raise it with `maxSimSteps`, use `chunk`, or simulate fewer layers with `layers`$/);
    const mixed = errorOf(() => predictMixed(backend, qwen, { policy: 'kernel-per-op-graph', batch: 1, context: 64, chunk: 64, maxSimSteps: 10 }));
    expect([mixed.field, /`maxSimSteps`/.test(mixed.message)]).toEqual(['maxSimSteps', true]);
  });
});
