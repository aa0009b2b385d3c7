/**
 * How a compute unit streams a tile: the bytes it keeps in flight and how many independent
 * instruction streams it interleaves. Both follow from a kernel's shape and its occupancy,
 * not from one constant per device.
 *
 * - `inFlightBytes` bounds the unit's read rate by Little's law: a tile whose reads carry
 *   Σ bytes × latency (byte·ns) needs at least that over `inFlightBytes` ns.
 * - `overlap` is how many contexts hide each other's stalls: resident waves per SIMD ×
 *   software-pipeline stages. With one context (one wave per SIMD, no prefetch) every load
 *   stalls the matrix pipe, so memory and compute add up; with many they overlap fully.
 */
export interface TilePipeline {
  /** Bytes of loads the unit keeps in flight while it runs this tile. */
  inFlightBytes: number;
  /**
   * Bytes of DRAM reads the unit keeps outstanding, if the kernel's DRAM stream is narrower
   * than its pipeline (measured per kernel family). Then on-chip hits stream at
   * `inFlightBytes` and DRAM reads at this, concurrently; omitted: one limit for all reads.
   */
  dramInFlightBytes?: number;
  /**
   * A DRAM stream limited by the rate the kernel issues it, bytes/ns per unit, rather than by
   * its bytes in flight (a kernel whose measured per-unit DRAM rate stays the same whatever
   * the memory's load): DRAM reads take at least bytes / this, and the memory's loaded latency
   * does not slow them. Omitted: Little's law over `dramInFlightBytes`.
   */
  dramBytesPerNs?: number;
  /** Independent contexts that overlap compute with memory: 1 = serial, Infinity = perfect overlap. */
  overlap: number;
  /**
   * A hit on an L2 line whose fill is still on its way waits for the fill (the L2 holds the
   * request in its miss queue), so it costs the rest of the miss latency, not the hit
   * latency. Set for a kernel at one wave per SIMD (a megakernel), where that wait stalls the
   * matrix pipe; omitted, a hit costs the hit latency (other waves run meanwhile).
   */
  waitsOnFills?: boolean;
  /**
   * Tiles (CTAs, workgroups) of the kernel resident on the unit at once, sharing
   * `inFlightBytes`. They run one after another in the simulation; each pays only its share
   * of the first-access latency and the per-tile overhead, which the others' streams hide.
   * Default 1.
   */
  residentTiles?: number;
  /**
   * The kernel runs its vector work (softmax, dequantization) under the matrix pipe's
   * (warp-specialised ping-pong, as FlashAttention-3 does): compute is the larger of the
   * two, not their sum.
   */
  vectorUnderMatrix?: boolean;
}

/** A pipeline without limits: bandwidth-bound reads, compute fully overlapped. */
export const UNLIMITED_PIPELINE: TilePipeline = { inFlightBytes: Infinity, overlap: Infinity };

/**
 * The Little's-law time of a tile step's reads under `pipe`, ns; `dramReadBytes` (the DRAM
 * bytes behind `dramReadLatencyByteNs`) bounds an issue-limited DRAM stream.
 */
export function latencyBoundNs(readLatencyByteNs: number, dramReadLatencyByteNs: number, pipe: TilePipeline, dramReadBytes = 0): number {
  if (pipe.dramBytesPerNs !== undefined) return Math.max((readLatencyByteNs - dramReadLatencyByteNs) / pipe.inFlightBytes, dramReadBytes / pipe.dramBytesPerNs);
  if (pipe.dramInFlightBytes === undefined) return readLatencyByteNs / pipe.inFlightBytes;
  return Math.max((readLatencyByteNs - dramReadLatencyByteNs) / pipe.inFlightBytes, dramReadLatencyByteNs / pipe.dramInFlightBytes);
}

/**
 * The time a tile step adds on top of max(compute, latency-bound memory) when `overlap`
 * contexts interleave: the smaller of the two is hidden except for a 1/overlap share
 * (round-robin issue among the contexts). overlap = 1 gives compute + memory.
 */
export function exposedStallNs(computeNs: number, memoryNs: number, overlap: number): number {
  if (!(overlap < Infinity)) return 0;
  return Math.min(computeNs, memoryNs) / Math.max(1, overlap);
}
