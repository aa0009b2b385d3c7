import type { Task, TaskGraph } from '../graph/task-graph.js';
import type { Backend } from '../plugin/contract.js';
import type { MemorySampleEvent, MemorySummaryEvent, SimEvent } from '../protocol/events.js';
import { usOf, type ChromeTrace, type TraceArgs, type TraceEvent } from './chrome-trace.js';
import { busyCounter, layerBandwidthCounter, type CounterPoint, type Interval } from './counters.js';

export interface TraceRecorderOptions {
  /** The compiled graph being simulated: names, ops, levels and tile counts of its tasks. */
  graph: TaskGraph;
  backend: Pick<Backend, 'name' | 'topology' | 'costModel'>;
  /** Extra description kept in the trace's `otherData` (model, batch, …). */
  metadata?: TraceArgs;
}

/** A periodic memory sample (`simulateGraph` with `sampleIntervalNs`). */
export type MemorySample = MemorySampleEvent;

/** Track ids: unique across processes, so viewers that key threads by tid alone agree. */
const DEVICE_PID = 1;
const KERNEL_TID = 1;
const COLLECTIVE_TID = 2;
const localTid = (p: number) => 1_000 + p;
const schedulerTid = (s: number) => 10_000 + s;
const workerTid = (w: number) => 100_000 + w;

interface Slice {
  tid: number;
  /** Whole ns. */
  start: number;
  end: number;
  name: string;
  cat: string;
  args: TraceArgs;
}

interface Instant {
  tid: number;
  t: number;
  name: string;
  cat: string;
  args: TraceArgs;
}

interface Flow {
  name: string;
  cat: string;
  from: Slice;
  to: Slice;
}

interface Track {
  pid: number;
  name: string;
  sort: number;
}

/** `L0.qkv_proj.x3` → `L0.qkv_proj`: one name (and so one colour) per op across its tasks. */
function stageName(task: Task): string {
  return task.name.replace(/\.(?:[a-z]+\d+)+$/, '') || task.name;
}

/**
 * Records one simulated step as a Chrome Trace / Perfetto timeline. Subscribe `observer` to
 * the event stream (`simulateGraph(…, { observers: [rec.observer] })`), then `finish()`.
 *
 * Layout: a process per partition holding its workers (one track each, tasks as slices with
 * op, level, layer and tile count) and the schedulers that only serve it; a device process
 * with kernels/launches, collectives, schedulers serving several partitions, and counters.
 * Flow arrows follow readiness: the signal that fires an event → the dispatch of each task
 * it made ready → the worker(s) that ran it. Fences and signals are instants on the worker
 * that issued them. Every track holds properly nested slices (see `validateTrace`).
 */
export class TraceRecorder {
  private readonly graph: TaskGraph;
  private readonly slices: Slice[] = [];
  private readonly instants: Instant[] = [];
  private readonly flows: Flow[] = [];
  private readonly tracks = new Map<number, Track>();
  /** Last slice end per sequential track (workers, schedulers), whole ns. */
  private readonly trackEnd = new Map<number, number>();
  private readonly open = new Map<number, { task: number; t: number }>();
  private readonly workerPartition = new Map<number, number>();
  private readonly schedulerPartitions = new Map<number, Set<number>>();
  private readonly dispatchOf = new Map<number, { slice: Slice; workers: number }>();
  private readonly lastEnded = new Map<number, Slice>();
  private readonly readyCause = new Map<number, Slice>();
  private readonly lastSignal = new Map<number, { producer: Slice | undefined; instant: Instant }>();
  private readonly signalCount: Int32Array;
  private readonly localCount = new Map<number, number>();
  private readonly unmet: Int32Array;
  private readonly waiters: number[][];
  private readonly kernels = new Map<number, { t: number; costNs: number; name: string; mode: string }>();
  private persistent: { t: number; name: string } | null = null;
  private readonly summaries: MemorySummaryEvent[] = [];
  private readonly samples: MemorySample[] = [];
  private stepEnd = 0;
  private seenGraph = false;
  private finished = false;

  constructor(private readonly opts: TraceRecorderOptions) {
    const g = opts.graph;
    this.graph = g;
    this.signalCount = new Int32Array(g.events.length);
    this.unmet = Int32Array.from(g.tasks.map((t) => t.waits.length));
    this.waiters = g.events.map(() => []);
    for (const t of g.tasks) for (const e of t.waits) this.waiters[e]!.push(t.id);
  }

  /** The subscriber to pass to `simulateGraph`'s `observers`. */
  readonly observer = (events: readonly SimEvent[]): void => {
    for (const e of events) this.on(e);
  };

  private on(e: SimEvent): void {
    switch (e.type) {
      case 'memory-sample':
        this.samples.push(e);
        return;
      case 'graph':
        if (this.seenGraph) throw new Error('TraceRecorder records one simulated step; use a new recorder per graph');
        this.seenGraph = true;
        return;
      case 'launch':
        if (e.mode === 'persistent') this.persistent = { t: e.t, name: e.name };
        else this.kernels.set(e.kernel, { t: e.t, costNs: e.costNs, name: e.name, mode: e.mode });
        return;
      case 'kernel-end': {
        const k = this.kernels.get(e.kernel);
        if (!k) return;
        this.kernels.delete(e.kernel);
        this.slice(KERNEL_TID, k.t, e.t, k.name, 'kernel', { kernel: e.kernel, launch: k.mode, writeBackBytes: e.writeBackBytes });
        this.slice(KERNEL_TID, k.t, Math.min(e.t, k.t + k.costNs), 'launch', 'launch', { mode: k.mode, costNs: k.costNs });
        return;
      }
      case 'dispatch': {
        const task = this.graph.tasks[e.task]!;
        const tid = schedulerTid(e.scheduler);
        this.track(tid, -1, `scheduler ${e.scheduler}`, 10 + e.scheduler);
        let parts = this.schedulerPartitions.get(e.scheduler);
        if (!parts) this.schedulerPartitions.set(e.scheduler, (parts = new Set()));
        parts.add(e.partition);
        const s = this.sequentialSlice(tid, e.t - this.opts.backend.costModel.dispatchNs, e.t, stageName(task), 'dispatch', {
          task: task.name,
          workers: e.workers,
          partition: e.partition,
        });
        this.dispatchOf.set(e.task, { slice: s, workers: e.workers });
        const cause = this.readyCause.get(e.task);
        if (cause) this.flows.push({ name: 'ready', cat: 'event', from: cause, to: s });
        return;
      }
      case 'task-start':
        this.open.set(e.worker, { task: e.task, t: e.t });
        if (!this.workerPartition.has(e.worker)) {
          this.workerPartition.set(e.worker, e.partition);
          const unit = this.graph.style === 'persistent' ? 'worker' : this.opts.backend.topology.levels.cu.unit;
          this.track(workerTid(e.worker), 2 + e.partition, `${unit} ${e.worker}`, 100_000 + e.worker);
        }
        return;
      case 'task-end': {
        const o = this.open.get(e.worker);
        if (!o || o.task !== e.task) throw new Error(`trace: task-end of task ${e.task} on worker ${e.worker} without its task-start`);
        this.open.delete(e.worker);
        const task = this.graph.tasks[e.task]!;
        const d = this.dispatchOf.get(e.task);
        const args: TraceArgs = { task: task.name, op: task.opId, kind: task.kind, level: task.level, layer: task.layer, tiles: task.tiles.length };
        if (task.partition !== null) args.partition = task.partition;
        if (d && d.workers > 1) args.sharedBy = d.workers;
        if (task.kernel !== undefined) args.kernel = this.graph.kernels[task.kernel]?.name ?? task.kernel;
        const s = this.sequentialSlice(workerTid(e.worker), o.t, e.t, stageName(task), 'task', args);
        this.lastEnded.set(e.task, s);
        if (d) this.flows.push({ name: 'dispatched', cat: 'dispatch', from: d.slice, to: s });
        return;
      }
      case 'event-signal': {
        const spec = this.graph.events[e.event];
        const name = spec ? spec.name : 'completion';
        if (e.scope === 'chiplet') {
          const n = (this.localCount.get(e.task) ?? 0) + 1;
          this.localCount.set(e.task, n);
          this.track(localTid(e.partition), 2 + e.partition, 'local counters', 1_000);
          this.instants.push({
            tid: localTid(e.partition),
            t: e.t,
            name: `local signal ${name}`,
            cat: 'signal',
            args: { task: this.graph.tasks[e.task]!.name, count: n },
          });
          return;
        }
        const producer = this.lastEnded.get(e.task);
        const c = spec ? ++this.signalCount[e.event]! : 0;
        const instant: Instant = {
          tid: producer?.tid ?? KERNEL_TID,
          t: e.t,
          name: `signal ${name}`,
          cat: 'signal',
          args: { event: name, scope: e.scope, count: spec ? `${c}/${spec.threshold}` : 'n/a' },
        };
        this.instants.push(instant);
        if (spec) this.lastSignal.set(e.event, { producer, instant });
        return;
      }
      case 'event-fire': {
        const last = this.lastSignal.get(e.event);
        if (last) last.instant.args.fires = true;
        for (const id of this.waiters[e.event] ?? []) {
          if (--this.unmet[id]! === 0 && last?.producer) this.readyCause.set(id, last.producer);
        }
        return;
      }
      case 'fence':
        this.instants.push({
          tid: workerTid(e.worker),
          t: e.t,
          name: `fence ${e.scope}`,
          cat: 'fence',
          args: { scope: e.scope, dirtyBytes: e.dirtyBytes, costNs: e.costNs },
        });
        return;
      case 'collective-step':
        this.track(COLLECTIVE_TID, DEVICE_PID, 'collectives', 2);
        this.instants.push({
          tid: COLLECTIVE_TID,
          t: e.t,
          name: `${e.collective} step ${e.step}`,
          cat: 'collective',
          args: { collective: e.collective, step: e.step, bytes: e.bytes },
        });
        return;
      case 'memory-summary':
        this.summaries.push(e);
        return;
      case 'step-end':
        this.stepEnd = e.t;
        return;
    }
  }

  private track(tid: number, pid: number, name: string, sort: number): void {
    if (!this.tracks.has(tid)) this.tracks.set(tid, { pid, name, sort });
  }

  private slice(tid: number, start: number, end: number, name: string, cat: string, args: TraceArgs): Slice {
    const s: Slice = { tid, start: Math.round(start), end: Math.round(end), name, cat, args };
    this.slices.push(s);
    return s;
  }

  /** A slice on a track whose slices follow one another: clamp float round-off overlaps away. */
  private sequentialSlice(tid: number, start: number, end: number, name: string, cat: string, args: TraceArgs): Slice {
    const s = this.slice(tid, start, end, name, cat, args);
    const prev = this.trackEnd.get(tid) ?? 0;
    if (s.start < prev) s.start = Math.min(prev, s.end);
    this.trackEnd.set(tid, s.end);
    return s;
  }

  /** The timeline. Call once, after the simulation completed. */
  finish(): ChromeTrace {
    if (this.finished) throw new Error('TraceRecorder.finish() called twice');
    this.finished = true;
    const { backend, metadata } = this.opts;
    const g = this.graph;
    const P = backend.topology.partitions.computeUnits.length;
    const kind = backend.topology.partitions.kind;

    this.track(KERNEL_TID, DEVICE_PID, g.style === 'persistent' ? 'megakernel' : 'kernels', 1);
    if (this.persistent) this.slice(KERNEL_TID, this.persistent.t, this.stepEnd, this.persistent.name, 'kernel', { launch: 'persistent' });
    // A scheduler serving one partition belongs to it; one serving several, to the device.
    for (const [s, parts] of this.schedulerPartitions) {
      const t = this.tracks.get(schedulerTid(s))!;
      t.pid = parts.size === 1 ? 2 + [...parts][0]! : DEVICE_PID;
    }

    const out: TraceEvent[] = [];
    out.push({ name: 'process_name', ph: 'M', pid: DEVICE_PID, args: { name: `${backend.name} · ${g.policy} (device)` } });
    out.push({ name: 'process_sort_index', ph: 'M', pid: DEVICE_PID, args: { sort_index: 0 } });
    const pids = new Set([...this.tracks.values()].map((t) => t.pid));
    for (let p = 0; p < P; p++) {
      if (!pids.has(2 + p)) continue;
      out.push({ name: 'process_name', ph: 'M', pid: 2 + p, args: { name: `${kind} ${p}` } });
      out.push({ name: 'process_sort_index', ph: 'M', pid: 2 + p, args: { sort_index: 1 + p } });
    }
    const tids = [...this.tracks.entries()].sort((a, b) => a[1].pid - b[1].pid || a[1].sort - b[1].sort || a[0] - b[0]);
    for (const [tid, t] of tids) {
      out.push({ name: 'thread_name', ph: 'M', pid: t.pid, tid, args: { name: t.name } });
      out.push({ name: 'thread_sort_index', ph: 'M', pid: t.pid, tid, args: { sort_index: t.sort } });
    }

    // Per track: slices (outer first), then flow ends bound to them, then instants.
    interface Entry {
      ts: number;
      rank: number;
      dur: number;
      seq: number;
      ev: TraceEvent;
    }
    const perTrack = new Map<number, Entry[]>();
    let seq = 0;
    const add = (tid: number, ts: number, rank: number, dur: number, ev: TraceEvent) => {
      let list = perTrack.get(tid);
      if (!list) perTrack.set(tid, (list = []));
      list.push({ ts, rank, dur, seq: seq++, ev });
    };
    const pidOf = (tid: number) => this.tracks.get(tid)?.pid ?? DEVICE_PID;
    for (const s of this.slices) {
      add(s.tid, s.start, 0, s.end - s.start, {
        name: s.name,
        cat: s.cat,
        ph: 'X',
        pid: pidOf(s.tid),
        tid: s.tid,
        ts: usOf(s.start),
        dur: usOf(s.end - s.start),
        args: s.args,
      });
    }
    // Flow events sit at the start of the slice they bind to, right after it in the file, so
    // that the slice is the innermost open one when a viewer reads them.
    this.flows.forEach((f, i) => {
      const id = i + 1;
      add(f.from.tid, f.from.start, 1, 0, { name: f.name, cat: f.cat, ph: 's', id, pid: pidOf(f.from.tid), tid: f.from.tid, ts: usOf(f.from.start) });
      add(f.to.tid, f.to.start, 1, 0, { name: f.name, cat: f.cat, ph: 'f', bp: 'e', id, pid: pidOf(f.to.tid), tid: f.to.tid, ts: usOf(f.to.start) });
    });
    for (const i of this.instants) {
      const t = Math.round(i.t);
      add(i.tid, t, 2, 0, { name: i.name, cat: i.cat, ph: 'i', s: 't', pid: pidOf(i.tid), tid: i.tid, ts: usOf(t), args: i.args });
    }
    for (const [tid] of tids) {
      const list = perTrack.get(tid);
      if (!list) continue;
      list.sort((a, b) => a.ts - b.ts || a.rank - b.rank || b.dur - a.dur || a.seq - b.seq);
      for (const e of list) out.push(e.ev);
    }
    out.push(...this.counters());

    const otherData: TraceArgs = {
      generator: 'fleet',
      backend: backend.name,
      policy: g.policy,
      style: g.style,
      tasks: g.tasks.length,
      stepNs: Math.round(this.stepEnd),
      ...metadata,
    };
    return { traceEvents: out, otherData };
  }

  /** Device-process counters: busy workers, HBM bandwidth (per layer, or sampled), L2 occupancy. */
  private counters(): TraceEvent[] {
    const out: TraceEvent[] = [];
    const counter = (name: string, points: readonly CounterPoint[]) => {
      for (const p of points) out.push({ name, ph: 'C', pid: DEVICE_PID, tid: KERNEL_TID, ts: usOf(p.t), args: p.values });
    };
    const tasks = this.slices.filter((s) => s.cat === 'task');
    counter('busy workers', busyCounter(tasks));
    if (this.samples.length > 0) {
      const gb = (x: number) => Math.round(x * 1000) / 1000;
      counter(
        'HBM bandwidth in use',
        this.samples.map((s) => ({ t: Math.round(s.t), values: { 'GB/s': gb(s.hbmBytesPerNs) } })),
      );
      counter(
        'L2 occupancy',
        this.samples.map((s) => ({ t: Math.round(s.t), values: Object.fromEntries(s.l2ResidentBytes.map((b, i) => [`L2 ${i} MiB`, gb(b / 2 ** 20)])) })),
      );
      return out;
    }
    // Without samples: each layer's HBM traffic spread evenly over the span its tasks ran.
    const spans = new Map<number, { start: number; end: number }>();
    for (const s of tasks) {
      const layer = Number(s.args.layer);
      const span = spans.get(layer);
      if (!span) spans.set(layer, { start: s.start, end: s.end });
      else {
        span.start = Math.min(span.start, s.start);
        span.end = Math.max(span.end, s.end);
      }
    }
    const intervals: Interval[] = [];
    for (const m of this.summaries) {
      const span = spans.get(m.layer);
      if (!span || span.end <= span.start || m.hbmReadBytes + m.hbmWriteBytes === 0) continue;
      intervals.push({ start: span.start, end: span.end, read: m.hbmReadBytes / (span.end - span.start), write: m.hbmWriteBytes / (span.end - span.start) });
    }
    counter('HBM bandwidth in use (layer mean)', layerBandwidthCounter(intervals));
    return out;
  }
}
