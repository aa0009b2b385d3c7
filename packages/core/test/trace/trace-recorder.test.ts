import { describe, expect, it } from 'vitest';
import { syntheticGraph } from '../../src/conformance/synthetic-graph.js';
import type { ExecutionStyle } from '../../src/graph/task-graph.js';
import type { SimEvent } from '../../src/protocol/events.js';
import type { PersistentOptions } from '../../src/runtime/persistent-runtime.js';
import { simulateGraph } from '../../src/simulation/simulate.js';
import { nsOf, serializeTrace, usOf, type ChromeTrace, type TraceEvent } from '../../src/trace/chrome-trace.js';
import { busyCounter, layerBandwidthCounter } from '../../src/trace/counters.js';
import { TaskBusyTime } from '../../src/trace/task-busy-time.js';
import { TraceRecorder } from '../../src/trace/trace-recorder.js';
import { validateTrace } from '../../src/trace/validate-trace.js';
import { withObservers } from '../../src/trace/with-observers.js';
import { eventRecorder, testBackend } from '../helpers.js';

const persistent = (over: Partial<PersistentOptions> = {}): PersistentOptions => ({
  workersPerPartition: 3,
  chipletAware: true,
  schedulers: 2,
  twoLevelCounting: true,
  ...over,
});

/** Simulate the conformance graph with a recorder, a raw event log and a busy-time observer. */
function traced(style: ExecutionStyle, p: PersistentOptions = persistent()) {
  const backend = testBackend();
  const graph = syntheticGraph(backend.topology, style);
  const recorder = new TraceRecorder({ graph, backend, metadata: { model: 'synthetic' } });
  const log = eventRecorder();
  const busy = new TaskBusyTime();
  const result = simulateGraph(backend, graph, {
    persistent: style === 'persistent' ? p : undefined,
    observers: [recorder.observer, log.observer, busy.observer],
  });
  return { backend, graph, trace: recorder.finish(), events: log.events, busy, result };
}

const ofPh = (t: ChromeTrace, ph: TraceEvent['ph']) => t.traceEvents.filter((e) => e.ph === ph);
const ofType = <T extends SimEvent['type']>(events: SimEvent[], type: T) => events.filter((e): e is Extract<SimEvent, { type: T }> => e.type === type);
const meta = (t: ChromeTrace, name: string) =>
  new Map(t.traceEvents.filter((e) => e.ph === 'M' && e.name === name).map((e) => [`${e.pid}/${e.tid ?? ''}`, e.args!.name]));

describe('TraceRecorder: persistent runtime', () => {
  const { trace, events, graph, result, backend } = traced('persistent');

  it('passes the structural checks (nesting on every track, paired flows, named tracks)', () => {
    expect(validateTrace(trace)).toEqual([]);
  });

  it('one task slice per task-start, on its worker, in its partition, with op/level/tile args', () => {
    const starts = ofType(events, 'task-start');
    const slices = ofPh(trace, 'X').filter((e) => e.cat === 'task');
    expect(slices).toHaveLength(starts.length);
    for (const s of starts) {
      const task = graph.tasks[s.task]!;
      const slice = slices.find((x) => x.tid === 100_000 + s.worker && nsOf(x.ts!) === Math.round(s.t));
      expect(slice, `slice of ${task.name} on worker ${s.worker}`).toBeDefined();
      expect(slice!.pid).toBe(2 + s.partition);
      expect(slice!.args).toMatchObject({ task: task.name, op: task.opId, kind: task.kind, level: task.level, tiles: task.tiles.length });
    }
    const threads = meta(trace, 'thread_name');
    expect(threads.get(`2/${100_000 + starts[0]!.worker}`)).toMatch(/^worker \d+$/);
    expect(meta(trace, 'process_name').get('2/')).toBe('die 0');
  });

  it('chiplet-aware schedulers sit in their partition; dispatch slices last dispatchNs', () => {
    const dispatches = ofPh(trace, 'X').filter((e) => e.cat === 'dispatch');
    expect(dispatches).toHaveLength(ofType(events, 'dispatch').length);
    for (const d of dispatches) {
      expect(nsOf(d.dur!)).toBe(backend.costModel.dispatchNs);
      expect(d.pid).toBe(2 + (d.tid! - 10_000));
    }
  });

  it('flows: dispatch → every worker that ran the task, and the firing signal → each task it readied', () => {
    const starts = ofPh(trace, 's');
    const ends = ofPh(trace, 'f');
    const deliver = starts.filter((e) => e.name === 'dispatched');
    expect(deliver).toHaveLength(ofType(events, 'task-start').length);
    const ready = starts.filter((e) => e.name === 'ready');
    expect(ready).toHaveLength(graph.tasks.filter((t) => t.waits.length > 0).length);
    expect(new Set(ends.map((e) => e.id))).toEqual(new Set(starts.map((e) => e.id)));
    // A ready flow starts on a worker (a producer's task) and ends on a scheduler (the dispatch).
    for (const r of ready) {
      expect(r.tid).toBeGreaterThanOrEqual(100_000);
      const end = ends.find((e) => e.id === r.id)!;
      expect(end.tid! >= 10_000 && end.tid! < 100_000).toBe(true);
      expect(end.ts!).toBeGreaterThanOrEqual(r.ts!);
    }
  });

  it('fences and signals are instants on the issuing worker; the firing signal says so', () => {
    const instants = ofPh(trace, 'i');
    expect(instants.filter((e) => e.cat === 'fence')).toHaveLength(result.fences);
    const device = instants.filter((e) => e.cat === 'signal' && e.args!.scope === 'device');
    expect(device).toHaveLength(ofType(events, 'event-signal').filter((e) => e.scope === 'device').length);
    expect(device.filter((e) => e.args!.fires === true)).toHaveLength(ofType(events, 'event-fire').length);
    for (const i of instants.filter((e) => e.cat === 'fence')) expect(i.tid).toBeGreaterThanOrEqual(100_000);
  });

  it('counters: busy workers never exceed the workers, HBM bandwidth never exceeds its peak', () => {
    const counters = ofPh(trace, 'C');
    const busy = counters.filter((c) => c.name === 'busy workers').map((c) => c.args!.running as number);
    expect(Math.max(...busy)).toBeLessThanOrEqual(3 * 2);
    expect(busy[busy.length - 1]).toBe(0);
    const hbm = counters.filter((c) => c.name.startsWith('HBM bandwidth'));
    expect(hbm.length).toBeGreaterThan(0);
    const peak = backend.topology.memory.hbm.peakBandwidthBytesPerNs;
    for (const c of hbm) expect((c.args!['read GB/s'] as number) + (c.args!['write GB/s'] as number)).toBeLessThanOrEqual(peak * 1.001);
  });

  it('metadata names the run', () => {
    expect(trace.otherData).toMatchObject({
      backend: 'test-gpu',
      policy: 'synthetic',
      style: 'persistent',
      model: 'synthetic',
      stepNs: Math.round(result.timeNs),
    });
  });

  it('the same run gives the same bytes', () => {
    expect(serializeTrace(traced('persistent').trace)).toBe(serializeTrace(trace));
    expect(JSON.parse(serializeTrace(trace))).toEqual(JSON.parse(JSON.stringify(trace)));
  });

  it('without chiplet awareness, schedulers serving several partitions go to the device process', () => {
    const t = traced('persistent', persistent({ chipletAware: false, schedulers: 1, twoLevelCounting: false })).trace;
    expect(validateTrace(t)).toEqual([]);
    const sched = ofPh(t, 'X').filter((e) => e.cat === 'dispatch');
    expect(sched.length).toBeGreaterThan(0);
    for (const d of sched) expect(d.pid).toBe(1);
  });
});

describe('TraceRecorder: kernel-per-op runtime', () => {
  const { trace, events, graph } = traced('kernel-per-op');

  it('passes the structural checks', () => {
    expect(validateTrace(trace)).toEqual([]);
  });

  it('kernels as slices with their launch nested inside, one workgroup slice per task', () => {
    const kernels = ofPh(trace, 'X').filter((e) => e.cat === 'kernel');
    const launches = ofPh(trace, 'X').filter((e) => e.cat === 'launch');
    expect(kernels).toHaveLength(graph.kernels.length);
    expect(launches).toHaveLength(graph.kernels.length);
    for (const [i, k] of kernels.entries()) {
      const l = launches[i]!;
      expect(l.ts).toBe(k.ts);
      expect(l.ts! + l.dur!).toBeLessThanOrEqual(k.ts! + k.dur! + 1e-9);
    }
    expect(ofPh(trace, 'X').filter((e) => e.cat === 'task')).toHaveLength(ofType(events, 'task-start').length);
    const threads = meta(trace, 'thread_name');
    expect([...threads.values()].some((n) => /^cu \d+$/.test(String(n)))).toBe(true);
  });
});

describe('validateTrace catches what viewers reject', () => {
  const base = (events: TraceEvent[]): ChromeTrace => ({
    otherData: {},
    traceEvents: [
      { name: 'process_name', ph: 'M', pid: 1, args: { name: 'p' } },
      { name: 'thread_name', ph: 'M', pid: 1, tid: 1, args: { name: 't' } },
      ...events,
    ],
  });
  const x = (ts: number, dur: number, name = 'a'): TraceEvent => ({ name, ph: 'X', pid: 1, tid: 1, ts, dur });

  it('accepts nested and back-to-back slices', () => {
    expect(validateTrace(base([x(0, 10), x(2, 3, 'child'), x(10, 5)]))).toEqual([]);
  });

  it('rejects a partial overlap on one track', () => {
    expect(validateTrace(base([x(0, 10), x(5, 10, 'b')]))).toEqual([expect.stringMatching(/'b'.*overlaps 'a'/)]);
  });

  it('rejects unpaired flows, flows outside slices, and unnamed tracks', () => {
    const problems = validateTrace(
      base([
        x(0, 10),
        { name: 'f', ph: 's', id: 1, pid: 1, tid: 1, ts: 1 },
        { name: 'f', ph: 's', id: 2, pid: 1, tid: 1, ts: 20 },
        { name: 'f', ph: 'f', bp: 'e', id: 2, pid: 1, tid: 1, ts: 3 },
        { name: 'i', ph: 'i', pid: 1, tid: 9, ts: 1 },
      ]),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/flow 1: 1 starts and 0 ends/),
        expect.stringMatching(/flow 2: ends .* before it starts/),
        expect.stringMatching(/flow 2: start .* not inside a slice/),
        expect.stringMatching(/track 1\/9 has no thread_name/),
      ]),
    );
  });
});

describe('counters and busy time', () => {
  it('busyCounter steps up and down at slice edges', () => {
    const pts = busyCounter([
      { start: 0, end: 10 },
      { start: 5, end: 10 },
      { start: 10, end: 12 },
    ]);
    expect(pts.map((p) => [p.t, p.values.running])).toEqual([
      [0, 1],
      [5, 2],
      [10, 1],
      [12, 0],
    ]);
  });

  it('layerBandwidthCounter adds overlapping layers and drops to zero after the last', () => {
    const pts = layerBandwidthCounter([
      { start: 0, end: 10, read: 2, write: 0 },
      { start: 5, end: 20, read: 1, write: 0.5 },
    ]);
    expect(pts.map((p) => [p.t, p.values['read GB/s'], p.values['write GB/s']])).toEqual([
      [0, 2, 0],
      [5, 3, 0.5],
      [10, 1, 0.5],
      [20, 0, 0],
    ]);
  });

  it('TaskBusyTime sums each task over the workers that ran it, and equals the task slices', () => {
    const { busy, trace, graph } = traced('persistent');
    expect(busy.steps).toHaveLength(1);
    expect(busy.steps[0]).toHaveLength(graph.tasks.length);
    const sliceNs = ofPh(trace, 'X')
      .filter((e) => e.cat === 'task')
      .reduce((a, e) => a + nsOf(e.dur!), 0);
    const busyNs = busy.steps[0]!.reduce((a, b) => a + b, 0);
    expect(Math.abs(sliceNs - busyNs)).toBeLessThanOrEqual(graph.tasks.length * 4);
    for (const t of graph.tasks) expect(busy.steps[0]![t.id]).toBeGreaterThan(0);
  });

  it('usOf/nsOf round to whole ns and invert each other', () => {
    for (const ns of [0, 1, 999, 1000, 123456789, 0.4, 2.6]) expect(nsOf(usOf(ns))).toBe(Math.round(ns));
  });
});

describe('withObservers', () => {
  it('sees the same stream an explicit observer sees, and changes no result', () => {
    const backend = testBackend();
    const graph = syntheticGraph(backend.topology, 'persistent');
    const direct = eventRecorder();
    const attached = eventRecorder();
    const a = simulateGraph(backend, graph, { persistent: persistent(), observers: [direct.observer] });
    const b = simulateGraph(withObservers(backend, [attached.observer]), graph, { persistent: persistent() });
    expect(attached.events).toEqual(direct.events);
    expect(attached.events.length).toBeGreaterThan(10);
    expect(b.timeNs).toBe(a.timeNs);
    expect(b.backendMetrics).toEqual(a.backendMetrics);
    expect(backend.streamContributions).toHaveLength(0);
  });
});
