import { TICKS_PER_NS, type Engine } from '../engine/engine.js';

/**
 * A shared bandwidth resource (an HBM interface, an LLC, one L2) modelled as egalitarian
 * processor sharing: the `n` transfers in flight each get `min(perFlowCap, bandwidth / n)`.
 * Concurrent transfers really split the bandwidth; a lone transfer is limited by what one
 * compute unit can pull.
 *
 * Implementation: a virtual clock `v` counts the bytes each active flow has received so far;
 * a flow of `b` bytes started at virtual time `v0` finishes when `v` reaches `v0 + b`. Only
 * the earliest finisher needs an engine event, so arrivals and departures cost O(log n).
 */
export class BandwidthResource {
  private v = 0;
  private last = 0;
  private active = 0;
  private generation = 0;
  /**
   * Min-heap of finish virtual times, parallel to `ids`, `heapN` entries (typed arrays: an
   * array's `pop` would box every double it returns).
   */
  private finish = new Float64Array(16);
  private ids = new Int32Array(16);
  private heapN = 0;
  /** Scratch list of flows finishing at one wake-up (reused: no allocation per event). */
  private readonly done: number[] = [];
  private readonly kind: number;
  /** Bytes served in total. */
  bytes = 0;
  /** Integral of (flows active > 0) over time, ns: how long the resource was busy. */
  busyNs = 0;

  constructor(
    readonly name: string,
    private readonly engine: Engine,
    readonly bandwidthBytesPerNs: number,
    private readonly perFlowCap: number,
    /** Called with the flow id when a flow completes. */
    private readonly onDone: (flowId: number) => void,
  ) {
    this.kind = engine.register(`bw:${name}`, (gen) => this.wake(gen));
    this.timer = engine.timer();
  }

  /** The engine timer of the next wake-up: an arrival or departure moves it. */
  private readonly timer: number;

  /** Bytes/ns each active flow gets: min(perFlowCap, bandwidth / active), 0 when idle (kept with `active`). */
  private flowRate = 0;

  private rate(): number {
    return this.flowRate;
  }

  /** `active` changed: recompute the per-flow rate (the same expression every time, so the same value). */
  private setActive(n: number): void {
    this.active = n;
    this.flowRate = n === 0 ? 0 : Math.min(this.perFlowCap, this.bandwidthBytesPerNs / n);
  }

  private advance(): void {
    const now = this.engine.now;
    if (this.active > 0) {
      this.v += this.rate() * (now - this.last);
      this.busyNs += now - this.last;
    }
    this.last = now;
  }

  /** Bytes/ns being transferred right now, over all active flows. */
  get currentBytesPerNs(): number {
    return this.active * this.rate();
  }

  /** Start a transfer of `bytes`; `onDone(flowId)` fires when it has been served. */
  start(bytes: number, flowId: number): void {
    this.nextBytes = bytes;
    this.startNext(flowId);
  }

  /** The bytes of the transfer `startNext` starts (a field: a double argument would be boxed). */
  nextBytes = 0.5;

  /** `start(nextBytes, flowId)`. */
  startNext(flowId: number): void {
    const bytes = this.nextBytes;
    this.advance();
    this.bytes += bytes;
    this.pushFinish = this.v + bytes;
    this.heapPush(flowId);
    this.setActive(this.active + 1);
    this.reschedule();
  }

  private reschedule(): void {
    this.generation++;
    if (this.active === 0) {
      // Idle: restart the virtual clock, so an idle resource is in the same state whenever it
      // went idle (its rounding does not drift with the bytes served so far).
      this.v = 0;
      this.engine.cancelTimer(this.timer);
      return;
    }
    const dt = Math.max(0, (this.finish[0]! - this.v) / this.rate());
    // Up to the next tick of the engine's time grid, never before the flow is done: rounded
    // down, a wake-up would find it a hair short. (The delay goes through the engine's field: a
    // double argument would be boxed.)
    this.engine.nextDelay = Math.ceil(dt * TICKS_PER_NS) / TICKS_PER_NS;
    this.engine.setTimerNext(this.timer, this.kind, this.generation);
  }

  private wake(gen: number): void {
    if (gen !== this.generation) return; // superseded by a later arrival or departure
    this.advance();
    // Everything within rounding of the virtual clock is done (the wake-up is never early, and
    // the slack depends on no absolute time, so a shifted schedule ends its flows alike).
    const eps = 1e-9 * Math.max(1, this.v);
    // The bound in a field: a double local live across `heapPop` would be boxed.
    this.doneBelow = this.v + eps;
    const done = this.done;
    let n = 0;
    let active = this.active;
    while (active > 0 && this.finish[0]! <= this.doneBelow) {
      done[n++] = this.heapPop();
      active--;
    }
    if (active !== this.active) this.setActive(active);
    this.reschedule();
    for (let i = 0; i < n; i++) this.onDone(done[i]!);
  }

  /** Virtual time up to which `wake` counts flows as done. */
  private doneBelow = 0.5;

  /** Finish virtual time of the flow `heapPush` adds (a field: a double argument would be boxed). */
  private pushFinish = 0.5;

  private heapPush(id: number): void {
    const f = this.pushFinish;
    if (this.heapN === this.finish.length) {
      const fin = new Float64Array(this.heapN * 2);
      fin.set(this.finish);
      this.finish = fin;
      const ids = new Int32Array(this.heapN * 2);
      ids.set(this.ids);
      this.ids = ids;
    }
    const fin = this.finish;
    const ids = this.ids;
    let i = this.heapN++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (fin[p]! <= f) break;
      fin[i] = fin[p]!;
      ids[i] = ids[p]!;
      i = p;
    }
    fin[i] = f;
    ids[i] = id;
  }

  private heapPop(): number {
    const fin = this.finish;
    const ids = this.ids;
    const top = ids[0]!;
    const n = --this.heapN;
    const f = fin[n]!;
    const id = ids[n]!;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const c = l + 1 < n && fin[l + 1]! < fin[l]! ? l + 1 : l;
      if (f <= fin[c]!) break;
      fin[i] = fin[c]!;
      ids[i] = ids[c]!;
      i = c;
    }
    fin[i] = f;
    ids[i] = id;
    return top;
  }
}
