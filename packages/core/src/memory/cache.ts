import type { AccessPolicy } from '../topology/topology.js';
import { setIndex } from './placement.js';

/** Stamp of an empty way: older than anything. */
const EMPTY = -(2 ** 52);

/**
 * Which sectors of a block an access touches: one bit per sector, 32 sectors per int32 word,
 * `Cache.words` words (sector i is bit i % 32 of word ⌊i / 32⌋).
 */
export type SectorMask = Int32Array;

/** A copy of a cache's contents at one moment (`Cache.snapshot`). */
export interface CacheSnapshot {
  tags: Int32Array;
  stamps: Float64Array;
  dirty: Float64Array;
  valid: Int32Array;
  dirtySectors: Int32Array;
  clock: number;
}

/** Outcome of one block access. */
export interface AccessResult {
  /** Every requested sector was present. */
  hit: boolean;
  /** Fraction of the requested sectors that were present (0 on a tag miss). */
  hitFraction: number;
  /** The requested sectors that were not present (to fetch from below). */
  miss: SectorMask;
  /** Dirty bytes of the block evicted to make room (to be written back), or 0. */
  evictedDirtyBytes: number;
  /** Id of that evicted dirty block (valid when `evictedDirtyBytes` > 0). */
  evictedBlock: number;
  /** Its dirty sectors (valid when `evictedDirtyBytes` > 0). */
  evicted: SectorMask;
}

/**
 * A set-associative LRU cache over fixed-size blocks (the simulation granularity, a
 * multiple of the hardware line), sectored: each block keeps a mask of which of its sectors
 * (one line each) hold data, so two accesses to different bytes of one block do not count as
 * reuse. Stored in typed arrays; one access scans one set.
 *
 * Policies: `default` inserts at the most-recently-used position; `streaming` inserts (and
 * re-touches) a block as if it had been used just before one cache turnover ago — it is evicted
 * before anything used since, but not before stale data nobody touched for longer, so a
 * cache full of dead default lines still ages out (plain LRU-position insertion would pin
 * them forever); `nontemporal` is handled by the caller (it bypasses the cache).
 */
export class Cache {
  readonly sets: number;
  /** Bits of a block id that select its set. */
  private readonly keyMask: number;
  /** Int32 words per sector mask. */
  readonly words: number;
  /** How far back (in accesses) a streaming block is stamped. */
  private readonly streamingAge: number;
  /** Block id per way, -1 when empty (block ids are non-negative 31-bit integers). */
  private readonly tags: Int32Array;
  /** Last-use stamp per way; empty ways hold EMPTY so they are always the victim. */
  private readonly stamps: Float64Array;
  /** Dirty bytes per block (0 = clean), capped at the block size. */
  private readonly dirty: Float64Array;
  /**
   * Valid-sector and dirty-sector masks, `words` int32 words per way: V8 keeps int32 values
   * unboxed, where uint32 masks above 2³¹ would become heap doubles on the hot path.
   */
  private readonly valid: Int32Array;
  private readonly dirtySectors: Int32Array;
  private clock = 1;
  /** The way the last access used (a block lives in one way only, so a tag match there is the block's way). */
  private lastWay = 0;
  /**
   * Each set's ways in ascending stamp order (empty ways first, by index): a doubly linked
   * list over way indices, -1 ending it. Its head is the way `lruVictim` would choose, so a
   * miss takes it without scanning the set's stamps; a default access (the newest stamp) moves
   * its way to the tail, a streaming one walks from the tail to its older place.
   */
  private readonly nextWay: Int32Array;
  private readonly prevWay: Int32Array;
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  /** Dirty bytes held, in total. */
  dirtyBytes = 0;
  /** The dirty-sector mask `writeBackAll` hands its sink (reused). */
  private readonly writeBackMask: SectorMask;
  private readonly result: AccessResult;
  /** Every sector of a block. */
  readonly full: SectorMask;
  private readonly scratch: SectorMask;

  constructor(
    readonly name: string,
    capacityBytes: number,
    readonly blockBytes: number,
    readonly ways: number,
    /** Sectors per block (≤ 128): one valid bit each. */
    readonly sectorsPerBlock = 32,
    /**
     * Sets are indexed by the block id modulo this power of two (the address within a layer
     * slot of a layer-periodic layout); default: the whole id.
     */
    setPeriodBlocks: number | null = null,
  ) {
    if (!(Number.isInteger(sectorsPerBlock) && sectorsPerBlock >= 1 && sectorsPerBlock <= 128)) {
      throw new RangeError(`cache ${name}: sectorsPerBlock must be an integer in 1…128, got ${sectorsPerBlock}`);
    }
    this.keyMask = setPeriodBlocks === null ? 0x7fffffff : setPeriodBlocks - 1;
    if (setPeriodBlocks !== null && !(setPeriodBlocks >= 1 && setPeriodBlocks <= 2 ** 31 && (setPeriodBlocks & this.keyMask) === 0)) {
      throw new RangeError(`cache ${name}: setPeriodBlocks must be a power of two ≤ 2³¹, got ${setPeriodBlocks}`);
    }
    const blocks = Math.max(ways, Math.floor(capacityBytes / blockBytes));
    this.sets = Math.max(1, Math.floor(blocks / ways));
    this.words = Math.ceil(sectorsPerBlock / 32);
    this.streamingAge = this.sets * ways;
    const n = this.sets * ways;
    this.tags = new Int32Array(n).fill(-1);
    this.stamps = new Float64Array(n).fill(EMPTY);
    this.nextWay = new Int32Array(n);
    this.prevWay = new Int32Array(n);
    this.head = new Int32Array(this.sets);
    this.tail = new Int32Array(this.sets);
    this.resetOrder();
    this.dirty = new Float64Array(n);
    this.valid = new Int32Array(n * this.words);
    this.dirtySectors = new Int32Array(n * this.words);
    this.full = new Int32Array(this.words);
    for (let w = 0; w < this.words; w++) {
      const bits = Math.min(32, sectorsPerBlock - 32 * w);
      this.full[w] = bits >= 32 ? -1 : (1 << bits) - 1;
    }
    this.scratch = new Int32Array(this.words);
    this.writeBackMask = new Int32Array(this.words);
    this.result = { hit: false, hitFraction: 0, miss: new Int32Array(this.words), evictedDirtyBytes: 0, evictedBlock: -1, evicted: new Int32Array(this.words) };
  }

  /** Capacity actually modelled, bytes. */
  get capacityBytes(): number {
    return this.sets * this.ways * this.blockBytes;
  }

  /** First way of the block's set (the set hash is core's one, `setIndex`). */
  private setOf(block: number): number {
    return setIndex(block & this.keyMask, this.sets) * this.ways;
  }

  /** Every set's ways in index order (all empty, or all stamped alike). */
  private resetOrder(): void {
    const ways = this.ways;
    for (let s = 0; s < this.sets; s++) {
      const base = s * ways;
      for (let j = 0; j < ways; j++) {
        this.prevWay[base + j] = j === 0 ? -1 : base + j - 1;
        this.nextWay[base + j] = j === ways - 1 ? -1 : base + j + 1;
      }
      this.head[s] = base;
      this.tail[s] = base + ways - 1;
    }
  }

  private unlink(i: number, set: number): void {
    const p = this.prevWay[i]!;
    const q = this.nextWay[i]!;
    if (p < 0) this.head[set] = q;
    else this.nextWay[p] = q;
    if (q < 0) this.tail[set] = p;
    else this.prevWay[q] = p;
  }

  /** Link way `i` (unlinked, stamped) where its stamp goes: before the first way stamped later (or alike with a higher index). */
  private linkInOrder(i: number, set: number): void {
    const stamps = this.stamps;
    const st = stamps[i]!;
    let q = this.head[set]!;
    while (q >= 0 && (stamps[q]! < st || (stamps[q] === st && q < i))) q = this.nextWay[q]!;
    this.linkBetween(i, set, q < 0 ? this.tail[set]! : this.prevWay[q]!, q);
  }

  /** Way `i` was just stamped: put it back in order (the newest stamp goes last). */
  private restamped(i: number, set: number, streaming: boolean): void {
    if (!streaming) {
      if (this.tail[set] === i) return;
      this.unlink(i, set);
      this.linkBetween(i, set, this.tail[set]!, -1);
      return;
    }
    this.unlink(i, set);
    this.linkInOrderFromTail(i, set);
  }

  /**
   * `linkInOrder` searching from the newest end: a streaming stamp, one cache turnover old,
   * usually lands among a set's newest ways (after 14 of 16 on average in FLEET's M-tile
   * decode). The set is in order, so the way after the last one that goes before `i` is the
   * first one that does not.
   */
  private linkInOrderFromTail(i: number, set: number): void {
    const stamps = this.stamps;
    const st = stamps[i]!;
    let p = this.tail[set]!;
    while (p >= 0 && !(stamps[p]! < st || (stamps[p] === st && p < i))) p = this.prevWay[p]!;
    this.linkBetween(i, set, p, p < 0 ? this.head[set]! : this.nextWay[p]!);
  }

  /** Link way `i` between ways `p` and `q` of its set (-1: the set's end). */
  private linkBetween(i: number, set: number, p: number, q: number): void {
    this.prevWay[i] = p;
    this.nextWay[i] = q;
    if (p < 0) this.head[set] = i;
    else this.nextWay[p] = i;
    if (q < 0) this.tail[set] = i;
    else this.prevWay[q] = i;
  }

  /** A mask of the sectors in word 0 only (blocks of ≤ 32 sectors), or every sector for -1. */
  private maskOf(sectors: number): SectorMask {
    const m = this.scratch;
    if (sectors === -1) m.set(this.full);
    else {
      m.fill(0);
      m[0] = sectors;
    }
    return m;
  }

  /**
   * Look up (and on a miss, allocate) sectors of `block`: a `SectorMask`, or a number for the
   * first 32 sectors (-1: the whole block). `writeBytes` > 0 marks them dirty
   * (write-allocate, no fetch), counting `writeBytes` for the sectors that were not dirty yet
   * (rewriting dirty data adds nothing). The returned object is reused between calls.
   */
  access(block: number, writeBytes: number, policy: AccessPolicy, sectors: SectorMask | number = -1): AccessResult {
    return this.accessMask(block, writeBytes, policy === 'streaming', typeof sectors === 'number' ? this.maskOf(sectors) : sectors);
  }

  /** `access` for the memory system's hot path: a mask of `words` words, the policy as a flag. */
  accessMask(block: number, writeBytes: number, streaming: boolean, req: SectorMask): AccessResult {
    const ways = this.ways;
    const W = this.words;
    const set = setIndex(block & this.keyMask, this.sets);
    const base = set * ways;
    const end = base + ways;
    const r = this.result;
    const tags = this.tags;
    const stamps = this.stamps;
    const valid = this.valid;
    // A streaming stamp is half a step older than the access one turnover ago: stamps never
    // tie, so the LRU victim follows from the stamps alone, never from which way a block
    // happened to land in (state `appendState` leaves out — a tie broken by way index made
    // caches with equal states evict differently).
    const stamp = streaming ? this.clock++ - this.streamingAge - 0.5 : this.clock++;
    r.evictedDirtyBytes = 0;
    // Tag search first (the common hit path touches only the tags), then the LRU victim. The
    // way used last comes first: consecutive rows of a tile often share a block.
    let i = this.lastWay;
    if (tags[i] !== block) {
      i = base;
      while (i < end && tags[i] !== block) i++;
    }
    if (i < end) {
      this.lastWay = i;
      stamps[i] = stamp;
      if (streaming) {
        this.unlink(i, set);
        this.linkInOrderFromTail(i, set);
      } else if (this.tail[set] !== i) {
        this.unlink(i, set);
        this.linkBetween(i, set, this.tail[set]!, -1);
      }
      if (writeBytes > 0) this.markDirty(i, writeBytes, req);
      const miss = r.miss;
      if (W === 4) {
        // Blocks of 97–128 sectors (a 16 KiB block of 128 B lines, the default): the words unrolled.
        const v = i * 4;
        const s0 = req[0]!;
        const s1 = req[1]!;
        const s2 = req[2]!;
        const s3 = req[3]!;
        const h0 = valid[v]!;
        const h1 = valid[v + 1]!;
        const h2 = valid[v + 2]!;
        const h3 = valid[v + 3]!;
        const p0 = h0 & s0;
        const p1 = h1 & s1;
        const p2 = h2 & s2;
        const p3 = h3 & s3;
        miss[0] = s0 & ~p0;
        miss[1] = s1 & ~p1;
        miss[2] = s2 & ~p2;
        miss[3] = s3 & ~p3;
        if (p0 === s0 && p1 === s1 && p2 === s2 && p3 === s3) {
          r.hit = true;
          r.hitFraction = 1;
          return r;
        }
        valid[v] = h0 | s0;
        valid[v + 1] = h1 | s1;
        valid[v + 2] = h2 | s2;
        valid[v + 3] = h3 | s3;
        r.hit = false;
        r.hitFraction = (popcount(p0) + popcount(p1) + popcount(p2) + popcount(p3)) / (popcount(s0) + popcount(s1) + popcount(s2) + popcount(s3));
        return r;
      }
      // Every requested sector present (the common hit): no sector counting.
      let all = true;
      for (let w = 0, v = i * W; w < W; w++, v++) {
        const s = req[w]!;
        const had = valid[v]!;
        const p = had & s;
        if (p !== s) {
          valid[v] = had | s;
          all = false;
        }
        miss[w] = s & ~p;
      }
      if (all) {
        r.hit = true;
        r.hitFraction = 1;
        return r;
      }
      let present = 0;
      let asked = 0;
      for (let w = 0; w < W; w++) {
        const s = req[w]!;
        const p = s & ~miss[w]!;
        if (s === -1) asked += 32;
        else if (s !== 0) asked += popcount(s);
        if (p === -1) present += 32;
        else if (p !== 0) present += popcount(p);
      }
      r.hit = false;
      r.hitFraction = present / asked;
      return r;
    }
    // The set's least recently used way, as `lruVictim(stamps, base, ways)` would choose it.
    const victim = this.head[set]!;
    this.lastWay = victim;
    r.hit = false;
    r.hitFraction = 0;
    const miss = r.miss;
    if (W === 4) {
      miss[0] = req[0]!;
      miss[1] = req[1]!;
      miss[2] = req[2]!;
      miss[3] = req[3]!;
    } else for (let w = 0; w < W; w++) miss[w] = req[w]!;
    const dirty = this.dirty[victim]!;
    r.evictedBlock = tags[victim]!;
    const v0 = victim * W;
    if (dirty > 0) {
      r.evictedDirtyBytes = dirty;
      for (let w = 0; w < W; w++) {
        r.evicted[w] = this.dirtySectors[v0 + w]!;
        this.dirtySectors[v0 + w] = 0;
      }
      this.dirtyBytes -= dirty;
      this.dirty[victim] = 0;
    }
    tags[victim] = block;
    if (W === 4) {
      valid[v0] = req[0]!;
      valid[v0 + 1] = req[1]!;
      valid[v0 + 2] = req[2]!;
      valid[v0 + 3] = req[3]!;
    } else for (let w = 0; w < W; w++) valid[v0 + w] = req[w]!;
    stamps[victim] = stamp;
    this.restamped(victim, set, streaming);
    if (writeBytes > 0) this.markDirty(victim, writeBytes, req);
    return r;
  }

  private markDirty(i: number, bytes: number, req: SectorMask): void {
    const W = this.words;
    let fresh = 0;
    for (let w = 0, v = i * W; w < W; w++, v++) {
      const f = req[w]! & ~this.dirtySectors[v]!;
      if (f !== 0) {
        fresh += popcount(f);
        this.dirtySectors[v] = this.dirtySectors[v]! | f;
      }
    }
    if (fresh === 0) return;
    const before = this.dirty[i]!;
    const after = Math.min(this.blockBytes, before + (bytes * fresh) / maskPopcount(req));
    this.dirty[i] = after;
    this.dirtyBytes += after - before;
  }

  /**
   * Drop `sectors` of `block` if present (a non-temporal store bypassing this cache makes
   * any copy stale). Dirty bytes in those sectors are dropped: the store supersedes them.
   */
  invalidate(block: number, sectors: SectorMask | number = -1): void {
    const req = typeof sectors === 'number' ? this.maskOf(sectors) : sectors;
    const W = this.words;
    const base = this.setOf(block);
    for (let i = base; i < base + this.ways; i++) {
      if (this.tags[i] !== block) continue;
      let drop = 0;
      let dirtyAll = 0;
      let kept = 0;
      for (let w = 0, v = i * W; w < W; w++, v++) {
        const d = this.dirtySectors[v]!;
        if (d !== 0) dirtyAll += popcount(d);
        const dd = d & req[w]!;
        if (dd !== 0) drop += popcount(dd);
        this.dirtySectors[v] = d & ~req[w]!;
        this.valid[v] = this.valid[v]! & ~req[w]!;
        kept |= this.valid[v]!;
      }
      if (drop !== 0) {
        const dropBytes = (this.dirty[i]! * drop) / dirtyAll;
        this.dirty[i] = this.dirty[i]! - dropBytes;
        this.dirtyBytes -= dropBytes;
      }
      if (kept === 0) {
        this.tags[i] = -1;
        this.stamps[i] = EMPTY;
        const set = (base / this.ways) | 0;
        this.unlink(i, set);
        this.linkInOrder(i, set);
      }
      return;
    }
  }

  /** Bytes of valid data held (sectors present × sector size). */
  residentBytes(): number {
    let sectors = 0;
    for (let i = 0; i < this.valid.length; i++) sectors += popcount(this.valid[i]!);
    return sectors * (this.blockBytes / this.sectorsPerBlock);
  }

  /** Whether any sector of `block` is present (no state change). */
  contains(block: number): boolean {
    const base = this.setOf(block);
    for (let i = base; i < base + this.ways; i++) if (this.tags[i] === block) return true;
    return false;
  }

  /**
   * Write back every dirty block (they stay cached, clean); `sink` receives each block, its
   * dirty bytes and dirty sectors (a mask reused between calls). Set by set, least recently
   * used first: the order follows the cache's contents, not which way a block happened to
   * land in. Returns the bytes written.
   */
  writeBackAll(sink?: (block: number, bytes: number, sectors: SectorMask) => void): number {
    const n = this.dirtyBytes;
    if (n === 0) return 0;
    const W = this.words;
    const mask = this.writeBackMask;
    for (let s = 0; s < this.sets; s++) {
      // The set's list is in ascending stamp order, and dirty ways never share a stamp.
      for (let i = this.head[s]!; i >= 0; i = this.nextWay[i]!) {
        if (!(this.dirty[i]! > 0)) continue;
        for (let w = 0; w < W; w++) {
          mask[w] = this.dirtySectors[i * W + w]!;
          this.dirtySectors[i * W + w] = 0;
        }
        sink?.(this.tags[i]!, this.dirty[i]!, mask);
        this.dirty[i] = 0;
      }
    }
    this.dirtyBytes = 0;
    return n;
  }

  /** A copy of the cache's contents (typed-array copies: cheap), for `appendState` later. */
  snapshot(): CacheSnapshot {
    return {
      tags: this.tags.slice(),
      stamps: this.stamps.slice(),
      dirty: this.dirty.slice(),
      valid: this.valid.slice(),
      dirtySectors: this.dirtySectors.slice(),
      clock: this.clock,
    };
  }

  /** Numbers `appendState` writes at most for one snapshot. */
  get stateLength(): number {
    return this.sets * (1 + this.ways * (3 + 2 * this.words));
  }

  /**
   * Write a snapshot's state into `out` from `at` (room for `stateLength` numbers), canonically:
   * per set, its blocks from most to least recently used, each as `label(block)`, its age in
   * accesses, valid mask, dirty bytes and dirty mask. Equal output means equal behaviour from
   * there on, for blocks named alike. Returns the index after the last number written.
   */
  appendState(label: (block: number) => number, out: Float64Array, at: number, snap: CacheSnapshot): number {
    const W = this.words;
    const ways = this.ways;
    const order = new Int32Array(ways);
    const { tags, stamps, dirty, valid, dirtySectors, clock } = snap;
    let o = at;
    for (let s = 0; s < this.sets; s++) {
      // The set's valid ways, least recently used first (insertion sort: a set is small; stable).
      let n = 0;
      for (let i = s * ways; i < (s + 1) * ways; i++) {
        if (tags[i]! < 0) continue;
        const st = stamps[i]!;
        let k = n++;
        while (k > 0 && stamps[order[k - 1]!]! > st) {
          order[k] = order[k - 1]!;
          k--;
        }
        order[k] = i;
      }
      out[o++] = n;
      for (let k = n - 1; k >= 0; k--) {
        const i = order[k]!;
        out[o++] = label(tags[i]!);
        out[o++] = clock - stamps[i]!;
        out[o++] = dirty[i]!;
        for (let w = 0; w < W; w++) {
          out[o++] = valid[i * W + w]!;
          out[o++] = dirtySectors[i * W + w]!;
        }
      }
    }
    return o;
  }

  /**
   * Rename the blocks held: each block id `b` at or above `from` becomes `b + by` (a multiple
   * of the set period, so every block stays in its set and way, with its stamp, sectors and
   * dirt). The caches as they would stand after whole layers that repeat the last one: their
   * blocks of per-layer buffers belong that many layers later.
   */
  relabel(from: number, by: number): void {
    if (by % (this.keyMask + 1) !== 0) throw new RangeError(`cache ${this.name}: relabel by ${by} blocks, not a multiple of the set period`);
    const tags = this.tags;
    for (let i = 0; i < tags.length; i++) if (tags[i]! >= from) tags[i] = tags[i]! + by;
  }

  /** Drop everything (an invalidate); dirty data is lost, so write back first. */
  invalidateAll(): void {
    this.tags.fill(-1);
    this.stamps.fill(EMPTY);
    this.resetOrder();
    this.valid.fill(0);
    this.dirty.fill(0);
    this.dirtySectors.fill(0);
    this.dirtyBytes = 0;
  }
}

/** Set bits of a 32-bit mask (int32 or uint32 pattern). */
export function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Set bits of a sector mask. */
export function maskPopcount(m: SectorMask): number {
  let n = 0;
  for (let w = 0; w < m.length; w++) if (m[w] !== 0) n += popcount(m[w]!);
  return n;
}
