/** The scheduling policies H100 supports, and why not the chiplet-aware ones. */
import type { PolicySupport } from '@fleet/core';

/** Mirage MPK on H100: 128 workers (one per SM) + 16 schedulers (seeds §5, seedcode §6 mirage utils.py). */
export const MIRAGE_WORKERS_PER_GPC = 16;
export const MIRAGE_SCHEDULERS = 16;

export const policies: readonly PolicySupport[] = [
  { policy: 'kernel-per-op' },
  { policy: 'kernel-per-op-graph' },
  // 8 GPCs × 16 = 128 workers; the 16 schedulers are 4 warps on each of 4 SMs, not per GPC.
  { policy: 'mirage', workersPerPartition: MIRAGE_WORKERS_PER_GPC, globalSchedulers: MIRAGE_SCHEDULERS, signalScope: 'device' },
  {
    policy: 'fleet-mtile',
    unsupportedReason:
      "Hopper's chiplet level is a thread-block cluster (≤16 blocks sharing DSMEM, no private L2 per cluster); FLEET's chiplet-tasks need a partition-private L2 — use mirage or clusterfusion",
  },
  {
    policy: 'fleet-msplit',
    unsupportedReason:
      "Hopper's chiplet level is a thread-block cluster (≤16 blocks sharing DSMEM, no private L2 per cluster); FLEET's chiplet-tasks need a partition-private L2 — use mirage or clusterfusion",
  },
  { policy: 'clusterfusion', unsupportedReason: 'the fused cluster dataflow is not modelled yet' },
];
