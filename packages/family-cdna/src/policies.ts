/** The scheduling policies a CDNA GPU (8 XCDs, private L2 per XCD) supports. */
import type { PolicySupport } from '@fleet/core';

/**
 * Policies on CDNA with `workersPerXcd` persistent workers and one scheduler per XCD
 * (FLEET's layout: MI300X 8 × 37 + 8 = 304 CUs, MI350 8 × 31 + 8 = 256; seeds §1, seedcode §5).
 */
export function cdnaPolicies(workersPerXcd: number): PolicySupport[] {
  if (!Number.isInteger(workersPerXcd) || workersPerXcd < 1) {
    throw new RangeError(`cdnaPolicies: workersPerXcd must be a positive integer, got ${workersPerXcd}`);
  }
  const persistent = { workersPerPartition: workersPerXcd, schedulersPerPartition: 1 } as const;
  return [
    { policy: 'kernel-per-op' },
    { policy: 'kernel-per-op-graph' },
    // Mirage MPK as FLEET ported it to CDNA: one scheduler per XCD, CU-tasks only, every
    // task completion signals a global event counter (device scope).
    { policy: 'mirage', ...persistent, signalScope: 'device' },
    // FLEET: chiplet-tasks broadcast to the XCD's workers; signalling is hierarchical
    // (XCD-local counters, one device fence per XCD per event) and left to the runtime.
    { policy: 'fleet-mtile', ...persistent },
    { policy: 'fleet-msplit', ...persistent },
    {
      policy: 'clusterfusion',
      unsupportedReason:
        'CDNA has no thread-block clusters or distributed shared memory (DSMEM); ClusterFusion\'s ClusterReduce/ClusterGather need them',
    },
  ];
}
