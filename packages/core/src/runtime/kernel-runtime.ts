import type { TaskGraph } from '../graph/task-graph.js';
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
    if (this.opts.checkSteadyState && this.probe.steadyFrom === null && this.kernel > 0) this.checkBoundary();
    const { eagerNs, graphNodeNs } = this.m.cost.launch;
    const now = this.m.engine.now;
    const startAt = now + (this.opts.launchMode === 'eager' ? eagerNs : graphNodeNs);
    const k = this.graph.kernels[this.kernel]!;
    this.launches++;
    if (this.m.bus.active) this.m.bus.emit({ type: 'launch', t: now, kernel: k.id, name: k.name, mode: this.opts.launchMode, costNs: startAt - now });
    this.m.engine.at(startAt, this.launchKind, k.id);
  }

  /** At the first kernel after a decoder layer: offer the (quiescent) state at the boundary. */
  private checkBoundary(): void {
    const ended = this.graph.kernels[this.kernel - 1]!.layer;
    const next = this.graph.kernels[this.kernel]!.layer;
    if (ended < 0 || ended === next) return;
    const memory = this.m.memory.layerRelativeState(ended + 1);
    this.probe.offer(ended + 1, memory && { runtime: [], memory });
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
    for (let s = 0; s < this.m.slots; s++) if (!this.busy[s]) this.take(s);
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
    this.m.engine.at(now + this.m.cost.endOfKernel.barrierNs, this.nextKind, 0);
  }
}
