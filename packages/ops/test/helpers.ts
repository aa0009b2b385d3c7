import { loadBackend, type Backend, type LinearOp, type OpGraph } from '@fleet/core';
import mi350 from '@fleet/backend-mi350';

export function mi350Backend(): Backend {
  return loadBackend(mi350, 'test');
}

/** An op graph holding one linear op (y = x Wᵀ), for isolated-GEMM experiments. */
export function singleLinearGraph(m: number, n: number, k: number): OpGraph {
  const op: LinearOp = { id: 'L0.proj', kind: 'linear', layer: 0, m, n, k, weight: 'L0.w', inputs: ['x', 'L0.w'], outputs: ['y'] };
  return {
    model: 'gemm',
    batch: m,
    contextLen: 0,
    layers: 1,
    tensors: [
      { name: 'x', kind: 'activation', shape: [m, k], dtype: 'bf16' },
      { name: 'L0.w', kind: 'weight', shape: [n, k], dtype: 'bf16' },
      { name: 'y', kind: 'activation', shape: [m, n], dtype: 'bf16' },
    ],
    ops: [op],
  };
}
