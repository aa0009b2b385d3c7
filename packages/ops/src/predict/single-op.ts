import type { DType, LinearOp, OpGraph } from '@fleet/core';

/**
 * An op graph holding one linear op y = x Wᵀ (layer 0 of a one-layer model, so a weight
 * type applies to it): what `fleet op` and single-kernel experiments simulate.
 */
export function linearOpGraph(m: number, n: number, k: number, dtype: DType = 'bf16'): OpGraph {
  const op: LinearOp = { id: 'L0.proj', kind: 'linear', layer: 0, m, n, k, weight: 'L0.w', inputs: ['x', 'L0.w'], outputs: ['y'] };
  return {
    model: 'linear',
    batch: m,
    contextLen: 0,
    layers: 1,
    tensors: [
      { name: 'x', kind: 'activation', shape: [m, k], dtype },
      { name: 'L0.w', kind: 'weight', shape: [n, k], dtype },
      { name: 'y', kind: 'activation', shape: [m, n], dtype },
    ],
    ops: [op],
  };
}
