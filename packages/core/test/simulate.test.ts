import { count, filter, map, mergeMap } from 'rxjs';
import { describe, it, expect } from 'vitest';
import { DeadlockError, FleetError } from '../src/errors/fleet-error.js';
import type { Task, TaskGraph } from '../src/graph/task-graph.js';
import type { SimEvent } from '../src/protocol/events.js';
import { simulateGraph, type SimulationOptions } from '../src/simulation/simulate.js';
import { syntheticGraph } from '../src/conformance/synthetic-graph.js';
import type { PersistentOptions } from '../src/runtime/persistent-runtime.js';
import type { StreamContribution } from '../src/plugin/contract.js';
import { eventRecorder, expectFleetError, graph, KiB, task, testBackend, testTopology } from './helpers.js';

const W = 4; // workers per partition (the test device has 4 CUs per partition)
const persistent = (over: Partial<PersistentOptions> = {}): PersistentOptions => ({
  workersPerPartition: W,
  chipletAware: true,
  schedulers: 1,
  twoLevelCounting: true,
  ...over,
});

function run(g: TaskGraph, opts: SimulationOptions = {}, backend = testBackend()) {
  const rec = eventRecorder();
  const result = simulateGraph(backend, g, { ...opts, observers: [rec.observer] });
  return { result, events: rec.events };
}

function ofType<T extends SimEvent['type']>(events: SimEvent[], type: T): Extract<SimEvent, { type: T }>[] {
  return events.filter((e): e is Extract<SimEvent, { type: T }> => e.type === type);
}

function countBy<T>(xs: T[], key: (x: T) => number): Map<number, number> {
  const m = new Map<number, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}

function sorted(m: Map<number, number>): [number, number][] {
  return [...m.entries()].sort((a, b) => a[0] - b[0]);
}

/** Bytes every tile of a graph touches (reads and writes, all rows). */
function graphBytes(g: TaskGraph): number {
  return g.tasks.reduce((s, t) => s + t.tiles.reduce((u, tl) => u + [...tl.reads, ...tl.writes].reduce((v, r) => v + r.bytes * (r.rows ?? 1), 0), 0), 0);
}

/**
 * Two device-level ops, each split into one chiplet-task per partition: A (signals e0),
 * then B waiting on e0 (signals e1). 8 tiles per chiplet-task, strided over the workers.
 */
function chipletChain(): TaskGraph {
  const tiles = (op: number, p: number) =>
    Array.from({ length: 8 }, (_, i) => ({
      reads: [{ buffer: 0, offset: op * 128 * KiB + (p * 8 + i) * 8 * KiB, bytes: 8 * KiB, policy: 'default' as const }],
      writes: [{ buffer: 1, offset: (p * 8 + i) * 256, bytes: 256, policy: 'default' as const }],
      flops: 4096,
      unit: 'matrix' as const,
    }));
  const tasks: Task[] = [];
  const ops = [
    { op: 'A', waits: [] as number[], signal: 0 },
    { op: 'B', waits: [0], signal: 1 },
  ];
  for (const [o, { op, waits, signal }] of ops.entries()) {
    for (let p = 0; p < 2; p++) {
      tasks.push(
        task(tasks.length, { name: `${op}.p${p}`, opId: op, kind: 'linear', level: 'chiplet', partition: p, tiles: tiles(o, p), waits: [...waits], signal }),
      );
    }
  }
  return graph(
    tasks,
    [
      { id: 0, name: 'A-done', threshold: 2 },
      { id: 1, name: 'B-done', threshold: 2 },
    ],
    {
      buffers: [
        { id: 0, name: 'w', bytes: 256 * KiB, kind: 'weight' },
        { id: 1, name: 'y', bytes: 8 * KiB, kind: 'activation' },
      ],
    },
  );
}

describe('simulateGraph: persistent runtime', () => {
  it('each event fires exactly once; each chiplet-task signals the device counter once', () => {
    for (const twoLevelCounting of [true, false]) {
      const g = chipletChain();
      const { events, result } = run(g, { persistent: persistent({ twoLevelCounting }) });
      expect(sorted(countBy(ofType(events, 'event-fire'), (e) => e.event))).toEqual([
        [0, 1],
        [1, 1],
      ]);
      const deviceSignals = ofType(events, 'event-signal').filter((e) => e.scope === 'device');
      expect(sorted(countBy(deviceSignals, (e) => e.task))).toEqual(g.tasks.map((t) => [t.id, 1]));
      for (const s of deviceSignals) expect(s.partition).toBe(g.tasks[s.task]!.partition);
      expect(result.tasks).toBe(4);
      // every worker of the partition ends every chiplet-task
      const ends = countBy(ofType(events, 'task-end'), (e) => e.task);
      for (const t of g.tasks) expect(ends.get(t.id)).toBe(W);
    }
  });

  it('two-level counting: one fence per chiplet-task (one per partition per event), W local signals each', () => {
    const g = chipletChain();
    const { events, result } = run(g, { persistent: persistent({ twoLevelCounting: true }) });
    const fences = ofType(events, 'fence');
    expect(fences.length).toBe(g.tasks.length);
    expect(result.fences).toBe(fences.length);
    expect(sorted(countBy(fences, (f) => f.partition))).toEqual([
      [0, 2],
      [1, 2],
    ]);
    const local = ofType(events, 'event-signal').filter((e) => e.scope === 'chiplet');
    expect(sorted(countBy(local, (e) => e.task))).toEqual(g.tasks.map((t) => [t.id, W]));
  });

  it('without two-level counting every worker fences: one fence per worker per chiplet-task', () => {
    const g = chipletChain();
    const { events, result } = run(g, { persistent: persistent({ twoLevelCounting: false }) });
    const fences = ofType(events, 'fence');
    expect(fences.length).toBe(g.tasks.length * W);
    expect(result.fences).toBe(fences.length);
    expect(countBy(fences, (f) => f.worker).size).toBe(2 * W); // every worker fenced
    expect(ofType(events, 'event-signal').filter((e) => e.scope === 'chiplet')).toEqual([]);
  });

  it('synthetic graph: fences = chiplet-tasks + CU-tasks with two-level counting, W per chiplet-task without', () => {
    const b = testBackend();
    const g = syntheticGraph(b.topology, 'persistent');
    const chiplet = g.tasks.filter((t) => t.partition !== null).length;
    const cu = g.tasks.length - chiplet;
    expect(chiplet).toBe(2);
    const two = run(g, { persistent: persistent({ twoLevelCounting: true }) }, b);
    expect(ofType(two.events, 'fence').length).toBe(chiplet + cu);
    const one = run(g, { persistent: persistent({ twoLevelCounting: false }) }, b);
    expect(ofType(one.events, 'fence').length).toBe(chiplet * W + cu);
    for (const r of [two, one]) {
      expect(sorted(countBy(ofType(r.events, 'event-fire'), (e) => e.event))).toEqual([
        [0, 1],
        [1, 1],
      ]);
    }
  });

  it('cache-wide releases on one L2 queue behind each other, so two-level counting wins', () => {
    // One chiplet-task per partition with W identical compute-only tiles: all W workers
    // finish together. The device-scope release writes back the whole L2 (200 ns fixed);
    // per-worker signalling queues W releases on the same L2, two-level counting one.
    const tile = { reads: [], writes: [], flops: 1e5, unit: 'vector' as const };
    const tasks = [0, 1].map((p) => task(p, { level: 'chiplet', partition: p, tiles: Array(W).fill(tile), signal: 0 }));
    tasks.push(task(2, { waits: [0] }));
    const g = graph(tasks, [{ id: 0, name: 'done', threshold: 2 }]);
    const two = run(g, { persistent: persistent({ twoLevelCounting: true }) }).result;
    const one = run(g, { persistent: persistent({ twoLevelCounting: false }) }).result;
    // Two-level pays one chiplet atomic (100 ns) instead of W − 1 queued releases (600 ns).
    expect(one.timeNs - two.timeNs).toBeCloseTo((W - 1) * 200 - 100, 6);
  });

  it('dispatch broadcasts a chiplet-task to all workers of its partition, a CU-task to one', () => {
    const b = testBackend();
    const g = syntheticGraph(b.topology, 'persistent');
    const { events, result } = run(g, { persistent: persistent() }, b);
    const dispatches = ofType(events, 'dispatch');
    expect(dispatches.length).toBe(g.tasks.length);
    expect(result.dispatches).toBe(g.tasks.length);
    for (const d of dispatches) {
      const t = g.tasks[d.task]!;
      if (t.partition !== null) {
        expect(d.workers).toBe(W);
        expect(d.partition).toBe(t.partition);
        expect(d.scheduler).toBe(t.partition); // chiplet-aware: the partition's own scheduler
      } else {
        expect(d.workers).toBe(1);
      }
    }
    // a chiplet-task starts on exactly the workers of its partition
    for (const s of ofType(events, 'task-start')) {
      const t = g.tasks[s.task]!;
      if (t.partition !== null) expect(s.partition).toBe(t.partition);
    }
  });

  it('with fewer workers per partition, the broadcast shrinks accordingly', () => {
    const g = chipletChain();
    const { events } = run(g, { persistent: persistent({ workersPerPartition: 3 }) });
    for (const d of ofType(events, 'dispatch')) expect(d.workers).toBe(3);
    expect(countBy(ofType(events, 'task-end'), (e) => e.task).get(0)).toBe(3);
  });

  it("a chiplet-task's tiles are strided over its partition's workers: every tile runs exactly once", () => {
    const g = chipletChain();
    const { result } = run(g, { persistent: persistent() });
    const bytes = result.counters.reduce((s, c) => s + c.l2.hitBytes + c.l2.missBytes + c.l2.bypassBytes, 0);
    expect(bytes).toBe(graphBytes(g));
  });

  it('a dependent task starts only after its event fired', () => {
    const g = chipletChain();
    const { events } = run(g, { persistent: persistent() });
    const fire0 = ofType(events, 'event-fire').find((e) => e.event === 0)!;
    const dependents = ofType(events, 'task-start').filter((s) => g.tasks[s.task]!.waits.includes(0));
    expect(dependents.length).toBe(2 * W);
    for (const s of dependents) expect(s.t).toBeGreaterThan(fire0.t);
  });

  it('one tiny CU-task: dispatch + fetch + tile + release + device atomic, by hand', () => {
    // dispatch 20 → fetch 30 (no waits: no acquire) → tile: no memory, 1000 FLOP at 100/ns = 10
    // + overhead 10 → device release: nothing dirty, fixed 200 → device atomic 300: 570 ns.
    const g = graph([task(0, { tiles: [{ reads: [], writes: [], flops: 1000, unit: 'vector' }] })], []);
    const { result, events } = run(g, { persistent: persistent() });
    expect(result.timeNs).toBeCloseTo(570, 9);
    expect(ofType(events, 'task-start')[0]!.t).toBeCloseTo(50, 9);
    expect(ofType(events, 'fence')[0]).toMatchObject({ t: 70, dirtyBytes: 0, costNs: 200, scope: 'device' });
  });

  it('publishes graph first and step-end last, at the step time', () => {
    const g = chipletChain();
    const { events, result } = run(g, { persistent: persistent() });
    expect(events[0]).toMatchObject({ type: 'graph', policy: 'test-policy', tasks: 4, events: 2, kernels: 0, tasksPerLayer: 4 });
    expect(events[1]).toMatchObject({ type: 'launch', mode: 'persistent' });
    expect(events.at(-1)).toEqual({ type: 'step-end', t: result.timeNs });
    expect(result.launches).toBe(1);
    expect(result.layerEndNs[1]).toBe(result.timeNs);
    // times never go backwards in the stream
    for (let i = 1; i < events.length; i++) expect(events[i]!.t).toBeGreaterThanOrEqual(events[i - 1]!.t);
    const summaries = ofType(events, 'memory-summary');
    expect(summaries.map((s) => s.layer)).toEqual(result.counters.map((_, b) => b - 1));
  });
});

describe('simulateGraph: stream contributions and observers', () => {
  it("a backend's stream contribution sees the whole stream and its metrics are returned", () => {
    const fences: StreamContribution = (events$) =>
      events$.pipe(
        mergeMap((batch) => batch),
        filter((e) => e.type === 'fence'),
        count(),
        map((n) => ({ name: 'fences', value: n, unit: 'count' })),
      );
    const b = { ...testBackend(), streamContributions: [fences] };
    const { result } = run(chipletChain(), { persistent: persistent({ twoLevelCounting: false }) }, b);
    expect(result.backendMetrics).toEqual([{ name: 'fences', value: result.fences, unit: 'count' }]);
    expect(result.fences).toBe(4 * W);
  });

  it('every observer receives the same complete stream', () => {
    const a = eventRecorder();
    const b = eventRecorder();
    simulateGraph(testBackend(), chipletChain(), { persistent: persistent(), observers: [a.observer, b.observer] });
    expect(a.events.length).toBeGreaterThan(10);
    expect(b.events).toEqual(a.events);
  });
});

describe('simulateGraph: determinism', () => {
  for (const style of ['persistent', 'kernel-per-op'] as const) {
    it(`the same ${style} graph twice gives the same time and the same event stream`, () => {
      const runOnce = () => {
        const b = testBackend();
        const { result, events } = run(syntheticGraph(b.topology, style), { persistent: persistent() }, b);
        return { time: result.timeNs, stream: JSON.stringify(events), engineEvents: result.engineEvents };
      };
      const a = runOnce();
      const b = runOnce();
      expect(a.time).toBeGreaterThan(0);
      expect(b.time).toBe(a.time);
      expect(b.engineEvents).toBe(a.engineEvents);
      expect(b.stream).toBe(a.stream);
    });
  }

  it('the same backend object can simulate twice without carrying state over', () => {
    const b = testBackend();
    const g = chipletChain();
    const r1 = run(g, { persistent: persistent() }, b);
    const r2 = run(g, { persistent: persistent() }, b);
    expect(JSON.stringify(r2.events)).toBe(JSON.stringify(r1.events));
  });
});

describe('simulateGraph: kernel-per-op runtime', () => {
  it('emits one launch per kernel and runs every workgroup', () => {
    const b = testBackend();
    const g = syntheticGraph(b.topology, 'kernel-per-op');
    const { result, events } = run(g, { launchMode: 'graph' }, b);
    const launches = ofType(events, 'launch');
    expect(launches.length).toBe(g.kernels.length);
    expect(result.launches).toBe(g.kernels.length);
    expect(launches.map((l) => l.kernel)).toEqual(g.kernels.map((k) => k.id));
    for (const l of launches) expect(l).toMatchObject({ mode: 'graph', costNs: 500 });
    expect(ofType(events, 'kernel-end').length).toBe(g.kernels.length);
    expect(ofType(events, 'task-start').length).toBe(g.tasks.length);
    expect(ofType(events, 'task-end').length).toBe(g.tasks.length);
    expect(result.dispatches).toBe(0);
    expect(result.fences).toBe(0);
    // kernels do not overlap
    const ends = ofType(events, 'kernel-end');
    expect(launches[1]!.t).toBeGreaterThanOrEqual(ends[0]!.t);
  });

  it('round-robin-partition dispatch puts workgroup i of a kernel on partition i mod P', () => {
    const b = testBackend();
    const g = syntheticGraph(b.topology, 'kernel-per-op');
    const { events } = run(g, {}, b);
    const index = new Map(g.kernels[0]!.tasks.map((id, i) => [id, i]));
    let checked = 0;
    for (const s of ofType(events, 'task-start')) {
      const i = index.get(s.task);
      if (i === undefined) continue;
      expect(s.partition).toBe(i % 2);
      checked++;
    }
    expect(checked).toBe(g.kernels[0]!.tasks.length);
  });

  it('eager launches make the step slower than graph launches when eager costs more', () => {
    const b = testBackend({ launch: { eagerNs: 5000, graphNodeNs: 500 } });
    const g = syntheticGraph(b.topology, 'kernel-per-op');
    const eager = run(g, { launchMode: 'eager' }, b).result.timeNs;
    const graphed = run(g, { launchMode: 'graph' }, b).result.timeNs;
    expect(eager).toBeGreaterThan(graphed);
    // at least the first launch's difference shows up
    expect(eager - graphed).toBeGreaterThanOrEqual(5000 - 500 - 1e-6);
  });

  it('defaults to eager launches', () => {
    const b = testBackend();
    const { events } = run(syntheticGraph(b.topology, 'kernel-per-op'), {}, b);
    for (const l of ofType(events, 'launch')) expect(l.mode).toBe('eager');
  });

  it('one kernel of one tiny workgroup, by hand: launch + tile + empty write-back + barrier', () => {
    // graph launch 500 → tile 10 compute + 10 overhead → L2 write-backs with nothing dirty
    // take no time → barrier 1000: 1520 ns.
    const g = graph([task(0, { kernel: 0, tiles: [{ reads: [], writes: [], flops: 1000, unit: 'vector' }] })], [], {
      style: 'kernel-per-op',
      kernels: [{ id: 0, name: 'k', opIds: ['op0'], layer: 0, tasks: [0] }],
    });
    const { result, events } = run(g, { launchMode: 'graph' });
    expect(result.timeNs).toBeCloseTo(1520, 9);
    expect(ofType(events, 'kernel-end')).toEqual([{ type: 'kernel-end', t: 520, kernel: 0, writeBackBytes: 0 }]);
  });

  it('the end-of-kernel write-back reports dirty bytes only when the backend asks for it', () => {
    const b = testBackend();
    const g = syntheticGraph(b.topology, 'kernel-per-op');
    const { events } = run(g, {}, b);
    // kernel 0 writes y from both partitions' L2s
    expect(ofType(events, 'kernel-end')[0]!.writeBackBytes).toBeGreaterThan(0);
    const off = run(g, {}, testBackend({ endOfKernel: { barrierNs: 1000, writeBackL2: false } }));
    for (const e of ofType(off.events, 'kernel-end')) expect(e.writeBackBytes).toBe(0);
  });
});

describe('simulateGraph: conservation and bounds', () => {
  for (const style of ['persistent', 'kernel-per-op'] as const) {
    it(`${style}: every byte is accounted at L2 and the step is no faster than HBM allows`, () => {
      const b = testBackend();
      const g = syntheticGraph(b.topology, style);
      const { result } = run(g, { persistent: persistent() }, b);
      const read = result.counters.reduce((s, c) => s + c.l2.hitBytes + c.l2.missBytes + c.l2.bypassBytes, 0);
      expect(read).toBe(graphBytes(g));
      const weight = g.buffers[0]!.bytes;
      const hbmRead = result.counters.reduce((s, c) => s + c.hbmReadBytes, 0);
      expect(hbmRead).toBeGreaterThanOrEqual(weight);
      expect(result.timeNs).toBeGreaterThanOrEqual(weight / b.topology.memory.hbm.achievableBandwidthBytesPerNs);
    });
  }
});

describe('simulateGraph: degenerate graphs', () => {
  it('an empty persistent graph takes no time', () => {
    const { result } = run(graph([], []), { persistent: persistent() });
    expect(result.timeNs).toBe(0);
    expect(result.tasks).toBe(0);
  });

  it('an empty kernel still costs its launch and barrier', () => {
    const g = graph([], [], { style: 'kernel-per-op', kernels: [{ id: 0, name: 'empty', opIds: [], layer: 0, tasks: [] }] });
    const { result, events } = run(g, { launchMode: 'graph' });
    expect(result.timeNs).toBeCloseTo(500 + 1000, 9);
    expect(ofType(events, 'kernel-end')).toHaveLength(1);
  });
});

describe('simulateGraph: errors', () => {
  it('a graph with a dependency cycle throws DeadlockError (exit 3) instead of hanging', () => {
    const g = graph(
      [task(0, { name: 'a', waits: [1], signal: 0 }), task(1, { name: 'b', waits: [0], signal: 1 })],
      [
        { id: 0, name: 'e0', threshold: 1 },
        { id: 1, name: 'e1', threshold: 1 },
      ],
    );
    const e = expectFleetError(() => simulateGraph(testBackend(), g, { persistent: persistent() }), 3, 'dependency cycle');
    expect(e).toBeInstanceOf(DeadlockError);
  });

  it('an unsignalled wait throws DeadlockError naming the event and the task', () => {
    const g = graph([task(0, { name: 'lonely', waits: [0] })], [{ id: 0, name: 'never', threshold: 1 }]);
    const e = expectFleetError(() => simulateGraph(testBackend(), g, { persistent: persistent() }), 3, 'lonely', 'never');
    expect(e).toBeInstanceOf(DeadlockError);
  });

  it('a kernel-per-op task that no kernel launches is reported as unfinished (DeadlockError)', () => {
    const g = graph([task(0, { name: 'ran', kernel: 0 }), task(1, { name: 'orphan-wg', kernel: 1 })], [], {
      style: 'kernel-per-op',
      kernels: [{ id: 0, name: 'k0', opIds: ['op0'], layer: 0, tasks: [0] }],
    });
    const e = expectFleetError(() => simulateGraph(testBackend(), g), 3, 'orphan-wg', '1 of 2 tasks unfinished', 'test-gpu');
    expect(e).toBeInstanceOf(DeadlockError);
    expect((e as DeadlockError).blockedTasks).toEqual(['orphan-wg']);
  });

  it('a persistent graph without persistent options is a FleetError (exit 2)', () => {
    expectFleetError(() => simulateGraph(testBackend(), chipletChain()), 2, 'test-policy', 'persistent runtime options');
  });

  it('more workers per partition than compute units is a FleetError naming the partition', () => {
    const b = testBackend({}, testTopology({ computeUnits: [4, 2] }));
    expectFleetError(
      () => simulateGraph(b, chipletChain(), { persistent: persistent({ workersPerPartition: 3 }) }),
      2,
      'test-gpu',
      '3 workers per partition',
      'partition 1 has 2',
    );
  });

  it('a chiplet-task on a partition the device lacks is caught before running', () => {
    const g = graph([task(0, { name: 'p5', level: 'chiplet', partition: 5 })], []);
    const e = expectFleetError(() => simulateGraph(testBackend(), g, { persistent: persistent() }), 3, 'p5', 'partition 5');
    expect(e).toBeInstanceOf(FleetError);
  });
});
