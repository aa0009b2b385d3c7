/** Counter series for the timeline, built from slices and per-layer memory summaries. */

export interface CounterPoint {
  /** Whole ns. */
  t: number;
  values: Record<string, number>;
}

/** A half-open span [start, end) with constant read and write rates, bytes/ns (= GB/s). */
export interface Interval {
  start: number;
  end: number;
  read: number;
  write: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** How many of the given slices are running at each change point. */
export function busyCounter(slices: readonly { start: number; end: number }[]): CounterPoint[] {
  const delta = new Map<number, number>();
  for (const s of slices) {
    if (s.end <= s.start) continue;
    delta.set(s.start, (delta.get(s.start) ?? 0) + 1);
    delta.set(s.end, (delta.get(s.end) ?? 0) - 1);
  }
  let n = 0;
  const out: CounterPoint[] = [];
  for (const t of [...delta.keys()].sort((a, b) => a - b)) {
    const d = delta.get(t)!;
    if (d === 0) continue;
    n += d;
    out.push({ t, values: { running: n } });
  }
  return out;
}

/** Sum of the rates of the intervals active at each change point (step function). */
export function layerBandwidthCounter(intervals: readonly Interval[]): CounterPoint[] {
  const times = [...new Set(intervals.flatMap((i) => [i.start, i.end]))].sort((a, b) => a - b);
  const out: CounterPoint[] = [];
  for (const t of times) {
    let read = 0;
    let write = 0;
    for (const i of intervals) {
      if (i.start <= t && t < i.end) {
        read += i.read;
        write += i.write;
      }
    }
    out.push({ t, values: { 'read GB/s': r3(read), 'write GB/s': r3(write) } });
  }
  return out;
}
