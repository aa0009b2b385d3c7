/**
 * When the fill of each recently missed line lands, ns, keyed by (block, first sector of the
 * request): an open-addressing hash table in typed arrays, so recording a fill allocates
 * nothing (a `Map` boxed every key past 2³⁰ and every time, and its rehashing fed the old
 * generation with garbage on every read miss).
 *
 * A fill that has landed delays no one (a hit on it sees the hit latency, as an absent entry
 * does, since time only advances), so landed entries are dropped whenever the table is
 * rebuilt — which entries happen to be kept never changes an answer.
 */
export class FillTimes {
  private blocks: Int32Array;
  private sectors: Int32Array;
  private ready: Float64Array;
  private mask: number;
  private used = 0;

  constructor(capacity = 4096) {
    const n = 2 ** Math.ceil(Math.log2(Math.max(16, capacity)));
    this.blocks = new Int32Array(n).fill(-1);
    this.sectors = new Int32Array(n);
    this.ready = new Float64Array(n);
    this.mask = n - 1;
  }

  /** Entries held (landed ones included until the next rebuild). */
  get size(): number {
    return this.used;
  }

  private slot(block: number, sector: number): number {
    let h = Math.imul(block, 0x9e3779b1) ^ Math.imul(sector + 1, 0x85ebca77);
    h ^= h >>> 15;
    return h & this.mask;
  }

  /** When the fill of (`block`, `sector`) lands, or -Infinity when none is recorded. */
  get(block: number, sector: number): number {
    const blocks = this.blocks;
    for (let i = this.slot(block, sector); ; i = (i + 1) & this.mask) {
      const b = blocks[i]!;
      if (b === -1) return -Infinity;
      if (b === block && this.sectors[i] === sector) return this.ready[i]!;
    }
  }

  /** Record that the fill of (`block`, `sector`) lands at `readyNs`; `nowNs` lets a rebuild drop landed fills. */
  set(block: number, sector: number, readyNs: number, nowNs: number): void {
    const blocks = this.blocks;
    let i = this.slot(block, sector);
    for (; ; i = (i + 1) & this.mask) {
      const b = blocks[i]!;
      if (b === -1) break;
      if (b === block && this.sectors[i] === sector) {
        this.ready[i] = readyNs;
        return;
      }
    }
    blocks[i] = block;
    this.sectors[i] = sector;
    this.ready[i] = readyNs;
    if (++this.used * 2 > this.mask + 1) this.rebuild(nowNs);
  }

  /** Keep the fills still in flight, in a table at most a quarter full (the spare arrays reused while its size holds). */
  private rebuild(nowNs: number): void {
    const { blocks, sectors, ready } = this;
    let live = 0;
    for (let i = 0; i < blocks.length; i++) if (blocks[i] !== -1 && ready[i]! > nowNs) live++;
    let n = blocks.length;
    while (live * 4 > n) n *= 2;
    const spare = this.spare;
    if (spare && spare.blocks.length === n) {
      spare.blocks.fill(-1);
      this.blocks = spare.blocks;
      this.sectors = spare.sectors;
      this.ready = spare.ready;
    } else {
      this.blocks = new Int32Array(n).fill(-1);
      this.sectors = new Int32Array(n);
      this.ready = new Float64Array(n);
    }
    this.spare = { blocks, sectors, ready };
    this.mask = n - 1;
    this.used = 0;
    for (let i = 0; i < blocks.length; i++) {
      if (blocks[i] === -1 || !(ready[i]! > nowNs)) continue;
      let j = this.slot(blocks[i]!, sectors[i]!);
      while (this.blocks[j] !== -1) j = (j + 1) & this.mask;
      this.blocks[j] = blocks[i]!;
      this.sectors[j] = sectors[i]!;
      this.ready[j] = ready[i]!;
      this.used++;
    }
  }

  private spare: { blocks: Int32Array; sectors: Int32Array; ready: Float64Array } | null = null;
}
