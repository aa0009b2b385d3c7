/** How a CDNA GPU (8 XCDs, private L2 per XCD) runs the policies' runtimes. */
import type { BackendTuning } from '@fleet/core';

/**
 * CDNA tuning with `workersPerXcd` persistent workers and one scheduler per XCD (FLEET's
 * layout: MI300X 8 × 37 + 8 = 304 CUs, MI350 8 × 31 + 8 = 256; seeds §1, seedcode §5).
 * Mirage MPK runs in the same layout and with the linear grid of the ROCm port FLEET
 * published (`linearGrid: 'mpk-rocm'`, see `cuTaskLinear` in @fleet/ops).
 */
export function cdnaTuning(workersPerXcd: number): BackendTuning {
  if (!Number.isInteger(workersPerXcd) || workersPerXcd < 1) {
    throw new RangeError(`cdnaTuning: workersPerXcd must be a positive integer, got ${workersPerXcd}`);
  }
  return { persistent: { workersPerPartition: workersPerXcd, schedulersPerPartition: 1, linearGrid: 'mpk-rocm' } };
}
