import { relativeError, simulateGraph, type Backend, type ValidationRow } from '@fleet/core';
import { KERNEL_PER_OP_GRAPH, linearOpGraph } from '@fleet/ops';

/**
 * Batch-1 GEMV bandwidth on MI300X against the vendor kernels measured in ROCm PR 12329
 * (hardware.md §1.5, S23): rocBLAS wvSpltK fp16 reaches 4.87 TB/s on a 2.0 GB weight and
 * 4.05 TB/s on a 90 MB one. The benchmark may not rotate buffers, so the smaller matrix can
 * partly hit the 256 MB MALL [UNC]; Fleet simulates a cold cache.
 */
const SOURCE = 'ROCm/rocm-libraries PR 12329 (rocBLAS wvSpltK fp16 GEMV, M = 1, MI300X), via hardware.md §1.5 [MEAS]';
const CASES = [
  { n: 76032, k: 13312, tbps: 4.87 },
  { n: 4096, k: 11008, tbps: 4.05 },
];
// A bandwidth is judged as a time: the goal is 10%.
const TOLERANCE_PCT = 10;

export function gemvMi300xValidation(backend: Backend, tick: (label: string) => void = () => {}): ValidationRow[] {
  const kernel = KERNEL_PER_OP_GRAPH;
  return CASES.map(({ n, k, tbps }) => {
    tick(`mi300x gemv ${n}×${k}`);
    const graph = kernel.compile(linearOpGraph(1, n, k, 'fp16'), backend, kernel.schedule, { layers: [0] });
    const r = simulateGraph(backend, graph, { launchMode: 'graph' });
    // Kernel time only: the launch gap before it is not part of the measured kernel.
    const ns = r.timeNs - backend.costModel.launch.graphNodeNs - backend.costModel.endOfKernel.barrierNs;
    const predicted = (n * k * 2) / ns / 1000;
    const error = relativeError(predicted, tbps);
    return {
      suite: 'gemv-mi300x',
      experiment: `fp16 GEMV M=1, ${n}×${k} (${((n * k * 2) / 1e9).toFixed(2)} GB), achieved bandwidth`,
      kind: 'measurement',
      published: tbps,
      predicted,
      unit: 'TB/s',
      error,
      errorUnit: '%',
      tolerance: TOLERANCE_PCT,
      ok: Math.abs(error) <= TOLERANCE_PCT,
      source: SOURCE,
    };
  });
}
