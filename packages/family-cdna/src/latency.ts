/**
 * CDNA load-to-use latencies in shader-clock cycles, and the cycles → ns conversion.
 *
 * Cycle counts are what the pointer-chase benchmarks report; a backend turns them into ns
 * at its own clock, so a CDNA part without its own measurement (MI350) can reuse MI300X's
 * cycle counts and say so.
 */
export interface CdnaLatencyCycles {
  /** vL1D hit. */
  l1: number;
  /** L2 hit in the local XCD, through the L1. */
  l2: number;
  /** L2 hit with the L1 bypassed (`nt`/`sc1` load): how a worker polls a queue. */
  l2Bypass: number;
  /** Infinity Cache (MALL) hit. */
  mall: number;
  /** HBM (large working set, TLB misses included). */
  hbm: number;
}

/**
 * MI300X (gfx942), measured:
 * - l1 119: S7 gpu-benches gpu-latency/mi300x.txt, one-thread pointer chase, 2–29 KiB [MEAS]
 *   (S6 reports 112 with `s_memtime`).
 * - l2 205: S7, flat 203–213 cycles from 36 KiB to 4 MiB [MEAS]; midpoint-ish value.
 * - l2Bypass 224: S6 MrRoy09 `nt`/`sc1` load, L1 bypassed [MEAS].
 * - mall 455: S7, 455–460 cycles for 4.7–64 MiB [MEAS].
 * - hbm 890: S7, 880–905 cycles at ≥ 400 MiB, TLB misses included [MEAS].
 */
export const MI300X_LATENCY_CYCLES: Readonly<CdnaLatencyCycles> = Object.freeze({
  l1: 119,
  l2: 205,
  l2Bypass: 224,
  mall: 455,
  hbm: 890,
});

/** ns = cycles / GHz, rounded to 0.1 ns (more digits would claim a precision nobody measured). */
export function cyclesToNs(cycles: number, clockGHz: number): number {
  return Math.round((cycles / clockGHz) * 10) / 10;
}
