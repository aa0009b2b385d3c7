import { nsOf, type ChromeTrace, type TraceEvent } from './chrome-trace.js';

const PHASES = new Set(['X', 'i', 'C', 's', 'f', 'M']);

/**
 * Structural checks a viewer relies on, returned as readable problems (empty: valid):
 * required fields per phase; on every (pid, tid) track the `X` slices nest properly (no
 * partial overlap — Perfetto does not support it); every flow has one start and one end, in
 * time order, each inside a slice of its own track; every track in use is named.
 */
export function validateTrace(trace: ChromeTrace, maxProblems = 20): string[] {
  const problems: string[] = [];
  const report = (p: string) => {
    if (problems.length < maxProblems) problems.push(p);
  };
  if (!Array.isArray(trace.traceEvents)) return ['traceEvents is not an array'];
  const slicesByTrack = new Map<string, { start: number; end: number; name: string }[]>();
  const flows = new Map<number, { s: TraceEvent[]; f: TraceEvent[] }>();
  const processNames = new Set<number>();
  const threadNames = new Set<string>();
  const usedThreads = new Set<string>();
  const key = (e: TraceEvent) => `${e.pid}/${e.tid}`;

  for (const [i, e] of trace.traceEvents.entries()) {
    const where = `event ${i} (${e.ph} '${e.name}')`;
    if (typeof e.name !== 'string' || !PHASES.has(e.ph) || !Number.isInteger(e.pid)) {
      report(`${where}: needs name, a known ph and an integer pid`);
      continue;
    }
    if (e.ph === 'M') {
      if (e.name === 'process_name') processNames.add(e.pid);
      if (e.name === 'thread_name') threadNames.add(key(e));
      continue;
    }
    if (typeof e.ts !== 'number' || !Number.isFinite(e.ts) || e.ts < 0) {
      report(`${where}: ts must be a finite number ≥ 0`);
      continue;
    }
    if (e.ph !== 'C') {
      if (!Number.isInteger(e.tid)) {
        report(`${where}: needs an integer tid`);
        continue;
      }
      usedThreads.add(key(e));
    }
    switch (e.ph) {
      case 'X': {
        if (typeof e.dur !== 'number' || !(e.dur >= 0)) {
          report(`${where}: dur must be ≥ 0`);
          continue;
        }
        let list = slicesByTrack.get(key(e));
        if (!list) slicesByTrack.set(key(e), (list = []));
        list.push({ start: nsOf(e.ts), end: nsOf(e.ts) + nsOf(e.dur), name: e.name });
        continue;
      }
      case 'C':
        if (!e.args || Object.values(e.args).some((v) => typeof v !== 'number' || !Number.isFinite(v))) report(`${where}: counter args must be finite numbers`);
        continue;
      case 's':
      case 'f': {
        if (!Number.isInteger(e.id)) {
          report(`${where}: flow needs an integer id`);
          continue;
        }
        let fl = flows.get(e.id!);
        if (!fl) flows.set(e.id!, (fl = { s: [], f: [] }));
        fl[e.ph].push(e);
        continue;
      }
    }
  }

  const enclosing = new Map<string, { start: number; end: number }[]>();
  for (const [track, list] of slicesByTrack) {
    list.sort((a, b) => a.start - b.start || b.end - a.end);
    const stack: { start: number; end: number; name: string }[] = [];
    for (const s of list) {
      while (stack.length > 0 && stack[stack.length - 1]!.end <= s.start) stack.pop();
      const top = stack[stack.length - 1];
      if (top && s.end > top.end) {
        report(`track ${track}: '${s.name}' [${s.start}, ${s.end}] ns overlaps '${top.name}' [${top.start}, ${top.end}] ns without nesting`);
      }
      stack.push(s);
    }
    enclosing.set(track, list);
  }
  const inSlice = (e: TraceEvent) => {
    const list = enclosing.get(key(e)) ?? [];
    const t = nsOf(e.ts!);
    // Sorted by start: binary search the last slice starting at or before t, then scan back.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.start <= t) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo - 1; i >= 0; i--) if (list[i]!.end >= t) return true;
    return false;
  };
  for (const [id, fl] of flows) {
    if (fl.s.length !== 1 || fl.f.length !== 1) {
      report(`flow ${id}: ${fl.s.length} starts and ${fl.f.length} ends (need one of each)`);
      continue;
    }
    const [s, f] = [fl.s[0]!, fl.f[0]!];
    if (s.ts! > f.ts!) report(`flow ${id}: ends at ${f.ts} µs before it starts at ${s.ts} µs`);
    if (!inSlice(s)) report(`flow ${id}: start at ${s.ts} µs on ${key(s)} is not inside a slice`);
    if (!inSlice(f)) report(`flow ${id}: end at ${f.ts} µs on ${key(f)} is not inside a slice`);
  }
  for (const t of usedThreads) {
    if (!threadNames.has(t)) report(`track ${t} has no thread_name`);
    if (!processNames.has(Number(t.split('/')[0]))) report(`process ${t.split('/')[0]} has no process_name`);
  }
  return problems;
}
