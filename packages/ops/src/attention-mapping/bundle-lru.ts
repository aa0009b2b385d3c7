/**
 * A set-associative LRU cache of whole tile bundles, read-only: the organisation and
 * replacement of core's `Cache` (same set hashing, least-recently-used victim, empty ways
 * first) without its sector masks, dirty bytes and write policies, which streamed K/V and
 * Q/dO reads never use. The attention simulator makes millions of lookups, and this is
 * several times faster per lookup.
 */
export class BundleLru {
  readonly sets: number;
  readonly ways: number;
  private readonly tags: Int32Array;
  private readonly stamps: Float64Array;
  private clock = 1;

  /** `entries` bundles in sets of `ways` (fully associative when `ways` ≥ `entries`). */
  constructor(entries: number, ways: number) {
    this.ways = Math.max(1, Math.min(ways, entries));
    this.sets = Math.max(1, Math.floor(entries / this.ways));
    this.tags = new Int32Array(this.sets * this.ways).fill(-1);
    this.stamps = new Float64Array(this.sets * this.ways);
  }

  /** Bundles held. */
  get entries(): number {
    return this.sets * this.ways;
  }

  /** Look up bundle `id` (a non-negative 31-bit integer), allocating it on a miss; true on a hit. */
  access(id: number): boolean {
    const base = ((Math.imul(id, 0x9e3779b1) >>> 0) % this.sets) * this.ways;
    const end = base + this.ways;
    const tags = this.tags;
    const stamps = this.stamps;
    let victim = base;
    let oldest = Infinity;
    for (let i = base; i < end; i++) {
      if (tags[i] === id) {
        stamps[i] = this.clock++;
        return true;
      }
      const s = stamps[i]!;
      if (s < oldest) {
        oldest = s;
        victim = i;
      }
    }
    tags[victim] = id;
    stamps[victim] = this.clock++;
    return false;
  }
}
