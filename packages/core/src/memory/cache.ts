import type { AccessPolicy } from '../topology/topology.js';

/** Stamp of an empty way: older than anything. */
const EMPTY = -(2 ** 52);

/** Outcome of one block access. */
export interface AccessResult {
  /** Every requested sector was present. */
  hit: boolean;
  /** Fraction of the requested sectors that were present (0 on a tag miss). */
  hitFraction: number;
  /** The requested sectors that were not present (to fetch from below). */
  missSectors: number;
  /** Dirty bytes of the block evicted to make room (to be written back), or 0. */
  evictedDirtyBytes: number;
  /** Id of that evicted dirty block (valid when `evictedDirtyBytes` > 0). */
  evictedBlock: number;
  /** Its dirty sectors. */
  evictedSectors: number;
}

/**
 * A set-associative LRU cache over fixed-size blocks (the simulation granularity, a
 * multiple of the hardware line), sectored: each block keeps a 32-bit mask of which of its
 * sectors (≥ one line each) hold data, so two accesses to different bytes of one block do
 * not count as reuse. Stored in typed arrays; one access scans one set.
 *
 * Policies: `default` inserts at the most-recently-used position; `streaming` inserts (and
 * re-touches) a block as if it had been used one cache turnover ago — it is evicted
 * before anything used since, but not before stale data nobody touched for longer, so a
 * cache full of dead default lines still ages out (plain LRU-position insertion would pin
 * them forever); `nontemporal` is handled by the caller (it bypasses the cache).
 */
export class Cache {
  readonly sets: number;
  /** How far back (in accesses) a streaming block is stamped. */
  private readonly streamingAge: number;
  /** Block id per way, -1 when empty (block ids are non-negative 31-bit integers). */
  private readonly tags: Int32Array;
  /** Last-use stamp per way; empty ways hold EMPTY so they are always the victim. */
  private readonly stamps: Float64Array;
  /** Dirty bytes per block (0 = clean), capped at the block size. */
  private readonly dirty: Float64Array;
  /** Valid-sector and dirty-sector masks per block. */
  private readonly valid: Uint32Array;
  private readonly dirtySectors: Uint32Array;
  private clock = 1;
  /** Dirty bytes held, in total. */
  dirtyBytes = 0;
  private readonly result: AccessResult = { hit: false, hitFraction: 0, missSectors: 0, evictedDirtyBytes: 0, evictedBlock: -1, evictedSectors: 0 };

  constructor(
    readonly name: string,
    capacityBytes: number,
    readonly blockBytes: number,
    readonly ways: number,
  ) {
    const blocks = Math.max(ways, Math.floor(capacityBytes / blockBytes));
    this.sets = Math.max(1, Math.floor(blocks / ways));
    this.streamingAge = this.sets * ways;
    this.tags = new Int32Array(this.sets * ways).fill(-1);
    this.stamps = new Float64Array(this.sets * ways).fill(EMPTY);
    this.dirty = new Float64Array(this.sets * ways);
    this.valid = new Uint32Array(this.sets * ways);
    this.dirtySectors = new Uint32Array(this.sets * ways);
  }

  /** Capacity actually modelled, bytes. */
  get capacityBytes(): number {
    return this.sets * this.ways * this.blockBytes;
  }

  private stamp(policy: AccessPolicy): number {
    return policy === 'streaming' ? this.clock++ - this.streamingAge : this.clock++;
  }

  private setOf(block: number): number {
    // Fibonacci hashing: the product's high bits spread strided block ids over the sets, as
    // address hashing does (its low bits would repeat the ids' low bits).
    return Math.floor(((Math.imul(block, 0x9e3779b1) >>> 0) / 4294967296) * this.sets) * this.ways;
  }

  /**
   * Look up (and on a miss, allocate) the sectors `sectors` of `block`; `writeBytes` > 0
   * marks them dirty (write-allocate, no fetch), counting `writeBytes` for the sectors that
   * were not dirty yet (rewriting dirty data adds nothing). The returned object is reused
   * between calls.
   */
  access(block: number, writeBytes: number, policy: AccessPolicy, sectors = 0xffffffff): AccessResult {
    const base = this.setOf(block);
    const r = this.result;
    const tags = this.tags;
    const stamps = this.stamps;
    sectors = sectors >>> 0;
    r.evictedDirtyBytes = 0;
    r.evictedSectors = 0;
    let victim = base;
    let victimStamp = Infinity;
    const end = base + this.ways;
    for (let i = base; i < end; i++) {
      if (tags[i] === block) {
        this.stamps[i] = this.stamp(policy);
        if (writeBytes > 0) this.markDirty(i, writeBytes, sectors);
        const present = (this.valid[i]! & sectors) >>> 0;
        this.valid[i] = (this.valid[i]! | sectors) >>> 0;
        r.hit = present === sectors;
        r.hitFraction = r.hit ? 1 : popcount(present) / popcount(sectors);
        r.missSectors = (sectors & ~present) >>> 0;
        return r;
      }
      const s = stamps[i]!;
      if (s < victimStamp) {
        victimStamp = s;
        victim = i;
      }
    }
    r.hit = false;
    r.hitFraction = 0;
    r.missSectors = sectors;
    r.evictedDirtyBytes = this.dirty[victim]!;
    r.evictedBlock = this.tags[victim]!;
    r.evictedSectors = this.dirtySectors[victim]!;
    this.dirtyBytes -= this.dirty[victim]!;
    this.dirty[victim] = 0;
    this.dirtySectors[victim] = 0;
    this.tags[victim] = block;
    this.valid[victim] = sectors;
    this.stamps[victim] = this.stamp(policy);
    if (writeBytes > 0) this.markDirty(victim, writeBytes, sectors);
    return r;
  }

  private markDirty(i: number, bytes: number, sectors: number): void {
    const fresh = (sectors & ~this.dirtySectors[i]!) >>> 0;
    if (fresh === 0) return;
    const before = this.dirty[i]!;
    const after = Math.min(this.blockBytes, before + (bytes * popcount(fresh)) / popcount(sectors));
    this.dirty[i] = after;
    this.dirtySectors[i] = (this.dirtySectors[i]! | fresh) >>> 0;
    this.dirtyBytes += after - before;
  }

  /**
   * Drop `sectors` of `block` if present (a non-temporal store bypassing this cache makes
   * any copy stale). Dirty bytes in those sectors are dropped: the store supersedes them.
   */
  invalidate(block: number, sectors = 0xffffffff): void {
    const base = this.setOf(block);
    for (let i = base; i < base + this.ways; i++) {
      if (this.tags[i] !== block) continue;
      const keep = (this.valid[i]! & ~sectors) >>> 0;
      const dropDirty = (this.dirtySectors[i]! & sectors) >>> 0;
      if (dropDirty !== 0) {
        const dropBytes = (this.dirty[i]! * popcount(dropDirty)) / popcount(this.dirtySectors[i]!);
        this.dirty[i] = this.dirty[i]! - dropBytes;
        this.dirtyBytes -= dropBytes;
        this.dirtySectors[i] = (this.dirtySectors[i]! & ~sectors) >>> 0;
      }
      this.valid[i] = keep;
      if (keep === 0) {
        this.tags[i] = -1;
        this.stamps[i] = EMPTY;
      }
      return;
    }
  }

  /** Bytes of valid data held (sectors present × sector size). */
  residentBytes(): number {
    let sectors = 0;
    for (let i = 0; i < this.valid.length; i++) sectors += popcount(this.valid[i]!);
    return sectors * (this.blockBytes / 32);
  }

  /** Whether any sector of `block` is present (no state change). */
  contains(block: number): boolean {
    const base = this.setOf(block);
    for (let i = base; i < base + this.ways; i++) if (this.tags[i] === block) return true;
    return false;
  }

  /**
   * Write back every dirty block (they stay cached, clean); `sink` receives each block, its
   * dirty bytes and dirty sectors. Returns the bytes written.
   */
  writeBackAll(sink?: (block: number, bytes: number, sectors: number) => void): number {
    const n = this.dirtyBytes;
    if (n === 0) return 0;
    for (let i = 0; i < this.dirty.length; i++) {
      if (this.dirty[i]! > 0) {
        sink?.(this.tags[i]!, this.dirty[i]!, this.dirtySectors[i]!);
        this.dirty[i] = 0;
        this.dirtySectors[i] = 0;
      }
    }
    this.dirtyBytes = 0;
    return n;
  }

  /** Drop everything (an invalidate); dirty data is lost, so write back first. */
  invalidateAll(): void {
    this.tags.fill(-1);
    this.stamps.fill(EMPTY);
    this.valid.fill(0);
    this.dirty.fill(0);
    this.dirtySectors.fill(0);
    this.dirtyBytes = 0;
  }
}

function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
