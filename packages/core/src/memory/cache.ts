import type { AccessPolicy } from '../topology/topology.js';

/** Offset that places streaming blocks below every default block in LRU order. */
const STREAMING_CLASS = 2 ** 48;

/** Outcome of one block access. */
export interface AccessResult {
  /** Every requested sector was present. */
  hit: boolean;
  /** Fraction of the requested sectors that were present (0 on a tag miss). */
  hitFraction: number;
  /** Dirty bytes of the block evicted to make room (to be written back), or 0. */
  evictedDirtyBytes: number;
  /** Id of that evicted dirty block (valid when `evictedDirtyBytes` > 0). */
  evictedBlock: number;
}

/**
 * A set-associative LRU cache over fixed-size blocks (the simulation granularity, a
 * multiple of the hardware line), sectored: each block keeps a 32-bit mask of which of its
 * sectors (≥ one line each) hold data, so two accesses to different bytes of one block do
 * not count as reuse. Stored in typed arrays; one access scans one set.
 *
 * Policies: `default` inserts at the most-recently-used position; `streaming` blocks are
 * kept in a lower class — always older than any default block, LRU among themselves — so
 * streamed data is evicted first but still lives long enough for near-term reuse;
 * `nontemporal` is handled by the caller (it bypasses the cache).
 */
export class Cache {
  readonly sets: number;
  private readonly tags: Float64Array;
  private readonly stamps: Float64Array;
  /** Dirty bytes per block (0 = clean), capped at the block size. */
  private readonly dirty: Float64Array;
  /** Valid-sector mask per block. */
  private readonly valid: Uint32Array;
  private clock = 1;
  /** Dirty bytes held, in total. */
  dirtyBytes = 0;
  private readonly result: AccessResult = { hit: false, hitFraction: 0, evictedDirtyBytes: 0, evictedBlock: -1 };

  constructor(
    readonly name: string,
    capacityBytes: number,
    readonly blockBytes: number,
    readonly ways: number,
  ) {
    const blocks = Math.max(ways, Math.floor(capacityBytes / blockBytes));
    this.sets = Math.max(1, Math.floor(blocks / ways));
    this.tags = new Float64Array(this.sets * ways).fill(-1);
    this.stamps = new Float64Array(this.sets * ways);
    this.dirty = new Float64Array(this.sets * ways);
    this.valid = new Uint32Array(this.sets * ways);
  }

  /** Capacity actually modelled, bytes. */
  get capacityBytes(): number {
    return this.sets * this.ways * this.blockBytes;
  }

  private stamp(policy: AccessPolicy): number {
    return policy === 'streaming' ? this.clock++ - STREAMING_CLASS : this.clock++;
  }

  private setOf(block: number): number {
    // Fibonacci hashing spreads strided block ids over the sets, as address hashing does.
    return Math.floor(((block * 0.6180339887498949) % 1) * this.sets);
  }

  /**
   * Look up (and on a miss, allocate) the sectors `sectors` of `block`; `writeBytes` > 0
   * marks that many bytes dirty (write-allocate, no fetch). The returned object is reused
   * between calls.
   */
  access(block: number, writeBytes: number, policy: AccessPolicy, sectors = 0xffffffff): AccessResult {
    const base = this.setOf(block) * this.ways;
    const r = this.result;
    r.evictedDirtyBytes = 0;
    let victim = base;
    let victimStamp = Infinity;
    for (let i = base; i < base + this.ways; i++) {
      if (this.tags[i] === block) {
        this.stamps[i] = this.stamp(policy);
        if (writeBytes > 0) this.markDirty(i, writeBytes);
        const present = (this.valid[i]! & sectors) >>> 0;
        this.valid[i] = (this.valid[i]! | sectors) >>> 0;
        r.hit = present === sectors >>> 0;
        r.hitFraction = r.hit ? 1 : popcount(present) / popcount(sectors);
        return r;
      }
      const s = this.tags[i] === -1 ? -Infinity : this.stamps[i]!;
      if (s < victimStamp) {
        victimStamp = s;
        victim = i;
      }
    }
    r.hit = false;
    r.hitFraction = 0;
    r.evictedDirtyBytes = this.dirty[victim]!;
    r.evictedBlock = this.tags[victim]!;
    this.dirtyBytes -= this.dirty[victim]!;
    this.dirty[victim] = 0;
    this.tags[victim] = block;
    this.valid[victim] = sectors >>> 0;
    this.stamps[victim] = this.stamp(policy);
    if (writeBytes > 0) this.markDirty(victim, writeBytes);
    return r;
  }

  private markDirty(i: number, bytes: number): void {
    const before = this.dirty[i]!;
    const after = Math.min(this.blockBytes, before + bytes);
    this.dirty[i] = after;
    this.dirtyBytes += after - before;
  }

  /** Whether any sector of `block` is present (no state change). */
  contains(block: number): boolean {
    const base = this.setOf(block) * this.ways;
    for (let i = base; i < base + this.ways; i++) if (this.tags[i] === block) return true;
    return false;
  }

  /**
   * Write back every dirty block (they stay cached, clean); `sink` receives each block and
   * its dirty bytes. Returns the bytes written.
   */
  writeBackAll(sink?: (block: number, bytes: number) => void): number {
    const n = this.dirtyBytes;
    if (n === 0) return 0;
    for (let i = 0; i < this.dirty.length; i++) {
      if (this.dirty[i]! > 0) {
        sink?.(this.tags[i]!, this.dirty[i]!);
        this.dirty[i] = 0;
      }
    }
    this.dirtyBytes = 0;
    return n;
  }

  /** Drop everything (an invalidate); dirty data is lost, so write back first. */
  invalidateAll(): void {
    this.tags.fill(-1);
    this.valid.fill(0);
    this.dirty.fill(0);
    this.dirtyBytes = 0;
  }
}

function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
