import type { HbmSpec } from '../topology/topology.js';

/**
 * DRAM latency under load. A read that finds the memory busy waits behind the others: the
 * round trip grows from the unloaded `latencyNs` (a lone pointer chase) by a queueing term
 * that diverges as the delivered bandwidth X approaches the memory's saturation bandwidth:
 *
 *   L(X) = latencyNs + queueNs · ρ / (1 − ρ),   ρ = X / saturationBytesPerNs
 *
 * (the M/D/1 waiting-time shape; `queueNs` is the wait at ρ = ½). A backend fits the two
 * parameters to a pointer chase timed while other compute units stream at a known rate.
 * Without `loadedLatency` the latency is the constant `latencyNs`.
 *
 * Readers that keep a fixed number of bytes outstanding form a closed system: with W bytes in
 * flight in all, Little's law X · L(X) = W fixes both the bandwidth they get and the latency
 * they see. `dramLatencyAtInFlight` solves it; it depends on W only (not on the readers' own
 * rates), so the simulation can evaluate it whenever a tile step starts without iterating.
 */

/** DRAM latency, ns, while the memory delivers `bytesPerNs`. */
export function loadedDramLatencyNs(hbm: HbmSpec, bytesPerNs: number): number {
  const q = hbm.loadedLatency;
  if (!q || bytesPerNs <= 0) return hbm.latencyNs;
  const rho = Math.min(bytesPerNs / q.saturationBytesPerNs, 1 - 1e-9);
  return hbm.latencyNs + (q.queueNs * rho) / (1 - rho);
}

/**
 * The bandwidth, bytes/ns, that readers keeping `inFlightBytes` outstanding in all get from
 * the DRAM: the root in (0, saturation) of X · L(X) = W, i.e. of
 * (queueNs − L0)·X² + (L0·Xs + W)·X − W·Xs = 0.
 */
export function dramBandwidthAtInFlight(hbm: HbmSpec, inFlightBytes: number): number {
  const w = inFlightBytes;
  if (w <= 0) return 0;
  const q = hbm.loadedLatency;
  const l0 = hbm.latencyNs;
  if (!q) return w / l0;
  const xs = q.saturationBytesPerNs;
  const a = q.queueNs - l0;
  const b = l0 * xs + w;
  const c = -w * xs;
  if (Math.abs(a) < 1e-12) return -c / b;
  // The numerically stable root of the two (b > 0, c < 0: exactly one lies in (0, Xs)).
  const disc = Math.sqrt(b * b - 4 * a * c);
  return (2 * -c) / (b + disc);
}

/** DRAM latency, ns, that readers keeping `inFlightBytes` outstanding in all see (X · L = W). */
export function dramLatencyAtInFlight(hbm: HbmSpec, inFlightBytes: number): number {
  if (!hbm.loadedLatency || inFlightBytes <= 0) return hbm.latencyNs;
  return inFlightBytes / dramBandwidthAtInFlight(hbm, inFlightBytes);
}

/**
 * Bytes one reader keeps in flight, by Little's law, given that it was measured streaming
 * `readerBytesPerNs` while the memory as a whole delivered `totalBytesPerNs` (the whole
 * kernel's DRAM rate): its rate times the latency at that load, not the unloaded one.
 */
export function inFlightFromRate(hbm: HbmSpec, readerBytesPerNs: number, totalBytesPerNs: number): number {
  return readerBytesPerNs * loadedDramLatencyNs(hbm, totalBytesPerNs);
}
