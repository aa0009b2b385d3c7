/**
 * A binary min-heap of slots keyed by time (ties: lower slot first, for determinism), with
 * one pending entry per slot and O(log n) re-keying — each workgroup slot has exactly one
 * next event (its compute finishing or its data arriving), so no lazy deletion is needed.
 * Keys are stored in heap order beside the slots so a comparison reads one array.
 */
export class SlotHeap {
  /** The time each slot is scheduled at (valid while it is in the heap). */
  readonly time: Float64Array;
  private readonly keys: Float64Array;
  private readonly heap: Int32Array;
  private readonly pos: Int32Array;
  private n = 0;

  constructor(slots: number) {
    this.time = new Float64Array(slots);
    this.keys = new Float64Array(slots);
    this.heap = new Int32Array(slots);
    this.pos = new Int32Array(slots).fill(-1);
  }

  get size(): number {
    return this.n;
  }

  /** Schedule (or reschedule) `slot` at time `t`. */
  set(slot: number, t: number): void {
    this.time[slot] = t;
    let i = this.pos[slot]!;
    if (i < 0) i = this.n++;
    else if (t > this.keys[i]!) {
      this.down(i, slot, t);
      return;
    }
    this.up(i, slot, t);
  }

  /** The earliest slot (the heap must not be empty). */
  top(): number {
    return this.heap[0]!;
  }

  /** Remove `slot` if it is scheduled. */
  remove(slot: number): void {
    const i = this.pos[slot]!;
    if (i < 0) return;
    this.pos[slot] = -1;
    const last = --this.n;
    if (i === last) return;
    const s = this.heap[last]!;
    const t = this.keys[last]!;
    if (t < this.keys[i]! || (t === this.keys[i]! && s < slot)) this.up(i, s, t);
    else this.down(i, s, t);
  }

  /** Remove and return the earliest slot (−1 when empty). */
  pop(): number {
    if (this.n === 0) return -1;
    const top = this.heap[0]!;
    this.pos[top] = -1;
    const last = --this.n;
    if (last > 0) this.down(0, this.heap[last]!, this.keys[last]!);
    return top;
  }

  /** Sift slot `s` with key `t` up from index `i`. */
  private up(i: number, s: number, t: number): void {
    const h = this.heap;
    const k = this.keys;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const kp = k[p]!;
      if (kp < t || (kp === t && h[p]! < s)) break;
      h[i] = h[p]!;
      k[i] = kp;
      this.pos[h[i]!] = i;
      i = p;
    }
    h[i] = s;
    k[i] = t;
    this.pos[s] = i;
  }

  /** Sift slot `s` with key `t` down from index `i`. */
  private down(i: number, s: number, t: number): void {
    const h = this.heap;
    const k = this.keys;
    const n = this.n;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let kc = k[c]!;
      const r = c + 1;
      if (r < n) {
        const kr = k[r]!;
        if (kr < kc || (kr === kc && h[r]! < h[c]!)) {
          c = r;
          kc = kr;
        }
      }
      if (t < kc || (t === kc && s < h[c]!)) break;
      h[i] = h[c]!;
      k[i] = kc;
      this.pos[h[i]!] = i;
      i = c;
    }
    h[i] = s;
    k[i] = t;
    this.pos[s] = i;
  }
}
