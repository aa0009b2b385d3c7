/**
 * Cache bandwidths measured on MI300X. A CDNA part without its own measurement (no MI350 L2 or
 * MALL number is public, hardware.md §2.3) scales or reuses these and says so in its sources.
 */

/** The MI300X engine clock the measurements below ran at, GHz (DS S2). */
export const MI300X_MEASURED_CLOCK_GHZ = 2.1;

/**
 * MEAS S7 gpu-cache mi300x: ≈25–28 TB/s aggregate ≈ 3.4 TB/s per XCD for L2-resident read-only
 * sets (structural peak ≈4.3 TB/s/XCD, DER/UNC), bytes/ns per XCD.
 */
export const MI300X_L2_BYTES_PER_NS_PER_XCD = 3400;

/** The same per-XCD L2 rate in bytes per clock, for a part at another clock. */
export const MI300X_L2_BYTES_PER_CLK_PER_XCD = MI300X_L2_BYTES_PER_NS_PER_XCD / MI300X_MEASURED_CLOCK_GHZ;

/**
 * MEAS S9 rocm-amdgpu-bench "MALL BW" 6423 GB/s; S7 gpu-benches shows 8.5–9.7 TB/s for 14–35 MB
 * sets and 5.5–6 TB/s for 57–233 MB; AMD peak ≈17 TB/s (S8, DS). Bytes/ns.
 */
export const MI300X_MALL_BYTES_PER_NS = 6420;
