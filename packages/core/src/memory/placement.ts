/**
 * Where a block goes in a set-associative cache and which way it displaces: the one set hash,
 * home-half hash and replacement rule of every cache Fleet models. `Cache` (and through it
 * the memory system) calls these; anything else that models a cache must too, so a change of
 * the rule here changes it everywhere.
 */

/** 2³²: the hashed key's 32 bits as a fraction of one. */
const TWO_32 = 4294967296;
const PER_TWO_32 = 1 / TWO_32;

/**
 * The set of a block: Fibonacci hashing of its key (`block id`, or the id within a layer
 * slot), taking the product's high bits — they spread strided ids over the sets as
 * hardware address hashing does, where the low bits would repeat the ids' low bits.
 * `key` is a non-negative 31-bit integer; returns 0 … sets − 1.
 */
export function setIndex(key: number, sets: number): number {
  // × 2⁻³² is exactly ÷ 2³² (a power of two), without the division.
  return Math.floor((Math.imul(key, 0x9e3779b1) >>> 0) * PER_TWO_32 * sets);
}

/**
 * The home half of a block in an L2 split into `halves` (Hopper's two): the golden-ratio
 * fraction of its key, so consecutive blocks alternate homes without following the set
 * hash. `key` as for `setIndex`; returns 0 … halves − 1.
 */
export function homeHalf(key: number, halves: number): number {
  // The fraction as x − ⌊x⌋: for x ≥ 0 exactly `x % 1` (both are exact), without fmod's library call.
  const x = key * 0.7548776662466927;
  return Math.floor((x - Math.floor(x)) * halves);
}

/**
 * Least-recently-used victim among the ways [base, base + ways) of `stamps` (last-use
 * stamps, empty ways stamped older than anything): the smallest stamp, the lowest way on a
 * tie. Returns the way's index into `stamps`.
 */
export function lruVictim(stamps: Float64Array, base: number, ways: number): number {
  let victim = base;
  let oldest = stamps[base]!;
  for (let j = base + 1, end = base + ways; j < end; j++) {
    const s = stamps[j]!;
    if (s < oldest) {
      oldest = s;
      victim = j;
    }
  }
  return victim;
}
