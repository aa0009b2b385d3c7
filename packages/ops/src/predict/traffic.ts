/** The memory-traffic columns every prediction reports for a step. */
import { l2HitRate, type MemoryCounters } from '@fleet/core';

/** L2 hit rate and the bytes read from HBM, written to HBM and read past the L2 (LLC or HBM). */
export interface StepTraffic {
  l2HitRate: number;
  hbmReadBytes: number;
  hbmWriteBytes: number;
  /** Bytes read past the L2 (LLC or HBM): what L2-to-fabric counters measure. */
  fabricReadBytes: number;
}

/** The traffic columns of a prediction, from the step's memory counters. */
export function trafficOf(c: MemoryCounters): StepTraffic {
  return { l2HitRate: l2HitRate(c), hbmReadBytes: c.hbmReadBytes, hbmWriteBytes: c.hbmWriteBytes, fabricReadBytes: c.fabricReadBytes };
}

/** Those columns of a prediction that did not run. */
export const NO_TRAFFIC: StepTraffic = { l2HitRate: NaN, hbmReadBytes: NaN, hbmWriteBytes: NaN, fabricReadBytes: NaN };
