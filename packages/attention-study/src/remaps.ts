/**
 * Chiplet remaps: functions from a workgroup's launch id to the id of the work it does, so
 * that the ids one partition receives from a round-robin dispatcher (launch id i → partition
 * i mod X) are contiguous pieces of work. These are the three families GPU libraries ship
 * (HipKittens, AITER, ROCm Triton kernels); the attention mappings are built from them.
 *
 * All take `id` in [0, n), `n` ids in total and `x` partitions.
 */

/**
 * The simple contiguous remap: `(id mod x)·⌊n/x⌋ + ⌊id/x⌋`. Partition p gets the ids
 * [p·n/x, (p+1)·n/x). Only a permutation when x divides n (or n ≤ 1): otherwise two launch
 * ids collide and some work is never done, which is why libraries ship the variants below.
 */
export function simpleRemap(id: number, n: number, x: number): number {
  return (id % x) * Math.floor(n / x) + Math.floor(id / x);
}

/**
 * The chunked remap: each window of x·chunk launch ids gives every partition `chunk`
 * consecutive ids; ids past the last whole window keep their value. A permutation for every
 * n, x and chunk.
 */
export function chunkedRemap(id: number, n: number, x: number, chunk: number): number {
  const block = x * chunk;
  const limit = Math.floor(n / block) * block;
  if (id >= limit) return id;
  const lp = Math.floor(id / x);
  return Math.floor(lp / chunk) * block + (id % x) * chunk + (lp % chunk);
}

/**
 * The balanced remap: partition p gets a contiguous range of ⌈n/x⌉ ids when p < n mod x
 * (all of them when x divides n) and ⌈n/x⌉ − 1 ids otherwise. A permutation for every n and x.
 */
export function balancedRemap(id: number, n: number, x: number): number {
  const perPartition = Math.ceil(n / x);
  const tall = n % x === 0 ? x : n % x;
  const p = id % x;
  const local = Math.floor(id / x);
  return p < tall ? p * perPartition + local : tall * perPartition + (p - tall) * (perPartition - 1) + local;
}

/** The remaps by name, with the chunk of the chunked remap fixed. */
export type ChipletRemap = (id: number, n: number, x: number) => number;

export const CHIPLET_REMAPS: Readonly<Record<'simple' | 'chunked' | 'balanced', ChipletRemap>> = {
  simple: simpleRemap,
  /** AITER's default chunk of 2. */
  chunked: (id, n, x) => chunkedRemap(id, n, x, 2),
  balanced: balancedRemap,
};
