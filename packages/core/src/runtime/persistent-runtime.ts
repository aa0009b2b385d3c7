import { onGrid } from '../engine/engine.js';
import type { Task, TaskGraph } from '../graph/task-graph.js';
import { addCounters, zeroCounters, type MemoryCounters } from '../memory/memory-system.js';
import { coherenceScope, type CoherenceScope } from '../topology/topology.js';
import { TaskProgress } from './task-progress.js';
import type { Machine } from './machine.js';
import { EventCounters } from './event-counters.js';
import { schedulerLayout } from './scheduler-layout.js';
import { equalStates, once, SteadyStateProbe, type BoundaryState } from './steady-state.js';
import { sameLayerTask } from './layer-repeat.js';
import { copyCounters } from '../simulation/memo.js';

/** How a persistent megakernel is organised on the device. */
export interface PersistentOptions {
  /** Workers on each partition. */
  workersPerPartition: number;
  /**
   * Chiplet-aware: each partition has its own scheduler owning that partition's workers
   * (FLEET). Otherwise `schedulers` schedulers own contiguous ranges of worker ids, which
   * the hardware spread round-robin over partitions (MPK).
   */
  chipletAware: boolean;
  /** Schedulers when not chiplet-aware. */
  schedulers: number;
  /**
   * Chiplet-tasks count completion in an L2-local counter and only the last worker of a
   * partition fences and signals the global event (FLEET). Otherwise every worker does.
   */
  twoLevelCounting: boolean;
  /**
   * Task descriptors a worker copies from its queue in one fetch (MPK: up to 16 into shared
   * memory with cp.async). Default 1: one fetch per task.
   */
  descriptorsPerFetch?: number;
  /** Bytes of one task descriptor (MPK's TaskDesc: 112 B, 352 B with TMA descriptors). Default 112. */
  descriptorBytes?: number;
  /**
   * Decode iterations the one launch runs (default 1). After the last task of an iteration the
   * end-of-task-graph event makes a scheduler prepare the next batch and launch the next
   * iteration's first tasks; the counters carry on (thresholds × iteration). Results
   * (`iterationStartNs`, `lastIterationCounters`) describe the last iteration.
   */
  iterations?: number;
}

/** MPK's task descriptor without TMA descriptors (Ampere), bytes (seed code: a layout replica of TaskDesc). */
export const MPK_TASK_DESC_BYTES = 112;

const IDLE = 0;
const FETCH = 1;
const TILE = 2;
const LOCAL_SIGNAL = 3;
const RELEASE = 4;
const GLOBAL_SIGNAL = 5;

/**
 * The persistent megakernel: schedulers dispatch ready tasks into per-worker queues
 * (CU-tasks to one worker, chiplet-tasks broadcast to every worker of their partition);
 * workers run tiles (a chiplet-task's tiles strided over the partition's workers) and
 * signal event counters; an event firing makes its waiting tasks ready.
 */
export class PersistentRuntime extends TaskProgress {
  private readonly queues: number[][];
  private readonly phase: Uint8Array;
  private readonly current: Int32Array;
  private readonly nextTile: Int32Array;
  /** Worker's rank within its partition and the partition's worker count. */
  private readonly rank: Int32Array;
  private readonly partitionWorkers: number[][];
  /** Scheduler state: when each is free again, and its round-robin cursor. */
  private readonly schedFree: Float64Array;
  private readonly schedCursor: Int32Array;
  private readonly schedWorkers: number[][];
  /** The scheduler owning each worker. */
  private readonly schedulerOfWorker: Int32Array;
  /** Per chiplet-task: workers of its partition still running it. */
  private readonly outstanding: Int32Array;
  private readonly dispatchKind: number;
  readonly counters: EventCounters;
  private readonly layerOfTask: Int32Array;
  /** The scheduler dispatching each task. */
  private readonly schedulerOf: Int32Array;
  private readonly device: CoherenceScope;
  private readonly chiplet: CoherenceScope;
  /**
   * Per scheduler: the smallest rotation of its worker list that keeps every worker in its
   * partition (its list's length where none does) — the symmetry its cursor is reduced by.
   */
  private readonly rotation: Int32Array;
  /** Per partition: CU-task and chiplet-task instances delivered to its workers and not yet ended. */
  private readonly cuOutstanding: Int32Array;
  private readonly chipletOutstanding: Int32Array;
  /** Whether CU-task and chiplet-task work overlapped on a partition since the last boundary. */
  private mixed = false;
  dispatches = 0;
  fences = 0;
  /** Worker fetches of task descriptors (a fetch copies up to `descriptorsPerFetch`), and the descriptors they copied. */
  descriptorFetches = 0;
  descriptorsFetched = 0;
  /** Descriptors each worker has copied to its shared memory and not yet run. */
  private readonly buffered: Int32Array;
  /** The iteration running (1 for the first). */
  private iteration = 1;
  /** When the iteration running began: the previous one's last task finished (0 for the first), ns. */
  iterationStartNs = 0;
  /** Memory counters at the start of the iteration running (null in the first). */
  private countersAtStart: MemoryCounters[] | null = null;
  private readonly endOfGraphKind: number;

  constructor(
    private readonly m: Machine,
    graph: TaskGraph,
    private readonly opts: PersistentOptions,
    /** Offer the state at quiescent layer boundaries to a `SteadyStateProbe` (`steadyFrom`). */
    private readonly checkSteadyState = false,
    /** Stop at the head's boundary of the last iteration if no layer was proven to repeat (`abandoned`). */
    private readonly abandonUnproven = false,
  ) {
    super(graph);
    const W = m.slots;
    this.queues = Array.from({ length: W }, () => []);
    this.phase = new Uint8Array(W);
    this.current = new Int32Array(W).fill(-1);
    this.nextTile = new Int32Array(W);
    this.rank = new Int32Array(W);
    const P = m.topology.partitions.computeUnits.length;
    const layout = schedulerLayout(m.partitionOf, P, opts.chipletAware, opts.schedulers);
    this.partitionWorkers = layout.partitionWorkers;
    for (const ws of this.partitionWorkers) for (let r = 0; r < ws.length; r++) this.rank[ws[r]!] = r;
    this.schedWorkers = layout.schedulerWorkers;
    const S = this.schedWorkers.length;
    this.schedFree = new Float64Array(S);
    this.schedCursor = new Int32Array(S);
    this.schedulerOfWorker = new Int32Array(W);
    this.schedWorkers.forEach((ws, si) => {
      for (const w of ws) this.schedulerOfWorker[w] = si;
    });
    this.layerOfTask = Int32Array.from(graph.tasks.map((t) => t.layer));
    this.schedulerOf = new Int32Array(graph.tasks.length);
    this.outstanding = new Int32Array(graph.tasks.length);
    this.device = coherenceScope(m.topology, 'device');
    this.chiplet = coherenceScope(m.topology, 'chiplet');
    this.rotation = Int32Array.from(layout.rotation);
    this.cuOutstanding = new Int32Array(P);
    this.chipletOutstanding = new Int32Array(P);
    this.counters = new EventCounters(graph, (ids) => this.onReady(ids));
    this.dispatchKind = m.engine.register('dispatch', (task) => this.deliver(task));
    this.endOfGraphKind = m.engine.register('begin-task-graph', () => this.beginIteration());
    this.buffered = new Int32Array(W);
    const iterations = opts.iterations ?? 1;
    if (!(Number.isInteger(iterations) && iterations >= 1))
      throw new RangeError(`persistent runtime: iterations must be a positive integer (got ${iterations})`);
    const perFetch = opts.descriptorsPerFetch ?? 1;
    if (!(Number.isInteger(perFetch) && perFetch >= 1))
      throw new RangeError(`persistent runtime: descriptorsPerFetch must be a positive integer (got ${perFetch})`);
  }

  /** Iterations the launch runs. */
  private get iterations(): number {
    return this.opts.iterations ?? 1;
  }

  /**
   * The end-of-task-graph event of an iteration fired (its last task finished): one scheduler
   * prepares the next batch — it reads the sampled token (an acquire load), writes the next
   * step's inputs and metadata (a store and a release add) — then hands the begin-task-graph
   * task to a worker (a dispatch), whose completion launches the iteration's first tasks.
   */
  private endOfGraph(now: number): void {
    const prepareNs = this.device.acquire.fixedNs + this.device.atomicLatencyNs + this.m.cost.dispatchNs;
    this.iterationStartNs = now;
    if (this.iteration === this.iterations - 1) {
      this.previousEnd = {
        ...this.markNow(now),
        layerEnd: [...this.layerEnd],
        counters: copyCounters(this.m.memory.allCounters()),
        mixedSegments: this.mixedSegments,
        mixed: this.mixed,
      };
    }
    this.m.engine.after(prepareNs, this.endOfGraphKind, 0);
  }

  private beginIteration(): void {
    this.iteration++;
    this.finished = 0;
    this.completedFlags.fill(0);
    this.counters.nextIteration();
    this.dispatches++;
    // Each iteration looks for its own steady layer (to skip the layers repeating it); the
    // last iteration's is the run's.
    this.probe = new SteadyStateProbe();
    this.boundary = 0;
    this.marks.clear();
    if (this.iteration === this.iterations) this.previous = this.boundaries;
    this.boundaries = new Map();
    this.countersAtStart = copyCounters(this.m.memory.allCounters());
    this.onReady(this.counters.initiallyReady());
  }

  /**
   * Memory counters of the last iteration, per bucket (index = layer + 1): the run's minus
   * those at the start of the last iteration.
   */
  lastIterationCounters(): MemoryCounters[] {
    const all = this.m.memory.allCounters();
    return all.map((c, b) => {
      const out = zeroCounters();
      addCounters(out, c);
      const before = this.countersAtStart?.[b];
      if (before) addCounters(out, before, -1);
      return out;
    });
  }

  /** Launch: every task without waits is ready at time 0. */
  start(): void {
    if (this.m.bus.active) this.m.bus.emit({ type: 'launch', t: 0, kernel: 0, name: `persistent:${this.graph.policy}`, mode: 'persistent', costNs: 0 });
    this.onReady(this.counters.initiallyReady());
  }

  /** The worker whose signal is firing events right now (-1 at launch). */
  private signaller = -1;
  /** Tasks a scheduler is writing to a queue (dispatched, not delivered yet). */
  private inDispatch = 0;
  private probe = new SteadyStateProbe();
  /** The last layer boundary offered to the probe. */
  private boundary = 0;
  /** What the runtime had counted at each quiescent boundary of this iteration (`skipRepeats`). */
  private readonly marks = new Map<number, BoundaryMark>();

  /** The first decoder layer proven to repeat (with `checkSteadyState`), or null. */
  get steadyFrom(): number | null {
    // Proven up to a relabelling, the rest of the graph (the layers simulated after the proof
    // and the head) starts from a relabelled state: it must run equivariantly too.
    if (this.probe.upToSymmetry && this.mixed) return null;
    return this.probe.steadyFrom;
  }

  /**
   * The first tasks of a later layer (or of the head) became ready: the boundary of that
   * layer. If every earlier task is done and nothing else is queued, dispatched or running
   * but the worker whose signal readied them, the state the layer inherits is the caches,
   * who signalled, the schedulers' cursors and backlogs, and the write-back paths' backlog.
   */
  private checkBoundary(ids: readonly number[]): boolean {
    const layers = this.graph.layers;
    let b = 0;
    for (const id of ids) {
      const l = this.layerOfTask[id]!;
      b = Math.max(b, l > layers[layers.length - 1]! ? layers.length : l);
    }
    if (b <= this.boundary) return false;
    this.boundary = b;
    let quiet = this.inDispatch === 0 && this.finished === this.tasksBefore(b);
    for (let w = 0; quiet && w < this.queues.length; w++) quiet = this.queues[w]!.length === 0 && (w === this.signaller || this.phase[w] === IDLE);
    if (!quiet) {
      this.probe.offer(b, null);
      return false;
    }
    const relative = this.m.memory.layerRelativeState(b);
    if (relative === null) {
      this.probe.offer(b, null);
      return false;
    }
    const memory = once(relative);
    const now = this.m.engine.now;
    const sched = this.schedWorkers.flatMap((ws, s) => [this.schedCursor[s]! % Math.max(1, ws.length), Math.max(0, this.schedFree[s]! - now)]);
    const writeBack = this.m.writeBackBusyNs();
    // Canonical form: each cursor reduced by its scheduler's rotation symmetry. The worker
    // that signalled is idle before any delivery, so it matters only through the scheduler
    // that handles small events (not chiplet-aware) — which every rotation keeps.
    const canonicalSched = this.schedWorkers.flatMap((ws, s) => [
      (this.schedCursor[s]! % Math.max(1, ws.length)) % this.rotation[s]!,
      Math.max(0, this.schedFree[s]! - now),
    ]);
    const signalledBy = this.signaller < 0 || this.opts.chipletAware ? -1 : this.schedulerOfWorker[this.signaller]!;
    const equivariant = !this.mixed;
    this.mixed = false;
    if (!equivariant) this.mixedSegments++;
    const state = {
      runtime: [this.signaller, ...sched, ...writeBack],
      memory,
      canonical: { runtime: [signalledBy, ...canonicalSched, ...writeBack], memory },
      equivariant,
    };
    const mark = this.markNow(now);
    this.marks.set(b, mark);
    if (this.iteration === this.iterations - 1)
      this.boundaries.set(b, { ...mark, state, counters: copyCounters(this.m.memory.allCounters()), mixedSegments: this.mixedSegments });
    this.probe.offer(b, state);
    // The rest is replayed where this iteration proved its steady layer, or at the head, past which no proof can come.
    const head = b === this.graph.layers.length;
    if ((this.probe.steadyFrom !== null || head) && this.replayRest(b, state)) return true;
    if (head && this.probe.steadyFrom === null && this.abandonUnproven && this.iteration === this.iterations) {
      // Nothing is dispatched any more: the engine drains and the run ends here.
      this.abandoned = true;
      return true;
    }
    if (this.probe.steadyFrom === null || !this.skipRepeats(b)) return false;
    // The layers skipped would have mixed work as the steady one did.
    if (!equivariant) this.mixed = true;
    return true;
  }

  /**
   * The last iteration reached boundary `b` in the state the iteration before it had there
   * (as labelled, or up to a relabelling of interchangeable workers under which the earlier
   * iteration ran the rest equivariantly): the rest of it — its remaining layers and the head —
   * would repeat the earlier iteration's rest exactly, shifted in time (the graph and its
   * events are the same in every iteration, the clock is translation-exact, see `onGrid`).
   * Instead of running it the runtime finishes the launch where that rest leaves it: every
   * task done, the completion times, memory counters and schedule counts the earlier rest
   * added, added again. Only where nothing watches the run and the machine is quiescent; the
   * caller asks only where no later boundary could still prove a steady layer (so the proof a
   * result reports is this iteration's). Returns whether it finished.
   */
  private replayRest(b: number, state: CanonicalState): boolean {
    const end = this.previousEnd;
    const rec = this.previous.get(b);
    if (this.iteration !== this.iterations || !end || !rec || this.m.bus.active || !this.m.canSkipLayers()) return false;
    const mixedAfter = end.mixed || end.mixedSegments > rec.mixedSegments;
    const sameRuntime = equalStates(rec.state.runtime, state.runtime);
    if (!sameRuntime && (mixedAfter || !equalStates(rec.state.canonical.runtime, state.canonical.runtime))) return false;
    if (!equalStates(rec.state.memory(), state.memory())) return false;
    const dt = this.m.engine.now - rec.now;
    for (let id = 0; id < this.completedFlags.length; id++) {
      if (this.completedFlags[id]) continue;
      this.completedFlags[id] = 1;
      this.finished++;
    }
    for (let k = b + 1; k < end.layerEnd.length; k++) if (end.layerEnd[k] !== undefined) this.layerEnd[k] = end.layerEnd[k]! + dt;
    end.counters.forEach((c, k) => {
      const rest = zeroCounters();
      addCounters(rest, c);
      const before = rec.counters[k];
      if (before) addCounters(rest, before, -1);
      addCounters(this.m.memory.countersOf(k), rest);
    });
    this.dispatches += end.dispatches - rec.dispatches;
    this.fences += end.fences - rec.fences;
    this.descriptorFetches += end.descriptorFetches - rec.descriptorFetches;
    this.descriptorsFetched += end.descriptorsFetched - rec.descriptorsFetched;
    this.finishedAt = end.now + dt;
    // The rest mixed work (or not) as the earlier one did: a proof up to a relabelling holds only if not.
    this.mixed = mixedAfter;
    return true;
  }

  /** Quiescent boundaries the iteration before the last reached, by layer (`replayRest`). */
  private boundaries = new Map<number, IterationMark>();
  /** Those boundaries, once the last iteration runs. */
  private previous = new Map<number, IterationMark>();
  /** Where the iteration before the last ended: its clock, completion times, counters and schedule counts. */
  private previousEnd: (BoundaryMark & { layerEnd: number[]; counters: MemoryCounters[]; mixedSegments: number; mixed: boolean }) | null = null;
  /** Stretches between quiescent boundaries (and skipped layers) in which work mixed, so far. */
  private mixedSegments = 0;

  private markNow(now: number): BoundaryMark {
    return {
      now,
      cursors: Int32Array.from(this.schedCursor),
      dispatches: this.dispatches,
      fences: this.fences,
      descriptorFetches: this.descriptorFetches,
      descriptorsFetched: this.descriptorsFetched,
    };
  }

  /**
   * The probe just proved, at boundary `b`, that layer `b - 1` began and ended in the same
   * state (up to a relabelling of interchangeable workers, under which it ran equivariantly):
   * each following sampled layer with the same tasks (`sameLayerTask`, the same events between
   * them) would repeat it exactly, under that relabelling once more. Instead of running them
   * the machine moves to where they leave it — the clock on by their time, the caches'
   * per-layer blocks renamed, their counters, completion times and schedule counts those of
   * layer `b - 1` repeated, each scheduler's cursor on by as many tasks as it dealt in that
   * layer, their events fired — and the last of them signals, readying the next layer (or the
   * head) as it would have. The workers are all idle here, so the relabelling leaves no other
   * trace: the state reached is the one simulating the layers reaches, but for which idle
   * worker signalled last, which only its scheduler (a rotation keeps) can see. Only where
   * nothing watches the run and the machine is quiescent; returns whether it skipped.
   */
  private skipRepeats(b: number): boolean {
    const s = b - 1;
    const from = this.marks.get(s);
    const to = this.marks.get(b);
    const task = this.signaller >= 0 ? this.current[this.signaller]! : -1;
    if (this.m.bus.active || !from || !to || task < 0 || this.layerOfTask[task] !== s || !this.m.canSkipLayers()) return false;
    const layers = this.graph.layers;
    const steady = this.tasksOfLayer(s);
    let n = 0;
    while (layers.includes(b + n) && this.repeatsLayer(s, b + n)) n++;
    if (n === 0) return false;
    const skipped = Array.from({ length: n }, (_, j) => this.tasksOfLayer(b + j)).flat();
    const last = this.tasksOfLayer(b + n - 1)[steady.indexOf(task)]!;
    const isSkipped = (id: number) => this.layerOfTask[id]! >= b && this.layerOfTask[id]! < b + n;
    if (!this.counters.skip(skipped, isSkipped, last)) return false;
    for (const id of skipped) {
      this.completedFlags[id] = 1;
      this.finished++;
    }
    const layerNs = to.now - from.now;
    for (let j = 1; j <= n; j++) this.layerEnd[b + j] = to.now + j * layerNs;
    for (let i = 0; i < this.schedCursor.length; i++) this.schedCursor[i]! += n * (to.cursors[i]! - from.cursors[i]!);
    this.dispatches += n * (to.dispatches - from.dispatches);
    this.fences += n * (to.fences - from.fences);
    this.descriptorFetches += n * (to.descriptorFetches - from.descriptorFetches);
    this.descriptorsFetched += n * (to.descriptorsFetched - from.descriptorsFetched);
    const dt = n * layerNs;
    for (let i = 0; i < this.schedFree.length; i++) this.schedFree[i]! += dt;
    // Bucket b is layer s's; in a later iteration only what this iteration added to it repeats.
    this.m.skipLayers(n, layerNs, b, this.countersAtStart?.[b]);
    this.counters.signal(this.graph.tasks[last]!.signal!, this.m.engine.now, this.m.bus);
    return true;
  }

  /** Whether compiled layer `b` repeats layer `a`: the same tasks, each waiting on and signalling the events of its layer's counterparts. */
  private repeatsLayer(a: number, b: number): boolean {
    // The graph is the same in every iteration: each pair of layers is compared once.
    const key = `${a}:${b}`;
    let same = this.repeats.get(key);
    if (same === undefined) this.repeats.set(key, (same = this.sameTasks(a, b)));
    return same;
  }

  private readonly repeats = new Map<string, boolean>();

  private sameTasks(a: number, b: number): boolean {
    const x = this.tasksOfLayer(a);
    const y = this.tasksOfLayer(b);
    if (x.length !== y.length) return false;
    const tasks = this.graph.tasks;
    for (let i = 0; i < x.length; i++) {
      const p = tasks[x[i]!]!;
      const q = tasks[y[i]!]!;
      if (!sameLayerTask(this.m.memory, p, q, b - a)) return false;
      if ((p.signal === null) !== (q.signal === null) || p.waits.length !== q.waits.length) return false;
      if (p.signal !== null && this.eventShape(p.signal, a) !== this.eventShape(q.signal!, b)) return false;
      for (let j = 0; j < p.waits.length; j++) if (this.eventShape(p.waits[j]!, a) !== this.eventShape(q.waits[j]!, b)) return false;
    }
    return true;
  }

  /** An event as seen from layer `layer`: its threshold and its producers, each as (layer offset, index in its layer). */
  private eventShape(event: number, layer: number): string {
    const key = `${event}@${layer}`;
    let shape = this.shapes.get(key);
    if (shape === undefined) {
      if (!this.producers) {
        this.producers = this.graph.events.map(() => []);
        for (const t of this.graph.tasks) if (t.signal !== null) this.producers[t.signal]!.push(t.id);
        this.indexInLayer = new Int32Array(this.layerOfTask.length);
        const seen = new Map<number, number>();
        for (let i = 0; i < this.layerOfTask.length; i++) {
          const l = this.layerOfTask[i]!;
          const k = seen.get(l) ?? 0;
          this.indexInLayer[i] = k;
          seen.set(l, k + 1);
        }
      }
      const at = (id: number) => `${this.layerOfTask[id]! - layer}:${this.indexInLayer![id]}`;
      shape = `${this.graph.events[event]!.threshold}/${this.producers[event]!.map(at).join(',')}`;
      this.shapes.set(key, shape);
    }
    return shape;
  }

  private producers: number[][] | null = null;
  private indexInLayer: Int32Array | null = null;
  private readonly shapes = new Map<string, string>();
  private readonly layerTasks = new Map<number, number[]>();

  /** A layer's tasks in id order. */
  private tasksOfLayer(layer: number): number[] {
    let ts = this.layerTasks.get(layer);
    if (!ts) {
      ts = [];
      for (let i = 0; i < this.layerOfTask.length; i++) if (this.layerOfTask[i] === layer) ts.push(i);
      this.layerTasks.set(layer, ts);
    }
    return ts;
  }

  /** Tasks of the layers before `layer` (the embedding included). */
  private tasksBefore(layer: number): number {
    let n = 0;
    for (let i = 0; i < this.layerOfTask.length; i++) if (this.layerOfTask[i]! < layer) n++;
    return n;
  }

  /**
   * Ready tasks go to schedulers: chiplet-tasks to their partition's, CU-tasks spread over
   * all. As in MPK, an event that launches fewer than 8 tasks is handled by the scheduler
   * owning the worker that fired it (a massive one is split across schedulers), so many
   * small events — a collective's per-slice events — spread over the schedulers.
   */
  private onReady(ids: readonly number[]): void {
    // A boundary where the layers that follow were skipped has readied their successors instead.
    if (this.checkSteadyState && this.probe.steadyFrom === null && this.checkBoundary(ids)) return;
    const S = this.schedFree.length;
    let k = 0;
    const cuTasks = ids.filter((id) => this.graph.tasks[id]!.partition === null).length;
    const owner = this.signaller >= 0 && cuTasks < 8 && !this.opts.chipletAware ? this.schedulerOfWorker[this.signaller]! : -1;
    for (const id of ids) {
      const task = this.graph.tasks[id]!;
      let s: number;
      if (task.partition !== null) s = this.opts.chipletAware ? task.partition : task.partition % S;
      else if (owner >= 0) s = owner;
      else s = this.opts.chipletAware ? k++ % S : Math.floor((k++ * S) / Math.max(1, cuTasks));
      const free = Math.max(this.m.engine.now, this.schedFree[s]!) + onGrid(this.m.cost.dispatchNs);
      this.schedFree[s] = free;
      this.dispatches++;
      this.schedulerOf[id] = s;
      this.inDispatch++;
      this.m.engine.at(free, this.dispatchKind, id);
    }
  }

  /** The scheduler's queue write becomes visible: enqueue at the worker(s). */
  private deliver(id: number): void {
    this.inDispatch--;
    const task = this.graph.tasks[id]!;
    const s = this.schedulerOf[id]!;
    let targets: number[];
    if (task.partition !== null) {
      targets = this.partitionWorkers[task.partition]!;
      if (targets.length === 0) throw new Error(`task ${task.name}: partition ${task.partition} has no workers`);
      this.outstanding[id] = targets.length;
    } else {
      const own = this.schedWorkers[s]!;
      targets = [own[this.schedCursor[s]!++ % own.length]!];
    }
    if (this.m.bus.active)
      this.m.bus.emit({
        type: 'dispatch',
        t: this.m.engine.now,
        task: id,
        workers: targets.length,
        partition: task.partition ?? this.m.partitionOf[targets[0]!]!,
        scheduler: s,
      });
    this.noteDelivery(task, this.m.partitionOf[targets[0]!]!, targets.length);
    for (const w of targets) {
      this.queues[w]!.push(id);
      if (this.phase[w] === IDLE) this.fetch(w);
    }
  }

  /**
   * Track whether CU-task and chiplet-task work overlap on a partition. While they do not, a
   * partition's workers pass from running only CU-tasks (placed by the cursors, so a rotation
   * relabels them) to running only chiplet-tasks (placed by rank, the same under any
   * relabelling) through moments where all of them are idle: the layer is equivariant under
   * every partition-preserving rotation of the schedulers' worker lists.
   */
  private noteDelivery(task: Task, partition: number, instances: number): void {
    if (task.partition === null) {
      if (this.chipletOutstanding[partition]! > 0) this.mixed = true;
      this.cuOutstanding[partition]! += instances;
    } else {
      if (this.cuOutstanding[partition]! > 0) this.mixed = true;
      this.chipletOutstanding[partition]! += instances;
    }
  }

  /**
   * The worker takes its next task. Its descriptor is in shared memory if an earlier fetch
   * copied it; otherwise the worker fetches: it polls its queue and copies up to
   * `descriptorsPerFetch` queued descriptors in one go (the first costs the backend's fetch —
   * poll and copy from L2 — the others stream behind it at this unit's share of the L2
   * bandwidth).
   */
  private fetch(w: number): void {
    const q = this.queues[w]!;
    if (q.length === 0) {
      this.phase[w] = IDLE;
      return;
    }
    let fetchNs = 0;
    if (this.buffered[w] === 0) {
      const n = Math.min(q.length, this.opts.descriptorsPerFetch ?? 1);
      this.buffered[w] = n;
      this.descriptorFetches++;
      this.descriptorsFetched += n;
      fetchNs = this.m.cost.fetchNs + ((n - 1) * (this.opts.descriptorBytes ?? MPK_TASK_DESC_BYTES)) / this.unitL2BytesPerNs;
    }
    this.buffered[w]!--;
    const id = q.shift()!;
    this.current[w] = id;
    this.phase[w] = FETCH;
    const task = this.graph.tasks[id]!;
    // A dependent task acquires at device scope before reading its inputs.
    const acquire = task.waits.length > 0 ? this.device.acquire.fixedNs : 0;
    this.m.runDelay(w, fetchNs + acquire);
  }

  /** One compute unit's share of its L2 instance's bandwidth, bytes/ns. */
  private get unitL2BytesPerNs(): number {
    const t = this.m.topology;
    const units = t.partitions.computeUnits.reduce((a, b) => a + b, 0);
    const instances = t.memory.l2.organisation === 'per-partition' ? t.partitions.computeUnits.length : 1;
    return (t.memory.l2.bandwidthBytesPerNs * instances) / units;
  }

  /** Called by the machine when the worker's current operation completes. */
  opDone(w: number): void {
    const id = this.current[w]!;
    const task = this.graph.tasks[id]!;
    switch (this.phase[w]) {
      case FETCH: {
        if (this.m.bus.active) this.m.bus.emit({ type: 'task-start', ...this.m.taskEvent(task, w) });
        this.nextTile[w] = task.partition !== null ? this.rank[w]! : 0;
        this.phase[w] = TILE;
        this.nextTileOrSignal(w, task);
        return;
      }
      case TILE:
        this.nextTileOrSignal(w, task);
        return;
      case LOCAL_SIGNAL: {
        if (--this.outstanding[id]! > 0) {
          this.taskEnd(w, task, false);
          return;
        }
        this.release(w, task);
        return;
      }
      case RELEASE: {
        this.phase[w] = GLOBAL_SIGNAL;
        this.m.runDelay(w, this.device.atomicLatencyNs);
        return;
      }
      case GLOBAL_SIGNAL: {
        const counts = this.countsTowardEvent(task);
        this.taskEnd(w, task, counts);
        return;
      }
    }
  }

  private nextTileOrSignal(w: number, task: Task): void {
    const i = this.nextTile[w]!;
    if (i < task.tiles.length) {
      this.nextTile[w] = i + (task.partition !== null ? this.partitionWorkers[task.partition]!.length : 1);
      this.m.runTile(w, task, task.tiles[i]!);
      return;
    }
    if (task.partition !== null && this.opts.twoLevelCounting) {
      this.phase[w] = LOCAL_SIGNAL;
      if (this.m.bus.active)
        this.m.bus.emit({
          type: 'event-signal',
          t: this.m.engine.now,
          event: task.signal ?? -1,
          task: task.id,
          scope: 'chiplet',
          partition: this.m.partitionOf[w]!,
          worker: w,
        });
      this.m.runDelay(w, this.chiplet.atomicLatencyNs);
      return;
    }
    this.release(w, task);
  }

  private release(w: number, task: Task): void {
    const scope = this.device;
    this.phase[w] = RELEASE;
    const dirty = this.m.runRelease(w, task.layer, scope.release.fixedNs, scope.release.writeBackDirty);
    this.fences++;
    if (this.m.bus.active)
      this.m.bus.emit({
        type: 'fence',
        t: this.m.engine.now,
        partition: this.m.partitionOf[w]!,
        worker: w,
        scope: 'device',
        dirtyBytes: dirty,
        costNs: scope.release.fixedNs,
      });
  }

  /** Without two-level counting every worker of a chiplet-task signals; the task counts once all did. */
  private countsTowardEvent(task: Task): boolean {
    if (task.partition === null || this.opts.twoLevelCounting) return true;
    return --this.outstanding[task.id]! === 0;
  }

  private taskEnd(w: number, task: Task, complete: boolean): void {
    const now = this.m.engine.now;
    if (this.m.bus.active) this.m.bus.emit({ type: 'task-end', ...this.m.taskEvent(task, w), tiles: task.tiles.length });
    if (task.partition === null) this.cuOutstanding[this.m.partitionOf[w]!]!--;
    else this.chipletOutstanding[this.m.partitionOf[w]!]!--;
    if (complete) {
      // Whether this task ends the iteration, known before its signal (a replayed rest finishes the others in it).
      const last = ++this.finished === this.graph.tasks.length;
      this.completedFlags[task.id] = 1;
      if (task.signal !== null) {
        if (this.m.bus.active)
          this.m.bus.emit({ type: 'event-signal', t: now, event: task.signal, task: task.id, scope: 'device', partition: this.m.partitionOf[w]!, worker: w });
        this.signaller = w;
        this.counters.signal(task.signal, now, this.m.bus);
        this.signaller = -1;
      }
      this.layerEnd[this.layerOfTask[task.id]! + 1] = now;
      if (last) {
        if (this.iteration < this.iterations) this.endOfGraph(now);
        else this.finishedAt = now;
      }
    }
    this.fetch(w);
  }

  /** The run stopped at the head's boundary, unproven (`abandonUnproven`). */
  abandoned = false;
  /** Time the last task of each layer bucket completed (index = layer + 1). */
  readonly layerEnd: number[] = [];
  /** When the last task completed, ns. */
  finishedAt = 0;
}

/** A boundary state with its canonical form. */
type CanonicalState = BoundaryState & { canonical: NonNullable<BoundaryState['canonical']> };

/** A quiescent boundary of the iteration before the last: its state, counters, and the mixed stretches before it. */
interface IterationMark extends BoundaryMark {
  state: CanonicalState;
  counters: MemoryCounters[];
  mixedSegments: number;
}

/** What a persistent runtime had counted when it reached a quiescent layer boundary. */
interface BoundaryMark {
  now: number;
  cursors: Int32Array;
  dispatches: number;
  fences: number;
  descriptorFetches: number;
  descriptorsFetched: number;
}
