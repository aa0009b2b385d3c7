/** Persistent-runtime fixed costs on CDNA, derived from the measured load latencies. */
import { cyclesToNs, type CdnaLatencyCycles } from './latency.js';

export interface CdnaRuntimeCosts {
  dispatchNs: number;
  fetchNs: number;
  /** How each was derived, for the provenance comments. */
  derivation: { dispatchNs: string; fetchNs: string };
}

/**
 * - dispatch: the scheduler writes a task id into a worker queue with a store (`sc1`, acked by the
 *   XCD's L2: an L1-bypassing L2 round trip) and then bumps the queue's counter with an atomic in
 *   the same L2 (one L2 round trip); the release orders them, so they do not overlap.
 * - fetch: the worker polls its queue with an L1-bypassing load (`nt`/`sc1`: L2 round trip), then
 *   copies the task descriptor (read-only, assumed L2-resident; its few hundred bytes take
 *   negligible time at L2 bandwidth): a second L2 round trip.
 * Scheduler and workers share the XCD, so everything resolves in the local L2.
 */
export function cdnaRuntimeCosts(c: CdnaLatencyCycles, clockGHz: number): CdnaRuntimeCosts {
  const cycles = c.l2Bypass + c.l2;
  const ns = cyclesToNs(cycles, clockGHz);
  return {
    dispatchNs: ns,
    fetchNs: ns,
    derivation: {
      dispatchNs: `UNC DER store acked by the XCD L2 (${c.l2Bypass} cycles) + L2 atomic (${c.l2} cycles) = ${cycles} cycles at ${clockGHz} GHz`,
      fetchNs: `UNC DER L1-bypassing poll (${c.l2Bypass} cycles) + descriptor copy from L2 (${c.l2} cycles) = ${cycles} cycles at ${clockGHz} GHz`,
    },
  };
}
