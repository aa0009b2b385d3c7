import { merge, toArray } from 'rxjs';
import { Engine, onGrid } from '../engine/engine.js';
import { DeadlockError, FleetError } from '../errors/fleet-error.js';
import type { TaskGraph } from '../graph/task-graph.js';
import type { MemoryCounters } from '../memory/memory-system.js';
import type { Backend, BackendMetric } from '../plugin/contract.js';
import { EventBus } from '../protocol/event-bus.js';
import type { SimEvent } from '../protocol/events.js';
import { checkTaskGraph } from '../runtime/event-counters.js';
import { KernelRuntime } from '../runtime/kernel-runtime.js';
import { UNLIMITED_PIPELINE } from '../compute/tile-pipeline.js';
import { Machine } from '../runtime/machine.js';
import { PersistentRuntime, type PersistentOptions } from '../runtime/persistent-runtime.js';
import { cursorsCanRepeat, schedulerLayout } from '../runtime/scheduler-layout.js';
import { copyCounters, SimulationMemo } from './memo.js';

export interface SimulationOptions {
  /** Cache block size the memory model tracks, bytes (default 16 KiB; sector masks keep partial blocks honest). */
  granularityBytes?: number;
  /** Persistent graphs: how the megakernel is organised. */
  persistent?: PersistentOptions;
  /** Kernel-per-op graphs: eager launches or a replayed graph. */
  launchMode?: 'eager' | 'graph';
  /**
   * Look for the first decoder layer that starts and ends in the same layer-relative state
   * (`GraphSimulationResult.steadyFrom`), comparing states at the layer boundaries where the runtime is
   * quiescent.
   */
  checkSteadyState?: boolean;
  /**
   * With `checkSteadyState`: a run wanted only for a proof stops where the last chance of one
   * has passed — at the head's boundary with no steady layer proven (a persistent launch: in
   * its last iteration) — and reports `abandoned` instead of simulating the head.
   */
  abandonUnproven?: boolean;
  /**
   * Kernel-per-op graphs: workgroups resident per compute unit (the kernel's occupancy).
   * Each unit gets this many slots, which share its compute. Default 1.
   */
  workgroupsPerUnit?: number;
  /** Emit a `memory-sample` event every this many ns (HBM bandwidth in use, L2 occupancy). */
  sampleIntervalNs?: number;
  /** Extra subscribers to the event stream (trace writers, progress…). */
  observers?: ((events: readonly SimEvent[]) => void)[];
  /**
   * Multi-device steps: the bandwidth this device can send to its peers over the node's
   * interconnect, bytes/ns; tiles with `linkBytes` share it. Omitted: no link (single device).
   */
  linkBytesPerNs?: number;
}

/** What `simulateGraph` measured: time, per-layer ends and memory counters, event counts. */
export interface GraphSimulationResult {
  /** Simulated time of the whole graph, ns. */
  timeNs: number;
  /** Completion time of the last task of each counter bucket (index = layer + 1). */
  layerEndNs: number[];
  /** Memory counters per bucket (index = layer + 1). */
  counters: readonly MemoryCounters[];
  tasks: number;
  dispatches: number;
  fences: number;
  launches: number;
  /** Persistent: worker fetches of task descriptors and the descriptors they copied, over the run. */
  descriptorFetches: number;
  descriptorsFetched: number;
  engineEvents: number;
  /** Metrics the backend's stream contributions derived. */
  backendMetrics: BackendMetric[];
  /**
   * With `checkSteadyState`: the first decoder layer that began and ended in the same
   * layer-relative state, up to a relabelling of interchangeable workers the runtime proved
   * harmless (every later layer with the same ops repeats it exactly), or null.
   */
  steadyFrom: number | null;
  /** With `abandonUnproven`: the run stopped at the head's boundary, unproven (its times and counters are partial). */
  abandoned: boolean;
}

/** Where persistent workers sit: CDNA's dispatcher deals workgroups round-robin; NVIDIA fills SMs. */
function workerPartitions(backend: Backend, workersPerPartition: number): number[] {
  const cus = backend.topology.partitions.computeUnits;
  const P = cus.length;
  for (const [p, n] of cus.entries()) {
    if (workersPerPartition > n)
      throw new FleetError(`backend ${backend.name}: ${workersPerPartition} workers per partition, but partition ${p} has ${n} compute units`);
  }
  const out: number[] = [];
  for (let w = 0; w < P * workersPerPartition; w++) {
    out.push(backend.costModel.hardwareDispatch === 'round-robin-partition' ? w % P : Math.floor(w / workersPerPartition));
  }
  return out;
}

/** Partition of each hardware slot, `perUnit` slots per compute unit, unit by unit. */
function unitPartitions(backend: Backend, perUnit = 1): number[] {
  const out: number[] = [];
  backend.topology.partitions.computeUnits.forEach((n, p) => {
    for (let i = 0; i < n * perUnit; i++) out.push(p);
  });
  return out;
}

/**
 * Run one compiled task graph on a backend: checks the graph, simulates it with the runtime
 * its style calls for, publishes the event stream, and returns the step's timing and
 * counters. A graph that stops making progress raises a `DeadlockError` naming the blocked
 * tasks and pending events.
 */
export function simulateGraph(backend: Backend, graph: TaskGraph, opts: SimulationOptions = {}): GraphSimulationResult {
  // Nothing observes the run: an equal graph simulated before on this backend with the same
  // options gives its result again (a copy: callers may change theirs). Kernel-per-op graphs
  // are remembered whatever their launch mode: a run whose launches all found the machine
  // quiescent gives another mode's result by changing each launch's gap (`launchGapShift`).
  const unobserved = memoOn && !opts.observers?.length && backend.streamContributions.length === 0;
  if (!unobserved) return simulateFresh(backend, graph, opts).result;
  const kernels = graph.style !== 'persistent';
  const mode = opts.launchMode ?? 'eager';
  const key = JSON.stringify({ ...opts, observers: undefined, launchMode: kernels ? undefined : opts.launchMode });
  const seen = memo.find(backend, graph, key);
  let r: GraphSimulationResult;
  if (seen && seen.mode === mode) {
    memoStats.reused++;
    r = seen.result;
  } else if (seen?.layerLaunches) {
    memoStats.shifted++;
    r = launchGapShift(seen, mode, backend);
  } else {
    const fresh = simulateFresh(backend, graph, opts);
    memo.remember(backend, graph, key, { mode, ...fresh });
    r = fresh.result;
  }
  return { ...r, layerEndNs: [...r.layerEndNs], counters: copyCounters(r.counters), backendMetrics: [...r.backendMetrics] };
}

/** A remembered run: its result, its launch mode and, where its launches were all quiescent, the launches before each bucket's end. */
interface RememberedRun {
  result: GraphSimulationResult;
  mode: 'eager' | 'graph';
  layerLaunches: number[] | null;
}

/**
 * A kernel-per-op run in another launch mode, from one whose every launch found the machine
 * quiescent: each kernel ran from the same state after either gap, so each launch moves every
 * later time by the difference of the two gaps (whole ticks of the clock's grid: exact).
 */
function launchGapShift(run: RememberedRun, mode: 'eager' | 'graph', backend: Backend): GraphSimulationResult {
  const { eagerNs, graphNodeNs } = backend.costModel.launch;
  const gap = (m: 'eager' | 'graph') => onGrid(m === 'eager' ? eagerNs : graphNodeNs);
  const delta = gap(mode) - gap(run.mode);
  const r = run.result;
  const launches = run.layerLaunches!;
  return { ...r, timeNs: r.timeNs + r.launches * delta, layerEndNs: r.layerEndNs.map((t, b) => t + launches[b]! * delta) };
}

/**
 * Whether a `checkSteadyState` run of `graph` could prove a layer repeats: false where a
 * persistent megakernel's round-robin cursors can stand in equivalent positions at no two
 * consecutive layer boundaries (`cursorsCanRepeat`: every sampled layer deals a number of
 * CU-tasks its schedulers' symmetries cannot absorb), so a run made only for the proof can
 * be skipped. Kernel-per-op graphs: true.
 */
export function repetitionProvable(backend: Backend, graph: TaskGraph, opts: SimulationOptions): boolean {
  const p = opts.persistent;
  if (graph.style !== 'persistent' || !p) return true;
  const partitionOf = workerPartitions(backend, p.workersPerPartition);
  const layout = schedulerLayout(partitionOf, backend.topology.partitions.computeUnits.length, p.chipletAware, p.schedulers);
  return cursorsCanRepeat(graph, layout);
}

const memo = new SimulationMemo<RememberedRun>();
const memoStats = { reused: 0, shifted: 0 };

/** How many `simulateGraph` calls gave a remembered result as it was, and how many in another launch mode (diagnostics). */
export function simulationMemoStats(): Readonly<typeof memoStats> {
  return { ...memoStats };
}
let memoOn = true;

/**
 * Whether `simulateGraph` may reuse the result of an equal, unobserved simulation (default
 * on). Off, every call simulates: for checking that simulating twice gives the same result.
 */
export function setSimulationMemo(on: boolean): void {
  memoOn = on;
}

function simulateFresh(backend: Backend, graph: TaskGraph, opts: SimulationOptions): Omit<RememberedRun, 'mode'> {
  const P = backend.topology.partitions.computeUnits.length;
  checkTaskGraph(graph, P);
  const engine = new Engine();
  const bus = new EventBus();
  const contributions = backend.streamContributions.map((c) => c(bus.events$));
  let contributed: BackendMetric[] = [];
  if (contributions.length > 0) {
    merge(...contributions)
      .pipe(toArray())
      .subscribe((m) => (contributed = m));
  }
  for (const o of opts.observers ?? []) bus.events$.subscribe(o);

  let runtime: PersistentRuntime | KernelRuntime;
  let machine: Machine;
  const granularity = opts.granularityBytes ?? 16384;
  if (graph.style === 'persistent') {
    const p = opts.persistent;
    if (!p) throw new FleetError(`policy ${graph.policy}: a persistent graph needs persistent runtime options`);
    let rt!: PersistentRuntime;
    const pipe = backend.costModel.pipelines?.persistent ?? UNLIMITED_PIPELINE;
    machine = new Machine(
      engine,
      backend.topology,
      backend.costModel,
      bus,
      graph,
      workerPartitions(backend, p.workersPerPartition),
      granularity,
      pipe,
      (s) => rt.opDone(s),
      undefined,
      opts.linkBytesPerNs,
    );
    rt = new PersistentRuntime(machine, graph, p, opts.checkSteadyState ?? false, opts.abandonUnproven ?? false);
    runtime = rt;
  } else {
    let rt!: KernelRuntime;
    const pipe = backend.costModel.pipelines?.kernel ?? UNLIMITED_PIPELINE;
    // Slots per unit: the largest occupancy a kernel asks for; kernels without their own use the simulation's.
    const defaultPerUnit = opts.workgroupsPerUnit ?? 1;
    for (const n of [defaultPerUnit, ...graph.kernels.map((k) => k.workgroupsPerUnit ?? 1)]) {
      if (!(Number.isInteger(n) && n >= 1)) throw new FleetError(`workgroupsPerUnit: '${n}' is not a positive integer`);
    }
    const perUnit = Math.max(defaultPerUnit, ...graph.kernels.map((k) => k.workgroupsPerUnit ?? 1));
    const slots = unitPartitions(backend, perUnit);
    const units = perUnit > 1 ? slots.map((_, s) => Math.floor(s / perUnit)) : undefined;
    machine = new Machine(engine, backend.topology, backend.costModel, bus, graph, slots, granularity, pipe, (s) => rt.opDone(s), units, opts.linkBytesPerNs);
    rt = new KernelRuntime(machine, graph, {
      launchMode: opts.launchMode ?? 'eager',
      checkSteadyState: opts.checkSteadyState ?? false,
      abandonUnproven: opts.abandonUnproven ?? false,
      slotsPerUnit: perUnit,
      defaultWorkgroupsPerUnit: defaultPerUnit,
    });
    runtime = rt;
  }
  bus.emit({
    type: 'graph',
    t: 0,
    policy: graph.policy,
    tasks: graph.tasks.length,
    events: graph.events.length,
    kernels: graph.kernels.length,
    tasksPerLayer: graph.tasks.filter((t) => t.layer === graph.layers[0]).length,
  });
  if (opts.sampleIntervalNs && opts.sampleIntervalNs > 0) {
    const every = opts.sampleIntervalNs;
    const m = machine.memory;
    const kind = engine.register('memory-sample', () => {
      bus.emit({ type: 'memory-sample', t: engine.now, hbmBytesPerNs: m.hbmBandwidth.currentBytesPerNs, l2ResidentBytes: m.l2.map((c) => c.residentBytes()) });
      // Only while other work is pending: a sampler must never keep a finished engine alive.
      if (engine.pending > 0) engine.after(every, kind, 0);
    });
    engine.at(0, kind, 0);
  }
  runtime.start();
  // Watchdog: events keep firing but no task has completed for a long stretch — a livelock.
  let lastFinished = -1;
  let lastNow = -1;
  const watchdog = () => {
    if (runtime.finishedTasks === lastFinished && engine.now === lastNow) {
      const pending = runtime instanceof PersistentRuntime ? runtime.counters.pendingEvents() : [];
      throw new DeadlockError(
        `simulation of '${graph.policy}' on ${backend.name} makes no progress at ${engine.now.toFixed(0)} ns: ${graph.tasks.length - runtime.finishedTasks} tasks unfinished; pending events: ${pending.slice(0, 5).join(', ') || 'none'}`,
        graph.tasks
          .filter((t) => !runtime.completed[t.id])
          .map((t) => t.name)
          .slice(0, 20),
        pending,
      );
    }
    lastFinished = runtime.finishedTasks;
    lastNow = engine.now;
  };
  engine.run(Infinity, watchdog);
  if (!runtime.done && !runtime.abandoned) {
    const blocked = graph.tasks.filter((t) => !runtime.completed[t.id]).map((t) => t.name);
    const pending = runtime instanceof PersistentRuntime ? runtime.counters.pendingEvents() : [];
    throw new DeadlockError(
      `simulation of '${graph.policy}' on ${backend.name} stopped at ${engine.now.toFixed(0)} ns with ${blocked.length} of ${graph.tasks.length} tasks unfinished (e.g. ${blocked.slice(0, 3).join(', ')}); pending events: ${pending.slice(0, 5).join(', ') || 'none'}`,
      blocked.slice(0, 20),
      pending,
    );
  }
  // A persistent launch running several iterations reports its last one.
  const counters = runtime instanceof PersistentRuntime ? runtime.lastIterationCounters() : machine.memory.allCounters();
  counters.forEach((c, bucket) => {
    bus.emit({
      type: 'memory-summary',
      t: runtime.finishedAt,
      layer: bucket - 1,
      l2: c.l2,
      llc: machine.memory.llc ? c.llc : null,
      hbmReadBytes: c.hbmReadBytes,
      hbmWriteBytes: c.hbmWriteBytes,
      fabricReadBytes: c.fabricReadBytes,
    });
  });
  const end = runtime.finishedAt;
  bus.emit({ type: 'step-end', t: end });
  bus.complete();
  const result: GraphSimulationResult = {
    timeNs: end - (runtime instanceof PersistentRuntime ? runtime.iterationStartNs : 0),
    layerEndNs: runtime.layerEnd,
    counters,
    tasks: graph.tasks.length,
    dispatches: runtime instanceof PersistentRuntime ? runtime.dispatches : 0,
    fences: runtime instanceof PersistentRuntime ? runtime.fences : 0,
    launches: runtime instanceof KernelRuntime ? runtime.launches : 1,
    descriptorFetches: runtime instanceof PersistentRuntime ? runtime.descriptorFetches : 0,
    descriptorsFetched: runtime instanceof PersistentRuntime ? runtime.descriptorsFetched : 0,
    engineEvents: engine.eventCount,
    backendMetrics: contributed,
    steadyFrom: runtime.steadyFrom,
    abandoned: runtime.abandoned,
  };
  return { result, layerLaunches: runtime instanceof KernelRuntime && runtime.quiescentLaunches ? runtime.layerLaunches : null };
}
