/**
 * A binary min-heap of simulation events ordered by (time, sequence number), stored in typed
 * arrays so pushing and popping allocate nothing. The sequence number makes ties resolve in
 * insertion order: the same schedule always replays the same way.
 */
export class EventQueue {
  private time: Float64Array;
  private seq: Float64Array;
  private kind: Int32Array;
  private arg: Int32Array;
  private n = 0;
  private nextSeq = 0;

  constructor(capacity = 1024) {
    capacity = Math.max(1, Math.floor(capacity));
    this.time = new Float64Array(capacity);
    this.seq = new Float64Array(capacity);
    this.kind = new Int32Array(capacity);
    this.arg = new Int32Array(capacity);
  }

  get size(): number {
    return this.n;
  }

  push(time: number, kind: number, arg: number): void {
    if (this.n === this.time.length) this.grow();
    let i = this.n++;
    const s = this.nextSeq++;
    // sift up
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.time[p]! < time || (this.time[p] === time && this.seq[p]! < s)) break;
      this.move(p, i);
      i = p;
    }
    this.time[i] = time;
    this.seq[i] = s;
    this.kind[i] = kind;
    this.arg[i] = arg;
  }

  /** Time of the earliest event; `Infinity` when empty. */
  peekTime(): number {
    return this.n === 0 ? Infinity : this.time[0]!;
  }

  /** Pops the earliest event into `out` ([time, kind, arg]); false when empty. */
  pop(out: [number, number, number]): boolean {
    if (this.n === 0) return false;
    out[0] = this.time[0]!;
    out[1] = this.kind[0]!;
    out[2] = this.arg[0]!;
    const last = --this.n;
    if (last === 0) return true;
    const t = this.time[last]!;
    const s = this.seq[last]!;
    const k = this.kind[last]!;
    const a = this.arg[last]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= last) break;
      const r = l + 1;
      let c = l;
      if (r < last && (this.time[r]! < this.time[l]! || (this.time[r] === this.time[l] && this.seq[r]! < this.seq[l]!))) c = r;
      if (t < this.time[c]! || (t === this.time[c] && s < this.seq[c]!)) break;
      this.move(c, i);
      i = c;
    }
    this.time[i] = t;
    this.seq[i] = s;
    this.kind[i] = k;
    this.arg[i] = a;
    return true;
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from]!;
    this.seq[to] = this.seq[from]!;
    this.kind[to] = this.kind[from]!;
    this.arg[to] = this.arg[from]!;
  }

  private grow(): void {
    const cap = this.time.length * 2;
    const t = new Float64Array(cap);
    t.set(this.time);
    this.time = t;
    const s = new Float64Array(cap);
    s.set(this.seq);
    this.seq = s;
    const k = new Int32Array(cap);
    k.set(this.kind);
    this.kind = k;
    const a = new Int32Array(cap);
    a.set(this.arg);
    this.arg = a;
  }
}
