/**
 * A binary min-heap of simulation events ordered by (time, sequence number), stored in typed
 * arrays so pushing and popping allocate nothing. The sequence number makes ties resolve in
 * insertion order: the same schedule always replays the same way.
 *
 * A timer (`addTimer`) is an event that is moved rather than added again: setting it takes
 * the place of its pending event, if any, with the key a fresh push would get (so every other
 * event orders against it exactly as against a push), and a superseded event never has to be
 * popped. Sequence numbers count pushes and timer settings alike.
 */
export class EventQueue {
  private time: Float64Array;
  private seq: Float64Array;
  private kind: Int32Array;
  private arg: Int32Array;
  /** Timer of each heap entry, -1 for a plain event. */
  private timerAt: Int32Array;
  /** Heap index of each timer's pending event, -1 when it has none. */
  private timerPos: Int32Array;
  private timers = 0;
  private n = 0;
  private nextSeq = 0;
  /** Key of the last event popped (time, sequence): what has happened so far. */
  private lastTime = -Infinity;
  private lastSeq = -1;
  /** The latest key of a timer event superseded or cancelled before it was due. */
  private ghostTime = -Infinity;
  private ghostSeq = -1;
  /**
   * Time and sequence number of the entry being placed (`siftUp`, `siftDown`), and the time
   * `pushNext` / `setTimerNext` schedule at: fields rather than arguments, since a double
   * passed to a call that is not inlined is boxed (a heap allocation per event).
   */
  private et = 0.5;
  private es = 0;
  /** Time the next `pushNext` or `setTimerNext` schedules at. */
  nextTime = 0.5;

  constructor(capacity = 1024) {
    capacity = Math.max(1, Math.floor(capacity));
    this.time = new Float64Array(capacity);
    this.seq = new Float64Array(capacity);
    this.kind = new Int32Array(capacity);
    this.arg = new Int32Array(capacity);
    this.timerAt = new Int32Array(capacity);
    this.timerPos = new Int32Array(8).fill(-1);
  }

  get size(): number {
    return this.n;
  }

  /**
   * Whether an event superseded or cancelled by a timer setting would still be waiting had
   * it been pushed and left to fire: its key is after the last event popped.
   */
  get supersededPending(): boolean {
    return this.ghostTime > this.lastTime || (this.ghostTime === this.lastTime && this.ghostSeq > this.lastSeq);
  }

  push(time: number, kind: number, arg: number): void {
    this.nextTime = time;
    this.pushNext(kind, arg);
  }

  /** `push` at `nextTime`. */
  pushNext(kind: number, arg: number): void {
    if (this.n === this.time.length) this.grow();
    const i = this.n++;
    this.timerAt[i] = -1;
    this.et = this.nextTime;
    this.es = this.nextSeq++;
    this.siftUp(i, kind, arg, -1);
  }

  /** A new timer: its id for `setTimer` and `cancelTimer`. */
  addTimer(): number {
    if (this.timers === this.timerPos.length) {
      const p = new Int32Array(this.timers * 2).fill(-1);
      p.set(this.timerPos);
      this.timerPos = p;
    }
    return this.timers++;
  }

  /** Set timer `id` to fire at `time` (replacing its pending event, if any), keyed as a push now would be. */
  setTimer(id: number, time: number, kind: number, arg: number): void {
    this.nextTime = time;
    this.setTimerNext(id, kind, arg);
  }

  /** `setTimer` at `nextTime`. */
  setTimerNext(id: number, kind: number, arg: number): void {
    const time = this.nextTime;
    const s = this.nextSeq++;
    const at = this.timerPos[id]!;
    if (at < 0) {
      if (this.n === this.time.length) this.grow();
      this.et = time;
      this.es = s;
      this.siftUp(this.n++, kind, arg, id);
      return;
    }
    this.ghost(at);
    this.et = time;
    this.es = s;
    // The new key is later than the old one in sequence; in time it may go either way.
    if (time < this.time[at]!) this.siftUp(at, kind, arg, id);
    else this.siftDown(at, kind, arg, id);
  }

  /** Drop timer `id`'s pending event, if any. */
  cancelTimer(id: number): void {
    const at = this.timerPos[id]!;
    if (at < 0) return;
    this.ghost(at);
    this.timerPos[id] = -1;
    const last = --this.n;
    if (at === last) return;
    const t = this.time[last]!;
    const s = this.seq[last]!;
    const k = this.kind[last]!;
    const a = this.arg[last]!;
    const tm = this.timerAt[last]!;
    this.et = t;
    this.es = s;
    if (at > 0 && (t < this.time[(at - 1) >> 1]! || (t === this.time[(at - 1) >> 1] && s < this.seq[(at - 1) >> 1]!))) this.siftUp(at, k, a, tm);
    else this.siftDown(at, k, a, tm);
  }

  /** Time of the earliest event; `Infinity` when empty. */
  peekTime(): number {
    return this.n === 0 ? Infinity : this.time[0]!;
  }

  /** Time of the earliest event of a queue that is not empty (no `Infinity` to merge with: the engine's loop boxes nothing). */
  topTime(): number {
    return this.time[0]!;
  }

  /** Pops the earliest event into `out` ([time, kind, arg]); false when empty. */
  pop(out: [number, number, number]): boolean {
    if (this.n === 0) return false;
    out[0] = this.time[0]!;
    out[1] = this.kind[0]!;
    out[2] = this.arg[0]!;
    this.popNext();
    return true;
  }

  /** The time of the event `popNext` popped last (its arg is `poppedArg`). */
  get poppedTime(): number {
    return this.lastTime;
  }

  /** The arg of the event `popNext` popped last. */
  poppedArg = 0;

  /**
   * Pops the earliest event (the queue is not empty) and returns its kind; its time and arg
   * are `poppedTime` and `poppedArg` (no array to fill: the engine's loop stores no double
   * through a call).
   */
  popNext(): number {
    const kind = this.kind[0]!;
    this.poppedArg = this.arg[0]!;
    this.lastTime = this.time[0]!;
    this.lastSeq = this.seq[0]!;
    const top = this.timerAt[0]!;
    if (top >= 0) this.timerPos[top] = -1;
    const last = --this.n;
    if (last === 0) return kind;
    this.et = this.time[last]!;
    this.es = this.seq[last]!;
    this.siftDown(0, this.kind[last]!, this.arg[last]!, this.timerAt[last]!);
    return kind;
  }

  /** Remember the key of the event at heap index `i` as superseded. */
  private ghost(i: number): void {
    const t = this.time[i]!;
    const s = this.seq[i]!;
    if (t > this.ghostTime || (t === this.ghostTime && s > this.ghostSeq)) {
      this.ghostTime = t;
      this.ghostSeq = s;
    }
  }

  /** Place the entry (`et`, `es`, k, a, timer) at the hole `i` or above it. */
  private siftUp(i: number, k: number, a: number, timer: number): void {
    const t = this.et;
    const s = this.es;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.time[p]! < t || (this.time[p] === t && this.seq[p]! < s)) break;
      this.move(p, i);
      i = p;
    }
    this.place(i, k, a, timer);
  }

  /** Place the entry (`et`, `es`, k, a, timer) at the hole `i` or below it. */
  private siftDown(i: number, k: number, a: number, timer: number): void {
    const t = this.et;
    const s = this.es;
    const n = this.n;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && (this.time[r]! < this.time[l]! || (this.time[r] === this.time[l] && this.seq[r]! < this.seq[l]!))) c = r;
      if (t < this.time[c]! || (t === this.time[c] && s < this.seq[c]!)) break;
      this.move(c, i);
      i = c;
    }
    this.place(i, k, a, timer);
  }

  private place(i: number, k: number, a: number, timer: number): void {
    this.time[i] = this.et;
    this.seq[i] = this.es;
    this.kind[i] = k;
    this.arg[i] = a;
    this.timerAt[i] = timer;
    if (timer >= 0) this.timerPos[timer] = i;
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from]!;
    this.seq[to] = this.seq[from]!;
    this.kind[to] = this.kind[from]!;
    this.arg[to] = this.arg[from]!;
    const timer = this.timerAt[from]!;
    this.timerAt[to] = timer;
    if (timer >= 0) this.timerPos[timer] = to;
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
    const m = new Int32Array(cap);
    m.set(this.timerAt);
    this.timerAt = m;
  }
}
