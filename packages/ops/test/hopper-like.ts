import type { Backend, CostModel, Topology } from '@fleet/core';
import { mi350Backend } from './helpers.js';

/**
 * An H100-shaped machine built from the MI350 backend: 132 units in GPCs of 18, 18, 16×6,
 * thread-block clusters of up to 16, greedy dispatch with no end-of-kernel write-back, and
 * ClusterFusion declared with clusters of 4. (A tile's `fixedNs` is charged by the runtime.)
 */
export function hopperLike(): Backend {
  const b = mi350Backend();
  const topology: Topology = {
    ...b.topology,
    partitions: { kind: 'gpc', computeUnits: [18, 18, 16, 16, 16, 16, 16, 16] },
    levels: { ...b.topology.levels, chiplet: { unit: 'cluster', maxSize: 16 } },
  };
  const base = b.costModel;
  const costModel: CostModel = {
    dispatchNs: base.dispatchNs,
    fetchNs: base.fetchNs,
    launch: base.launch,
    tileOverheadNs: (op) => base.tileOverheadNs(op),
    endOfKernel: { ...base.endOfKernel, writeBackL2: false },
    hardwareDispatch: 'greedy',
    tileComputeNs: (t, op, level) => base.tileComputeNs(t, op, level),
  };
  return { ...b, name: 'hopper-like', topology, costModel, tuning: { ...b.tuning, cluster: { size: 4 } } };
}
