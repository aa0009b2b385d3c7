/**
 * When the fill of each recently missed line lands, ns, keyed by (block, first sector of the
 * request): open-addressing hash tables in typed arrays, so recording a fill allocates nothing
 * (a `Map` boxed every key past 2³⁰ and every time, and its rehashing fed the old generation
 * with garbage on every read miss).
 *
 * A fill that has landed delays no one (a hit on it sees the hit latency, as an absent entry
 * does, since time only advances), so landed entries may be dropped at any time — which ones
 * are kept never changes an answer. Two generations: new fills go to the current table; when
 * it is half full, the previous one is emptied (its fills have long landed) and the two swap,
 * so forgetting costs a `fill` rather than a walk over the entries.
 */
export class FillTimes {
  private cur: Table;
  private old: Table;

  constructor(capacity = 4096) {
    const n = 2 ** Math.ceil(Math.log2(Math.max(16, capacity)));
    this.cur = new Table(n);
    this.old = new Table(n);
  }

  /** Entries held (landed ones included until they are forgotten). */
  get size(): number {
    return this.cur.used + this.old.used;
  }

  /**
   * When the fill of (`block`, `sector`) lands if that is after `nowNs`; otherwise a time not
   * after `nowNs` (-Infinity when none is recorded). A generation whose fills have all landed
   * is not searched.
   */
  get(block: number, sector: number, nowNs: number): number {
    this.nowNs = nowNs;
    this.lookup(block, sector);
    return this.readyNs;
  }

  /**
   * The times `lookup` and `record` take and give, ns: fields rather than arguments and
   * results, since a double crossing a call that is not inlined is boxed (an allocation per
   * access on the memory system's hot path).
   */
  nowNs = 0.5;
  readyNs = 0.5;

  /** `get` at `nowNs`, its answer in `readyNs`. */
  lookup(block: number, sector: number): void {
    const nowNs = this.nowNs;
    const cur = this.cur;
    if (this.old.maxReady <= nowNs) {
      if (cur.maxReady <= nowNs) {
        this.readyNs = -Infinity;
        return;
      }
      const i = cur.find(block, sector);
      this.readyNs = i >= 0 ? cur.ready[i]! : -Infinity;
      return;
    }
    const i = cur.find(block, sector);
    if (i >= 0) {
      this.readyNs = cur.ready[i]!;
      return;
    }
    const j = this.old.find(block, sector);
    this.readyNs = j >= 0 ? this.old.ready[j]! : -Infinity;
  }

  /** Record that the fill of (`block`, `sector`) lands at `readyNs`; `nowNs` lets landed fills be forgotten. */
  set(block: number, sector: number, readyNs: number, nowNs: number): void {
    this.readyNs = readyNs;
    this.nowNs = nowNs;
    this.record(block, sector);
  }

  /** `set` with the times in `readyNs` and `nowNs`. */
  record(block: number, sector: number): void {
    const nowNs = this.nowNs;
    const cur = this.cur;
    cur.putReady = this.readyNs;
    cur.put(block, sector);
    if (cur.used * 2 <= cur.capacity) return;
    if (this.old.maxReady <= nowNs) {
      // Every fill of the previous generation has landed: forget them all.
      this.old.clear();
      this.cur = this.old;
      this.old = cur;
      return;
    }
    this.regroup(nowNs);
  }

  /** Whether every recorded fill has landed by `nowNs`. */
  landedBy(nowNs: number): boolean {
    return this.cur.maxReady <= nowNs && this.old.maxReady <= nowNs;
  }

  /** The fills still in flight at `nowNs`, as (block, sector, ns left) triples. */
  inFlight(nowNs: number): number[] {
    const out: number[] = [];
    for (const [t, other] of [
      [this.cur, null],
      [this.old, this.cur],
    ] as const) {
      // A generation whose latest fill has landed holds none in flight.
      if (!(t.maxReady > nowNs)) continue;
      for (let i = 0; i < t.capacity; i++) {
        const b = t.blocks[i]!;
        if (b === -1 || !(t.ready[i]! > nowNs) || (other && other.find(b, t.sectors[i]!) >= 0)) continue;
        out.push(b, t.sectors[i]!, t.ready[i]! - nowNs);
      }
    }
    return out;
  }

  /** Fills of both generations still in flight (rare): one current table a quarter full at most, the previous one empty. */
  private regroup(nowNs: number): void {
    const live = this.inFlight(nowNs);
    let n = this.cur.capacity;
    while ((live.length / 3) * 4 > n) n *= 2;
    this.cur = new Table(n);
    this.old = new Table(n);
    for (let i = 0; i < live.length; i += 3) {
      this.cur.putReady = nowNs + live[i + 2]!;
      this.cur.put(live[i]!, live[i + 1]!);
    }
  }
}

/** One generation: linear probing over power-of-two arrays, block -1 marking an empty slot. */
class Table {
  readonly blocks: Int32Array;
  readonly sectors: Int32Array;
  readonly ready: Float64Array;
  readonly capacity: number;
  private readonly mask: number;
  used = 0;
  /** The latest landing time recorded. */
  maxReady = -Infinity;

  constructor(n: number) {
    this.capacity = n;
    this.mask = n - 1;
    this.blocks = new Int32Array(n).fill(-1);
    this.sectors = new Int32Array(n);
    this.ready = new Float64Array(n);
  }

  private slot(block: number, sector: number): number {
    let h = Math.imul(block, 0x9e3779b1) ^ Math.imul(sector + 1, 0x85ebca77);
    h ^= h >>> 15;
    return h & this.mask;
  }

  /** The slot holding (`block`, `sector`), or -1. */
  find(block: number, sector: number): number {
    const blocks = this.blocks;
    for (let i = this.slot(block, sector); ; i = (i + 1) & this.mask) {
      const b = blocks[i]!;
      if (b === -1) return -1;
      if (b === block && this.sectors[i] === sector) return i;
    }
  }

  /** The landing time `put` records (a field: a double argument would be boxed). */
  putReady = 0.5;

  put(block: number, sector: number): void {
    const readyNs = this.putReady;
    const blocks = this.blocks;
    let i = this.slot(block, sector);
    for (; ; i = (i + 1) & this.mask) {
      const b = blocks[i]!;
      if (b === -1) break;
      if (b === block && this.sectors[i] === sector) break;
    }
    if (blocks[i] === -1) {
      blocks[i] = block;
      this.sectors[i] = sector;
      this.used++;
    }
    this.ready[i] = readyNs;
    if (readyNs > this.maxReady) this.maxReady = readyNs;
  }

  clear(): void {
    this.blocks.fill(-1);
    this.used = 0;
    this.maxReady = -Infinity;
  }
}
