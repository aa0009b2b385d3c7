import { describe, expect, it } from 'vitest';
import type { LinearOp } from '@fleet/core';
import { linearTile, linearWeightRegions, DENSE_BF16 } from '../src/index.js';

const op = { id: 'L0.q_proj', kind: 'linear', layer: 0, m: 64, n: 256, k: 1024, inputs: ['x'], outputs: ['y'], weight: 'L0.w_q' } as unknown as LinearOp;
const buf = { x: 0, w: 1, y: 2 };
const pol = { weight: 'default', store: 'default' } as const;

describe('GEMM tiles share equal regions', () => {
  it('batch tiles of one output tile read one weight-region object, output tiles of one batch tile one activation object', () => {
    const a = linearTile(op, buf, pol, 0, 0, 64);
    const b = linearTile(op, buf, pol, 16, 0, 64);
    const c = linearTile(op, buf, pol, 16, 64, 64);
    expect(b.reads[0]).toBe(a.reads[0]);
    expect(c.reads[1]).toBe(b.reads[1]);
    expect(c.reads[0]).not.toBe(b.reads[0]);
    // The shared regions are the ones a fresh build gives.
    expect(b.reads[0]).toEqual(linearWeightRegions(DENSE_BF16, op, { w: 1 }, 0, 64, 0, op.k, 'default')[0]);
    expect(c.reads[1]).toEqual({ buffer: 0, offset: 16 * op.k * 2, bytes: 16 * op.k * 2, policy: 'default' });
  });

  it('an op of another shape gets its own regions, even as the same object', () => {
    const shape = { ...op } as { -readonly [K in keyof LinearOp]: LinearOp[K] };
    const before = linearTile(shape, buf, pol, 0, 0, 64);
    shape.k = 512;
    const after = linearTile(shape, buf, pol, 0, 0, 64);
    expect(after.reads[0]!.bytes).toBe(64 * 512 * 2);
    expect(after.reads[1]!.bytes).toBe(16 * 512 * 2);
    expect(after.reads[0]).not.toBe(before.reads[0]);
  });
});
