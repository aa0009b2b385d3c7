import { EventQueue } from './event-queue.js';

/** Event times are multiples of 1/TICKS_PER_NS ns (about a picosecond). */
export const TICKS_PER_NS = 1024;

/**
 * A duration rounded to the time grid. A time reached as a grid time plus a grid duration is
 * exact, so a schedule built that way replays alike shifted by any whole number of ticks —
 * what replaying or skipping a proven layer relies on. (Rounding `now + delay` instead would
 * round differently at a larger `now`.)
 */
export function onGrid(ns: number): number {
  return Math.round(ns * TICKS_PER_NS) / TICKS_PER_NS;
}

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
   * Schedule `kind` at absolute time `time` (not before now), rounded to the time grid. A time
   * that is a grid time plus an `onGrid` duration is exact, so a schedule shifted in time
   * replays the same way; a relative delay goes through `after`.
   */
  at(time: number, kind: number, arg = 0): void {
    this.nextTime = time;
    this.atNext(kind, arg);
  }

  /**
   * The time `atNext` schedules at and the delay `afterNext` and `setTimerNext` take, ns: fields, for the hot
   * callers, since a double passed to a call that is not inlined is boxed (an allocation per
   * event).
   */
  nextTime = 0.5;
  nextDelay = 0.5;

  /** `at(nextTime, kind, arg)`. */
  atNext(kind: number, arg: number): void {
    const time = this.nextTime;
    if (!(time >= this.nowNs)) this.before(kind, time);
    const q = this.queue;
    q.nextTime = time === Infinity ? time : Math.round(time * TICKS_PER_NS) / TICKS_PER_NS;
    q.pushNext(kind, arg);
  }

  private before(kind: number, time: number): never {
    throw new Error(`engine: event '${this.names[kind]}' scheduled at ${time} ns, before now (${this.nowNs} ns)`);
  }

  /** Schedule `kind` after `delay` ns (rounded to the grid before it is added to now). */
  after(delay: number, kind: number, arg = 0): void {
    this.nextDelay = delay;
    this.afterNext(kind, arg);
  }

  /** `after(nextDelay, kind, arg)`. */
  afterNext(kind: number, arg: number): void {
    this.nextTime = this.nowNs + onGrid(this.nextDelay);
    this.atNext(kind, arg);
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
    this.nextDelay = delay;
    this.setTimerNext(id, kind, arg);
  }

  /** `setTimer(id, nextDelay, kind, arg)`. */
  setTimerNext(id: number, kind: number, arg: number): void {
    const time = this.nowNs + onGrid(this.nextDelay);
    if (!(time >= this.nowNs)) this.before(kind, time);
    const q = this.queue;
    q.nextTime = time;
    q.setTimerNext(id, kind, arg);
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
    const q = this.queue;
    let countdown = every;
    while (q.size > 0 && q.topTime() <= until) {
      const kind = q.popNext();
      this.nowNs = q.poppedTime;
      this.fired++;
      this.handlers[kind]!(q.poppedArg);
      if (watchdog && --countdown === 0) {
        countdown = every;
        watchdog();
      }
    }
  }
}
