import { onGrid } from '../engine/engine.js';
import type { TaskGraph } from '../graph/task-graph.js';
import { sameLayerTask } from './layer-repeat.js';
import { TaskProgress } from './task-progress.js';
import type { Machine } from './machine.js';
import { SteadyStateProbe } from './steady-state.js';

export interface KernelRuntimeOptions {
  /**
   * `eager`: stream launches, `launch.eagerNs` between dependent kernels; `graph`: one
   * replayed graph, `launch.graphNodeNs` per node. Both costs are back-to-back launch
   * periods measured with tiny kernels, i.e. the GPU-side gap a kernel boundary costs.
   */
  launchMode: 'eager' | 'graph';
  /**
   * Compare the caches at each decoder-layer boundary with the previous one (layer-relative,
   * see `MemorySystem.layerRelativeState`) and record the first layer that starts and ends in
   * the same state (`steadyFrom`). Kernel boundaries are quiescent — every transfer done —
   * so the caches are the whole state a layer inherits.
   */
  checkSteadyState?: boolean;
  /** With `checkSteadyState`: stop at the head's boundary if no layer was proven to repeat (`abandoned`). */
  abandonUnproven?: boolean;
  /** Slots each compute unit has (the largest occupancy of any kernel). Default 1. */
  slotsPerUnit?: number;
  /** Occupancy of a kernel that does not give its own `workgroupsPerUnit`. Default: `slotsPerUnit`. */
  defaultWorkgroupsPerUnit?: number;
}

/**
 * Kernel-per-op: kernels run one after another. Each launch costs the backend's launch
 * overhead; its workgroups are placed by the hardware dispatcher (round-robin over
 * partitions, or greedily on any free unit) and run their tiles; at kernel end comes a
 * device-wide barrier and the backend's end-of-kernel cache effect (CDNA writes back L2).
 */
export class KernelRuntime extends TaskProgress {
  private kernel = -1;
  private readonly busy: Uint8Array;
  private readonly current: Int32Array;
  private readonly nextTile: Int32Array;
  /** Waiting workgroups, one FIFO per partition (round-robin) or one for all (greedy). */
  private queues: number[][] = [];
  private remaining = 0;
  private writeBacksLeft = 0;
  private readonly launchKind: number;
  private readonly nextKind: number;
  private readonly writeBackSlot: Int32Array;
  private writeBackBytes = 0;
  launches = 0;
  readonly layerEnd: number[] = [];
  /** Launches issued before each bucket's last task completed (parallel to `layerEnd`). */
  readonly layerLaunches: number[] = [];
  /**
   * Whether every launch found the machine quiescent, no fill in flight: then the kernels ran
   * from the same states whatever the gaps between them, and another launch mode's run is this
   * one with each launch's gap changed (`launchGapShift`).
   */
  quiescentLaunches = true;
  /** When the last kernel (and its barrier) completed, ns. */
  finishedAt = 0;
  /**
   * The first decoder layer that began and ended in the same layer-relative machine state
   * (with `checkSteadyState`), else null: any later layer with the same ops repeats it exactly.
   */
  get steadyFrom(): number | null {
    return this.probe.steadyFrom;
  }
  private readonly probe = new SteadyStateProbe();

  constructor(
    private readonly m: Machine,
    graph: TaskGraph,
    private readonly opts: KernelRuntimeOptions,
  ) {
    super(graph);
    this.busy = new Uint8Array(m.slots);
    this.current = new Int32Array(m.slots).fill(-1);
    this.nextTile = new Int32Array(m.slots);
    this.launchKind = m.engine.register('kernel-start', () => this.startKernel());
    this.nextKind = m.engine.register('kernel-next', () => this.launchNext());
    this.writeBackSlot = new Int32Array(m.memory.l2.length).fill(-1);
  }

  start(): void {
    this.launchNext();
  }

  private launchNext(): void {
    this.kernel++;
    if (this.kernel >= this.graph.kernels.length) {
      this.finishedAt = this.m.engine.now;
      return;
    }
    if (this.opts.checkSteadyState && this.probe.steadyFrom === null && this.kernel > 0) {
      const head = this.checkBoundary();
      if (this.probe.steadyFrom !== null) this.skipRepeats();
      else if (head && this.opts.abandonUnproven) {
        this.abandoned = true;
        return;
      }
    }
    if (this.quiescentLaunches && !this.m.memory.fillsLanded()) this.quiescentLaunches = false;
    const { eagerNs, graphNodeNs } = this.m.cost.launch;
    const now = this.m.engine.now;
    const startAt = now + onGrid(this.opts.launchMode === 'eager' ? eagerNs : graphNodeNs);
    const k = this.graph.kernels[this.kernel]!;
    this.launches++;
    if (this.m.bus.active) this.m.bus.emit({ type: 'launch', t: now, kernel: k.id, name: k.name, mode: this.opts.launchMode, costNs: startAt - now });
    this.m.engine.at(startAt, this.launchKind, k.id);
  }

  /** At the first kernel after a decoder layer: offer the (quiescent) state at the boundary; returns whether it is the head's. */
  private checkBoundary(): boolean {
    const ended = this.graph.kernels[this.kernel - 1]!.layer;
    const next = this.graph.kernels[this.kernel]!.layer;
    if (ended < 0 || ended === next) return false;
    const memory = this.m.memory.layerRelativeState(ended + 1);
    this.boundaryNs.set(ended + 1, this.m.engine.now);
    this.probe.offer(ended + 1, memory && { runtime: [], memory });
    const layers = this.graph.layers;
    return next > layers[layers.length - 1]!;
  }

  /** The run stopped at the head's boundary, unproven (`abandonUnproven`). */
  abandoned = false;

  /** When each layer boundary offered to the probe was reached (the first kernel of the layer about to launch), ns. */
  private readonly boundaryNs = new Map<number, number>();

  /**
   * The probe just proved that layer `s` began and ended in the same state: every following
   * sampled layer whose kernels are layer `s`'s (`sameLayerKernels`) would repeat it exactly,
   * so instead of running them the machine moves to where they would leave it — the clock
   * on by their time, the caches' per-layer blocks renamed, their counters and completion
   * times those of layer `s` shifted — and the run goes on with the next layer that differs
   * (or the head). Only where nothing watches the run (no events to emit) and the machine is
   * quiescent.
   */
  private skipRepeats(): void {
    const s = this.probe.steadyFrom!;
    const startS = this.boundaryNs.get(s);
    const startNext = this.boundaryNs.get(s + 1);
    if (this.m.bus.active || startS === undefined || startNext === undefined || !this.m.canSkipLayers()) return;
    const layers = this.graph.layers;
    let n = 0;
    while (layers.includes(s + 1 + n) && this.sameLayerKernels(s, s + 1 + n)) n++;
    if (n === 0) return;
    const layerNs = startNext - startS;
    const kernels = this.graph.kernels;
    let k = this.kernel;
    while (k < kernels.length && kernels[k]!.layer <= s + n) k++;
    if (k >= kernels.length) return;
    for (let i = this.kernel; i < k; i++) {
      for (const id of kernels[i]!.tasks) {
        this.completedFlags[id] = 1;
        this.finished++;
      }
      this.launches++;
    }
    const launchesPerLayer = (k - this.kernel) / n;
    for (let j = 1; j <= n; j++) {
      this.layerEnd[s + 1 + j] = this.layerEnd[s + 1]! + j * layerNs;
      this.layerLaunches[s + 1 + j] = this.layerLaunches[s + 1]! + j * launchesPerLayer;
    }
    this.m.skipLayers(n, layerNs, s + 1);
    this.kernel = k;
  }

  /**
   * Whether layer `b`'s kernels are layer `a`'s: the same workgroups with the same tiles, every
   * region at the same address but for per-layer buffers, which sit whole layer slots later.
   */
  private sameLayerKernels(a: number, b: number): boolean {
    const of = (l: number) => this.graph.kernels.filter((k) => k.layer === l);
    const ka = of(a);
    const kb = of(b);
    if (ka.length !== kb.length) return false;
    const tasks = this.graph.tasks;
    for (let i = 0; i < ka.length; i++) {
      const x = ka[i]!;
      const y = kb[i]!;
      if (x.tasks.length !== y.tasks.length || x.workgroupsPerUnit !== y.workgroupsPerUnit) return false;
      for (let t = 0; t < x.tasks.length; t++) if (!sameLayerTask(this.m.memory, tasks[x.tasks[t]!]!, tasks[y.tasks[t]!]!, b - a)) return false;
    }
    return true;
  }

  private startKernel(): void {
    const k = this.graph.kernels[this.kernel]!;
    const P = this.m.topology.partitions.computeUnits.length;
    const rr = this.m.cost.hardwareDispatch === 'round-robin-partition';
    this.queues = Array.from({ length: rr ? P : 1 }, () => []);
    // Launch id i goes to partition i mod P, unless the task names its partition.
    k.tasks.forEach((id, i) => {
      this.queues[rr ? (this.graph.tasks[id]!.partition ?? i % P) : 0]!.push(id);
    });
    this.remaining = k.tasks.length;
    if (this.remaining === 0) {
      this.kernelDone();
      return;
    }
    // A grid smaller than its slots fills breadth first — every unit's first slot, then every
    // unit's second, … — as the block scheduler gives a workgroup to the least-loaded SM, so it
    // spreads one per unit instead of doubling up on half of them. A grid that fills every slot
    // takes them in slot order (the same occupancy either way).
    const per = this.opts.slotsPerUnit ?? 1;
    const usable = (this.m.slots / per) * Math.min(per, k.workgroupsPerUnit ?? this.opts.defaultWorkgroupsPerUnit ?? per);
    const stride = k.tasks.length < usable ? per : 1;
    for (let r = 0; r < stride; r++) for (let s = r; s < this.m.slots; s += stride) if (!this.busy[s]) this.take(s);
  }

  /** Whether the running kernel's occupancy lets it use `slot` (the unit's first `workgroupsPerUnit` slots). */
  private usable(slot: number): boolean {
    const per = this.opts.slotsPerUnit ?? 1;
    if (per === 1) return true;
    const k = this.graph.kernels[this.kernel]!;
    return slot % per < (k.workgroupsPerUnit ?? this.opts.defaultWorkgroupsPerUnit ?? per);
  }

  private take(slot: number): void {
    if (!this.usable(slot)) {
      this.busy[slot] = 0;
      return;
    }
    const q = this.queues.length === 1 ? this.queues[0]! : this.queues[this.m.partitionOf[slot]!]!;
    const id = q.shift();
    if (id === undefined) {
      this.busy[slot] = 0;
      return;
    }
    this.busy[slot] = 1;
    this.current[slot] = id;
    this.nextTile[slot] = 0;
    const task = this.graph.tasks[id]!;
    if (this.m.bus.active) this.m.bus.emit({ type: 'task-start', ...this.m.taskEvent(task, slot) });
    this.runNext(slot);
  }

  private runNext(slot: number): void {
    const task = this.graph.tasks[this.current[slot]!]!;
    const i = this.nextTile[slot]!;
    if (i < task.tiles.length) {
      this.nextTile[slot] = i + 1;
      this.m.runTile(slot, task, task.tiles[i]!);
      return;
    }
    const now = this.m.engine.now;
    if (this.m.bus.active) this.m.bus.emit({ type: 'task-end', ...this.m.taskEvent(task, slot), tiles: task.tiles.length });
    this.finished++;
    this.completedFlags[task.id] = 1;
    this.layerEnd[task.layer + 1] = now;
    this.layerLaunches[task.layer + 1] = this.launches;
    this.current[slot] = -1;
    this.take(slot);
    if (--this.remaining === 0) this.kernelDone();
  }

  /** Called by the machine when a slot's operation completes. */
  opDone(slot: number): void {
    if (this.current[slot]! >= 0) {
      this.runNext(slot);
      return;
    }
    // A write-back op at kernel end.
    if (--this.writeBacksLeft === 0) this.afterWriteBack();
  }

  private kernelDone(): void {
    const k = this.graph.kernels[this.kernel]!;
    const eok = this.m.cost.endOfKernel;
    if (!eok.writeBackL2) {
      this.afterWriteBack();
      return;
    }
    // Every L2 instance writes back its dirty lines in parallel, each through one idle unit.
    this.writeBacksLeft = this.m.memory.l2.length;
    for (let inst = 0; inst < this.m.memory.l2.length; inst++) {
      const slot = this.slotOfInstance(inst);
      const bytes = this.m.runRelease(slot, k.layer, 0, true);
      this.writeBackBytes += bytes;
    }
  }

  private slotOfInstance(inst: number): number {
    if (this.writeBackSlot[inst]! < 0) {
      for (let s = 0; s < this.m.slots; s++)
        if (this.m.memory.l2Index(this.m.partitionOf[s]!) === inst) {
          this.writeBackSlot[inst] = s;
          break;
        }
    }
    return this.writeBackSlot[inst]!;
  }

  private afterWriteBack(): void {
    const k = this.graph.kernels[this.kernel]!;
    const now = this.m.engine.now;
    if (this.m.bus.active) this.m.bus.emit({ type: 'kernel-end', t: now, kernel: k.id, writeBackBytes: this.writeBackBytes });
    this.writeBackBytes = 0;
    // The device-wide barrier, then the next launch.
    this.m.engine.after(this.m.cost.endOfKernel.barrierNs, this.nextKind, 0);
  }
}
