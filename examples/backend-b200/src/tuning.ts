/**
 * How the B200 runs the policies' runtimes. Partitions are the two dies, so FLEET's
 * chiplet-tasks map onto dies; Mirage MPK keeps its own B200 layout.
 */
import type { BackendTuning } from '@fleet/core';
import { SMS_PER_DIE } from './topology.js';

/**
 * Mirage MPK on a 148-SM B200: 128 workers + 80 schedulers, the schedulers packed 4 warps per
 * SM on the remaining 20 SMs (mirage `get_configurations_from_gpu`, seedcode §1.7). The
 * workers are spread evenly: 64 per die.
 */
export const MIRAGE_WORKERS_PER_DIE = 64;
export const MIRAGE_SCHEDULERS = 80;

/** FLEET's layout (one scheduler CU per partition, the rest workers; seeds §1) on a die: 73 + 1. */
export const FLEET_WORKERS_PER_DIE = SMS_PER_DIE - 1;

export const tuning: BackendTuning = {
  // Chiplet-tasks broadcast to one die's workers; completion is counted in the die's own L2 half.
  persistent: { workersPerPartition: FLEET_WORKERS_PER_DIE, schedulersPerPartition: 1 },
  policies: {
    mirage: { persistent: { workersPerPartition: MIRAGE_WORKERS_PER_DIE, globalSchedulers: MIRAGE_SCHEDULERS } },
    // The topology gives FLEET a chiplet level (the dies) but no DSMEM cluster level, so
    // ClusterFusion already declines on its own; no refusal is needed here.
  },
};
