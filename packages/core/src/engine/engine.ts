import { EventQueue } from './event-queue.js';

/** Event times are multiples of 1/TICKS_PER_NS ns (about a picosecond). */
export const TICKS_PER_NS = 1024;

/** Handles one kind of event; `arg` is the integer the event was scheduled with. */
export type Handler = (arg: number) => void;

/**
 * The discrete-event engine: virtual time in nanoseconds, events as (kind, integer arg)
 * pairs so the hot loop allocates nothing. Components register a handler per kind and
 * schedule events at absolute or relative times. Deterministic: ties fire in the order
 * they were scheduled.
 */
export class Engine {
  private readonly queue = new EventQueue();
  private readonly handlers: Handler[] = [];
  private readonly names: string[] = [];
  private nowNs = 0;
  private fired = 0;

  /** Current virtual time, ns. */
  get now(): number {
    return this.nowNs;
  }

  /** Events processed so far. */
  get eventCount(): number {
    return this.fired;
  }

  /**
   * Events waiting to fire. A timer event that `setTimer` or `cancelTimer` superseded counts
   * as one while it would still be waiting had it stayed queued (as a re-pushed event would
   * have), so whether anything is pending does not depend on how timers are kept.
   */
  get pending(): number {
    return this.queue.size + (this.queue.supersededPending ? 1 : 0);
  }

  /** Register a handler; returns the kind to schedule it with. */
  register(name: string, handler: Handler): number {
    this.handlers.push(handler);
    this.names.push(name);
    return this.handlers.length - 1;
  }

  /**
   * Schedule `kind` at absolute time `time` (not before now), rounded to the time grid: on a
   * grid of 2⁻¹⁰ ns sums of event times are exact, so a schedule shifted in time replays the
   * same way (no tie between two events flips with the rounding of a larger clock).
   */
  at(time: number, kind: number, arg = 0): void {
    if (!(time >= this.nowNs)) throw new Error(`engine: event '${this.names[kind]}' scheduled at ${time} ns, before now (${this.nowNs} ns)`);
    this.queue.push(time === Infinity ? time : Math.round(time * TICKS_PER_NS) / TICKS_PER_NS, kind, arg);
  }

  /** Schedule `kind` after `delay` ns. */
  after(delay: number, kind: number, arg = 0): void {
    this.at(this.nowNs + delay, kind, arg);
  }

  /**
   * A timer: at most one pending event, which `setTimer` moves instead of queueing another
   * (the events it replaces need never be popped). Returns its id.
   */
  timer(): number {
    return this.queue.addTimer();
  }

  /**
   * Set timer `id` to fire `kind` after `delay` ns, replacing its pending event: the same
   * firing order as scheduling it with `after` and ignoring the replaced event when it fires.
   */
  setTimer(id: number, delay: number, kind: number, arg = 0): void {
    const time = this.nowNs + delay;
    if (!(time >= this.nowNs)) throw new Error(`engine: event '${this.names[kind]}' scheduled at ${time} ns, before now (${this.nowNs} ns)`);
    this.queue.setTimer(id, time === Infinity ? time : Math.round(time * TICKS_PER_NS) / TICKS_PER_NS, kind, arg);
  }

  /** Drop timer `id`'s pending event, if any. */
  cancelTimer(id: number): void {
    this.queue.cancelTimer(id);
  }

  /**
   * Move the clock forward by `dt` ns (a multiple of the time grid) with nothing queued: the
   * state a runtime reaches after `dt` of activity it has proven repeats exactly (see
   * `KernelRuntime`). Returns false, moving nothing, while any event is queued.
   */
  jump(dt: number): boolean {
    if (this.queue.size > 0 || !(dt >= 0)) return false;
    this.nowNs += dt;
    return true;
  }

  /**
   * Run until the queue is empty (or `until` ns is reached). `watchdog`, if given, is called
   * every `every` events and may throw to stop a run that makes no progress.
   */
  run(until = Infinity, watchdog?: () => void, every = 1 << 20): void {
    const ev: [number, number, number] = [0, 0, 0];
    let countdown = every;
    while (this.queue.size > 0 && this.queue.peekTime() <= until) {
      this.queue.pop(ev);
      this.nowNs = ev[0];
      this.fired++;
      this.handlers[ev[1]]!(ev[2]);
      if (watchdog && --countdown === 0) {
        countdown = every;
        watchdog();
      }
    }
  }
}
