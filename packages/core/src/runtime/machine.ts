import { onGrid, type Engine } from '../engine/engine.js';
import type { Task, TaskGraph, Tile } from '../graph/task-graph.js';
import { MemorySystem, type MemoryCounters, type TileTraffic } from '../memory/memory-system.js';
import { BandwidthResource } from '../memory/bandwidth-resource.js';
import { exposedStallNs, latencyBoundNs, type TilePipeline } from '../compute/tile-pipeline.js';
import { dramLatencyAtInFlight } from '../memory/loaded-latency.js';
import type { CostModel } from '../plugin/contract.js';
import type { EventBus } from '../protocol/event-bus.js';
import type { TaskEventFields } from '../protocol/events.js';
import type { Topology } from '../topology/topology.js';

/** Counter bucket of a layer: 0 before the layers, `layer + 1` for a layer (the head is `layers + 1`). */
export function bucketOf(layer: number): number {
  return layer + 1;
}

/**
 * What both runtimes share: the engine, the memory system, and compute units that execute
 * "operations" — a tile, a fence's write-back, a fixed delay — each taking
 * max(memory, compute) + overhead, where memory time comes from the shared bandwidth
 * resources and compute time from the backend's cost model.
 */
export class Machine {
  readonly memory: MemorySystem;
  /** Partition of each compute unit slot (a worker or a hardware workgroup slot). */
  readonly partitionOf: Int32Array;
  private readonly pending: Int32Array;
  /** The stepped tile a slot is streaming, and its next step. */
  private readonly stepTile: (Tile | null)[];
  private readonly stepTask: (Task | null)[];
  private readonly nextStep: Int32Array;
  /** When each slot's operation started (a grid time) and how long its compute (or latency-bound reads) take, ns. */
  private readonly opStart: Float64Array;
  private readonly busyNs: Float64Array;
  private readonly extra: Float64Array;
  private readonly traffic: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
  private readonly doneKind: number;
  /**
   * When each L2 instance's controller is free for the next cache-wide write-back: a
   * release that writes back the whole L2 (CDNA `buffer_wbl2`) walks it, so concurrent
   * ones on the same L2 queue behind each other.
   */
  private readonly writeBackFree: Float64Array;
  /** Time releases spent queued behind another release on the same L2, ns. */
  releaseWaitNs = 0;
  private readonly unitOf: Int32Array | null;
  /** Slots of each unit running a tile. */
  private readonly unitBusy: Int32Array;
  private readonly inTile: Uint8Array;
  /**
   * DRAM bytes each slot's current operation keeps outstanding, and their sum over the device:
   * the load that sets the DRAM latency (memory/loaded-latency.ts) when a step starts.
   */
  private readonly slotDramInFlight: Float64Array;
  private dramInFlight = 0;
  private dramHolders = 0;

  constructor(
    readonly engine: Engine,
    readonly topology: Topology,
    readonly cost: CostModel,
    readonly bus: EventBus,
    graph: TaskGraph,
    slotPartitions: readonly number[],
    granularityBytes: number,
    /**
     * How a unit streams tiles that carry no pipeline of their own: bytes in flight (a
     * tile's reads take at least Σ bytes × latency / that, Little's law) and the contexts
     * that overlap compute with memory.
     */
    private readonly pipeline: TilePipeline,
    /** Called when the operation a slot started has completed. */
    private readonly onOpDone: (slot: number) => void,
    /**
     * The compute unit of each slot, when several workgroups are resident on one unit
     * (occupancy > 1): they share its pipes, so a tile's compute time is multiplied by the
     * number of that unit's slots running a tile when it starts. Default: a unit per slot.
     */
    slotUnits?: readonly number[],
    /** The interconnect bandwidth to the peers, bytes/ns (multi-device steps). */
    linkBytesPerNs?: number,
  ) {
    this.partitionOf = Int32Array.from(slotPartitions);
    const n = slotPartitions.length;
    this.unitOf = slotUnits ? Int32Array.from(slotUnits) : null;
    this.unitBusy = new Int32Array(slotUnits ? Math.max(0, ...slotUnits) + 1 : 0);
    this.inTile = new Uint8Array(n);
    this.slotDramInFlight = new Float64Array(n);
    this.pending = new Int32Array(n);
    this.stepTile = new Array<Tile | null>(n).fill(null);
    this.stepTask = new Array<Task | null>(n).fill(null);
    this.nextStep = new Int32Array(n);
    this.opStart = new Float64Array(n);
    this.busyNs = new Float64Array(n);
    this.extra = new Float64Array(n);
    // Fills are recorded only where some tile waits on them.
    const tracksFills = pipeline.waitsOnFills === true || graph.tasks.some((t) => t.tiles.some((x) => x.pipeline?.waitsOnFills === true));
    this.memory = new MemorySystem(engine, topology, graph.buffers, { granularityBytes, tracksFills }, (slot) => this.flowDone(slot));
    this.writeBackFree = new Float64Array(this.memory.l2.length);
    this.doneKind = engine.register('op-done', (slot) => this.stepDone(slot));
    this.link = linkBytesPerNs ? new BandwidthResource('link', engine, linkBytesPerNs, linkBytesPerNs, (slot) => this.flowDone(slot)) : null;
  }

  /** The interconnect to the other devices, shared by every tile sending (null on one device). */
  readonly link: BandwidthResource | null;
  /** Bytes the current operation of each slot sends over the link. */
  private linkBytes = 0;

  get slots(): number {
    return this.partitionOf.length;
  }

  /** What a task-start or task-end event says of `task` running on `slot`, now. */
  taskEvent(task: Task, slot: number): TaskEventFields {
    return { t: this.engine.now, task: task.id, kind: task.kind, worker: slot, partition: this.partitionOf[slot]!, layer: task.layer };
  }

  /** Run one tile of `task` on `slot` (step by step if the tile streams in steps). */
  runTile(slot: number, task: Task, tile: Tile): void {
    const steps = tile.steps ?? 1;
    if (this.unitOf && !this.inTile[slot]) {
      this.inTile[slot] = 1;
      this.unitBusy[this.unitOf[slot]!]!++;
    }
    if (steps > 1) {
      this.stepTile[slot] = tile;
      this.stepTask[slot] = task;
      this.nextStep[slot] = 0;
    }
    this.runStep(slot, task, tile, 0, steps);
  }

  private runStep(slot: number, task: Task, tile: Tile, step: number, steps: number): void {
    const t = this.traffic;
    const pipe = tile.pipeline ?? this.pipeline;
    this.memory.resolveTile(tile, this.partitionOf[slot]!, bucketOf(task.layer), t, step, pipe.waitsOnFills === true, pipe.inFlightBytes);
    const share = this.unitOf ? this.unitBusy[this.unitOf[slot]!]! : 1;
    const compute = (this.cost.tileComputeNs(tile, task.kind, task.level, pipe) * share) / steps;
    // Steps are software-pipelined: only the first pays the memory latency; the fixed
    // per-tile overhead (fill, epilogue) is paid once, with the last step. Tiles resident
    // together hide each other's latency and overhead.
    const resident = pipe.residentTiles ?? 1;
    t.latencyNs = step > 0 ? 0 : t.latencyNs / resident;
    const last = step === steps - 1;
    this.linkBytes = last ? (tile.linkBytes ?? 0) : 0;
    this.opComputeNs = compute;
    this.opOverheadNs = last ? (this.cost.tileOverheadNs(task.kind) + (tile.fixedNs ?? 0)) / resident : 0;
    this.startOp(slot, t, pipe);
  }

  private stepDone(slot: number): void {
    const held = this.slotDramInFlight[slot]!;
    if (held > 0) {
      this.slotDramInFlight[slot] = 0;
      // Exactly 0 once nobody holds any: no rounding residue carries into the next layer.
      this.dramHolders--;
      this.dramInFlight = this.dramHolders === 0 ? 0 : Math.max(0, this.dramInFlight - held);
    }
    const tile = this.stepTile[slot];
    if (tile) {
      const steps = tile.steps ?? 1;
      const next = ++this.nextStep[slot]!;
      if (next < steps) {
        this.runStep(slot, this.stepTask[slot]!, tile, next, steps);
        return;
      }
      this.stepTile[slot] = null;
      this.stepTask[slot] = null;
    }
    if (this.unitOf && this.inTile[slot]) {
      this.inTile[slot] = 0;
      this.unitBusy[this.unitOf[slot]!]!--;
    }
    this.onOpDone(slot);
  }

  /**
   * Release fence of `slot`'s L2 at device scope: write back its dirty lines if the scope
   * demands it. Returns the dirty bytes written back.
   */
  runRelease(slot: number, layer: number, fixedNs: number, writeBackDirty: boolean): number {
    const t = this.traffic;
    let bytes = 0;
    let wait = 0;
    if (writeBackDirty) {
      const inst = this.memory.l2Index(this.partitionOf[slot]!);
      const now = this.engine.now;
      const start = Math.max(now, this.writeBackFree[inst]!);
      this.writeBackFree[inst] = start + onGrid(fixedNs);
      wait = start - now;
      this.releaseWaitNs += wait;
      bytes = this.memory.writeBackL2(inst, bucketOf(layer), t);
    } else {
      t.l2Bytes = t.llcBytes = t.hbmBytes = t.latencyNs = t.readLatencyByteNs = t.dramReadLatencyByteNs = 0;
    }
    this.opComputeNs = 0;
    this.opOverheadNs = wait + fixedNs;
    this.startOp(slot, t, this.pipeline);
    return bytes;
  }

  /** How long each L2's write-back path stays busy from now, ns (0 when free): state a layer inherits. */
  writeBackBusyNs(): number[] {
    const now = this.engine.now;
    return Array.from(this.writeBackFree, (t) => Math.max(0, t - now));
  }

  /**
   * Whether the machine is quiescent enough to stand for `layers` repeats of the last layer
   * (`skipLayers`): nothing queued in the engine, nothing loading the DRAM, no fill in flight.
   */
  canSkipLayers(): boolean {
    return this.engine.pending === 0 && this.dramHolders === 0 && this.memory.canSkipLayers();
  }

  /**
   * The machine as it stands `layers` repeats of the last layer later, each `layerNs` long:
   * the clock moved on, the caches' per-layer blocks renamed (`MemorySystem.skipLayers`), the
   * write-back paths' backlog kept relative to the clock. `bucket` is the last layer's; `since`,
   * where given, its counters before the last layer's run began (a persistent launch's earlier
   * iterations), not repeated.
   */
  skipLayers(layers: number, layerNs: number, bucket: number, since?: MemoryCounters): void {
    const dt = layers * layerNs;
    if (!this.engine.jump(dt)) throw new Error('machine: skipping layers with events queued');
    for (let i = 0; i < this.writeBackFree.length; i++) this.writeBackFree[i] = this.writeBackFree[i]! + dt;
    this.memory.skipLayers(layers, bucket, since);
  }

  /** A fixed delay on `slot` (an atomic, a poll, a fetch). */
  runDelay(slot: number, ns: number): void {
    this.engine.after(ns, this.doneKind, slot);
  }

  /**
   * Compute and fixed time of the operation `startOp` starts, ns: fields rather than
   * arguments, since a double passed to a call that is not inlined is boxed.
   */
  private opComputeNs = 0.5;
  private opOverheadNs = 0.5;

  private startOp(slot: number, t: TileTraffic, pipe: TilePipeline): void {
    const computeNs = this.opComputeNs;
    const overheadNs = this.opOverheadNs;
    const now = this.engine.now;
    const dramReadBytes = t.dramReadLatencyByteNs / this.topology.memory.hbm.latencyNs;
    this.loadDramLatency(slot, t, pipe);
    // Compute and the latency-bound read time overlap each other and the transfers, except
    // for the share the pipeline's contexts cannot hide.
    const memoryNs = latencyBoundNs(t.readLatencyByteNs, t.dramReadLatencyByteNs, pipe, dramReadBytes);
    this.opStart[slot] = now;
    this.busyNs[slot] = Math.max(computeNs, memoryNs);
    this.extra[slot] = t.latencyNs + overheadNs + exposedStallNs(computeNs, memoryNs, pipe.overlap);
    const m = this.memory;
    const part = m.l2Index(this.partitionOf[slot]!);
    let flows = 0;
    if (t.l2Bytes > 0) flows++;
    if (t.llcBytes > 0 && m.llcBandwidth) flows++;
    if (t.hbmBytes > 0) flows++;
    const link = this.linkBytes > 0 && this.link ? this.linkBytes : 0;
    this.linkBytes = 0;
    if (link > 0) flows++;
    this.pending[slot] = flows;
    if (flows === 0) {
      this.finish(slot);
      return;
    }
    // Bytes through each resource's field: a double argument would be boxed.
    if (t.l2Bytes > 0) {
      const r = m.l2Bandwidth[part]!;
      r.nextBytes = t.l2Bytes;
      r.startNext(slot);
    }
    if (t.llcBytes > 0 && m.llcBandwidth) {
      m.llcBandwidth.nextBytes = t.llcBytes;
      m.llcBandwidth.startNext(slot);
    }
    if (t.hbmBytes > 0) {
      m.hbmBandwidth.nextBytes = t.hbmBytes;
      m.hbmBandwidth.startNext(slot);
    }
    if (link > 0) this.link!.start(link, slot);
  }

  /**
   * Charge the operation's DRAM reads the latency of the DRAM as loaded now. Its outstanding
   * DRAM bytes join those of every operation in progress, and Little's law over that total
   * (X · L(X) = W) gives the latency all of them see. W counts bytes, not rates, so it
   * follows from who is in flight without iterating. An operation holds its pipeline's DRAM
   * in-flight bytes (at most what it reads) for the share of its time its DRAM stream takes:
   * one bound by compute or by on-chip hits issues its DRAM reads more sparsely.
   */
  private loadDramLatency(slot: number, t: TileTraffic, pipe: TilePipeline): void {
    const hbm = this.topology.memory.hbm;
    if (!hbm.loadedLatency || t.dramReadLatencyByteNs <= 0) return;
    const computeNs = this.opComputeNs;
    const dramReadBytes = t.dramReadLatencyByteNs / hbm.latencyNs;
    // An issue-limited stream keeps its rate × latency outstanding and is not slowed by the load.
    const issued = pipe.dramBytesPerNs !== undefined;
    const dramLimit = issued ? pipe.dramBytesPerNs! * hbm.latencyNs : (pipe.dramInFlightBytes ?? pipe.inFlightBytes);
    const dramNs = t.dramReadLatencyByteNs / dramLimit;
    const busyNs = Math.max(computeNs, latencyBoundNs(t.readLatencyByteNs, t.dramReadLatencyByteNs, pipe, dramReadBytes));
    const duty = busyNs > 0 ? Math.min(1, dramNs / busyNs) : 1;
    const own = Math.min(dramReadBytes, dramLimit) * duty;
    if (own > 0) {
      this.slotDramInFlight[slot] = own;
      this.dramHolders++;
      this.dramInFlight += own;
    }
    if (issued) return;
    const extra = t.dramReadLatencyByteNs * (dramLatencyAtInFlight(hbm, this.dramInFlight) / hbm.latencyNs - 1);
    t.readLatencyByteNs += extra;
    t.dramReadLatencyByteNs += extra;
  }

  private flowDone(slot: number): void {
    if (--this.pending[slot]! === 0) this.finish(slot);
  }

  /** The operation on `slot` has its bytes now. */
  private finish(slot: number): void {
    const now = this.engine.now;
    // Memory latency is paid once per operation (accesses pipeline); compute overlaps memory.
    // Relative to now (the start is a grid time, so `now - start` is exact): a shifted schedule ends alike.
    const computeLeft = Math.max(0, this.busyNs[slot]! - (now - this.opStart[slot]!));
    this.engine.nextDelay = computeLeft + this.extra[slot]!;
    this.engine.afterNext(this.doneKind, slot);
  }
}
