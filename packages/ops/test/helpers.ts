import { loadBackend, type Backend, type OpGraph } from '@fleet/core';
import { linearOpGraph } from '../src/index.js';
import mi350 from '@fleet/backend-mi350';

export function mi350Backend(): Backend {
  return loadBackend(mi350, 'test');
}

/** An op graph holding one linear op (y = x Wᵀ), for isolated-GEMM experiments. */
export function singleLinearGraph(m: number, n: number, k: number): OpGraph {
  return linearOpGraph(m, n, k);
}
