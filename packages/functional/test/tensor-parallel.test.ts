import { buildDecodeGraph } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import { allocateState, randomWeights, shardWeights, tensorParallelStep, TINY_MODEL, verifyTensorParallel } from '../src/index.js';

describe('tensor-parallel numerics', () => {
  it('TP=2 and TP=4 (KV heads replicated) compute the single-device logits', () => {
    expect(verifyTensorParallel(TINY_MODEL, { tp: 2, steps: 1 }).status).toBe('pass');
    expect(verifyTensorParallel(TINY_MODEL, { tp: 4, steps: 1 }).status).toBe('pass');
  });

  it('a rank that skips the all-reduce gives different logits', () => {
    const tp = 2;
    const w = randomWeights(TINY_MODEL, 3);
    const run = (drop: boolean) => {
      const gs = [0, 1].map(() => {
        const g = buildDecodeGraph(TINY_MODEL, { batch: 1, contextLen: 4, tp });
        return drop ? { ...g, ops: g.ops.filter((o) => o.id !== 'L1.down_allreduce') } : g;
      });
      const states = gs.map((g) => allocateState(g));
      tensorParallelStep(
        gs,
        [0, 1].map((r) => shardWeights(TINY_MODEL, w, tp, r)),
        { dtype: 'bf16', eps: 1e-6, ropeTheta: 10000 },
        states,
        TINY_MODEL.vocabSize,
      );
      return states[0]!.get('logits')!;
    };
    const a = run(false);
    const b = run(true);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff = Math.max(diff, Math.abs(a[i]! - b[i]!));
    expect(diff).toBeGreaterThan(1e-2);
  });
});
