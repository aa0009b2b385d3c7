/**
 * A specialised simulator for one attention kernel launch on a chiplet GPU: workgroups are
 * placed by the backend's hardware dispatch (CDNA: launch id i → partition i mod X, each
 * partition filling its own compute units; NVIDIA: the next free SM anywhere), each compute
 * unit holds `occupancy` workgroups and shares its matrix pipe among those computing
 * (processor sharing), and every workgroup streams its K/V (or Q/dO) tiles through the
 * per-partition L2 (set-associative LRU, as core's `Cache`), the memory-side LLC when the
 * topology has one, and HBM. Which tiles coexist in an L2 therefore follows from the
 * schedule, not from a formula.
 *
 * Timing: a workgroup's loads overlap its compute (FA2 software-pipelines them), so a chunk
 * of steps costs max(compute, data arrival). Bandwidth resources (each L2 instance, the LLC,
 * HBM, each compute unit's port) are FIFO servers at the topology's bandwidths; latency is
 * that of the deepest level a chunk touches.
 *
 * Why not core's general engine: at 128K context × 128 heads × batch 8 the grid has 10⁹
 * tile visits. Three reductions keep the cache semantics and make it fast:
 * - **Set sampling** along the streams (Kessler et al., "A comparison of trace-sampling
 *   techniques for multi-megabyte caches", 1994): one step in `stepSample` is looked up, in
 *   caches scaled to the same fraction of their capacity, and stands for its chunk of
 *   steps; the distinct data arriving between two uses of a tile — what decides a hit —
 *   keeps its ratio to the capacity. Each owner (a head's K/V, or its Q/dO) is sampled at
 *   its own phase r (steps j ≡ −r mod k, plus step 0 where its streams begin), so sampled
 *   lookups are spread in time as sampled sets are spread in the address space. A stream
 *   keeps one chunk's bundle live, so the scaled cache must hold about two bundles per
 *   concurrent stream (`planSimulation` picks k accordingly).
 * - **Partition sampling**: when no owner is shared by two partitions (the swizzled and the
 *   MHA block-first mappings), partitions interact only through the memory side, so the
 *   first `partitions` of them are simulated with their share of the LLC capacity and of
 *   the LLC and HBM bandwidth, and stand for all.
 * - **Periodic extrapolation** across the grid: only the first `prefix` workgroups (in
 *   dispatch order) are launched; the steady state between the first and last waves gives
 *   a per-workgroup cost that is multiplied out over the remaining workgroups.
 */
import { inputError, type CostModel, type Topology } from '@fleet/core';
import { BundleLru } from './bundle-lru.js';
import { stepBytes, stepTiles, type AttentionKernel } from './decomposition.js';
import { gridSize, groupSize, logicalCoords, mapWorkgroup, type AttentionMapping } from './mappings.js';
import { SlotHeap } from './slot-heap.js';

export interface SimulationPlan {
  mapping: AttentionMapping;
  /** Workgroups resident per compute unit. */
  occupancy: number;
  /** One step in this many is looked up in the caches (scaled by the same factor). */
  stepSample: number;
  /** Workgroups launched (in dispatch order); the rest of the grid is extrapolated. */
  prefix: number;
  /** Launch ids [steadyFrom, steadyTo) whose mean cost is extrapolated (default: all but the first and last wave). */
  steadyFrom?: number;
  steadyTo?: number;
  /**
   * Partitions simulated (round-robin dispatch only): the first n, with n/X of the LLC and
   * of the LLC and HBM bandwidth; valid when no owner is shared across partitions. Default all.
   */
  partitions?: number;
}

export interface SimulationTotals {
  timeNs: number;
  l2HitBytes: number;
  l2MissBytes: number;
  llcHitBytes: number;
  llcMissBytes: number;
  hbmReadBytes: number;
  hbmWriteBytes: number;
}

export interface SimulationResult extends SimulationTotals {
  workgroups: number;
  simulatedWorkgroups: number;
  /** Dispatch-order range whose mean cost was extrapolated, [from, to); empty when nothing was. */
  steadyWindow: [number, number];
  /** Cache lookups made (one per chunk). */
  sampledLookups: number;
  /** Engine events processed. */
  events: number;
}

const TOTAL_KEYS = ['l2HitBytes', 'l2MissBytes', 'llcHitBytes', 'llcMissBytes', 'hbmReadBytes', 'hbmWriteBytes'] as const;

const WAITING = 1;
const COMPUTING = 2;

/** Largest cache block id core's `Cache` accepts (non-negative 31-bit integers). */
const MAX_BLOCK_ID = 2 ** 31 - 1;

/**
 * A bijection on [0, 2³¹): bundle ids are structured (owner × chunks + chunk), and a cache
 * indexing sets by low bits would put every owner's chunk c in one set. Hardware hashes
 * addresses into channels and sets; this scramble plays that part without collisions.
 */
export function scramble31(x: number): number {
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d) & 0x7fffffff;
  x ^= x >>> 12;
  x = Math.imul(x, 0x297a2d39) & 0x7fffffff;
  x ^= x >>> 15;
  return x;
}

/**
 * A cache of `capacity` bytes in `bundle`-sized entries: the topology's associativity, or
 * fully associative when the (sampled) capacity holds fewer entries than that — never
 * rounded up to a whole set, which would inflate a small sampled cache.
 */
function scaledCache(capacity: number, bundle: number, ways: number): BundleLru {
  return new BundleLru(Math.max(1, Math.floor(capacity / bundle)), ways);
}

export class AttentionSimulator {
  private readonly X: number;
  private readonly units: number;
  private readonly slots: number;
  private readonly occ: number;
  private readonly partOf: Int32Array;
  private readonly unitsOfPartition: number[][];
  private readonly roundRobin: boolean;
  private readonly G: number;
  private readonly l2: BundleLru[];
  private readonly llc: BundleLru | null;
  // kernel, per phase
  private readonly ownerKv: boolean[];
  private readonly bytesPerStep: number[];
  private readonly idBase: number[];
  private readonly stepNs: number[];
  private readonly overheadNs: number;
  private readonly idsPerOwner: number;
  // bandwidth servers: [0, l2Count) L2 instances, then LLC, HBM, then one port per unit
  private readonly free: Float64Array;
  private readonly bw: Float64Array;
  private readonly llcServer: number;
  private readonly hbmServer: number;
  private readonly portBase: number;
  private readonly latL2: number;
  private readonly latLlc: number;
  private readonly latHbm: number;
  // slots
  private readonly heap: SlotHeap;
  private readonly wgOf: Int32Array;
  private readonly state: Uint8Array;
  private readonly phaseOf: Int32Array;
  private readonly chunkOf: Int32Array;
  private readonly remaining: Float64Array;
  /** When the loads of the slot's current chunk have arrived. */
  private readonly dataReady: Float64Array;
  /** Owners the slot's workgroup streams (numbered in order of first use), per kind. */
  private readonly ownerQ: Int32Array;
  private readonly ownerK: Int32Array;
  /** Sampling phase of the owners. */
  private readonly phaseQ: Int32Array;
  private readonly phaseK: Int32Array;
  private readonly compactQ: Int32Array;
  private readonly compactKv: Int32Array;
  private owners = 0;
  // units
  private readonly residents: Int32Array;
  private readonly active: Int32Array;
  private readonly lastT: Float64Array;
  /** Next launch id per partition (round-robin) or one for all (greedy). */
  private readonly nextWid: Int32Array;
  /** Partitions simulated (the first n). */
  private readonly simulated: number;
  // per-workgroup statistics, by launch id
  readonly start: Float64Array;
  readonly end: Float64Array;
  /** Streamed bytes by outcome. */
  private readonly sHit: Float64Array;
  private readonly sMiss: Float64Array;
  private readonly sLlcHit: Float64Array;
  /** Bytes only this workgroup reads (compulsory misses) and writes. */
  private readonly compulsory: Float64Array;
  private readonly written: Float64Array;
  private events = 0;
  private lookups = 0;

  constructor(
    topology: Topology,
    cost: CostModel,
    private readonly kernel: AttentionKernel,
    private readonly plan: SimulationPlan,
  ) {
    const cus = topology.partitions.computeUnits;
    this.X = cus.length;
    this.units = cus.reduce((a, b) => a + b, 0);
    this.occ = plan.occupancy;
    this.slots = this.units * this.occ;
    this.partOf = new Int32Array(this.units);
    this.unitsOfPartition = cus.map(() => []);
    let u = 0;
    cus.forEach((n, p) => {
      for (let i = 0; i < n; i++, u++) {
        this.partOf[u] = p;
        this.unitsOfPartition[p]!.push(u);
      }
    });
    this.roundRobin = cost.hardwareDispatch === 'round-robin-partition';
    this.G = gridSize(kernel.grid);
    if (plan.prefix < 1 || plan.prefix > this.G) throw new Error(`prefix ${plan.prefix} outside 1..${this.G}`);
    const k = plan.stepSample;
    this.simulated = this.roundRobin ? Math.min(this.X, Math.max(1, plan.partitions ?? this.X)) : this.X;
    const share = this.simulated / this.X;

    const { l2, llc, hbm } = topology.memory;
    const bundle = Math.max(...kernel.phases.map(stepBytes));
    const shared = l2.organisation === 'shared';
    const l2Count = shared ? 1 : this.X;
    this.l2 = Array.from({ length: l2Count }, () => scaledCache(l2.capacityBytes / k, bundle, l2.associativity));
    this.llc = llc ? scaledCache((llc.capacityBytes * share) / k, bundle, llc.associativity) : null;

    // Bundle ids: owner × idsPerOwner + the phase's offset + chunk, scrambled.
    this.ownerKv = [];
    this.bytesPerStep = [];
    this.idBase = [];
    let base = 0;
    for (const p of kernel.phases) {
      if (new Set(p.streams.map((x) => x.owner)).size !== 1) throw new Error(`phase '${p.name}': streams must share one owner (query head or KV head)`);
      this.ownerKv.push(p.streams[0]!.owner === 'kv');
      this.bytesPerStep.push(stepBytes(p));
      this.idBase.push(base);
      base += Math.ceil(p.steps / k) + 1;
    }
    this.idsPerOwner = base;
    const maxOwners = Math.min(2 * plan.prefix, kernel.grid.batch * (kernel.grid.heads + kernel.grid.kvHeads));
    if (maxOwners * this.idsPerOwner > MAX_BLOCK_ID) {
      throw inputError(`attention grid too large to simulate with a step sample of ${k}: ${maxOwners * this.idsPerOwner} tile bundles exceed 2^31 (sample more steps)`);
    }
    this.stepNs = kernel.phases.map((p) => {
      const t = stepTiles(p);
      return cost.tileComputeNs(t.matrix, 'attention', 'cu') + cost.tileComputeNs(t.vector, 'attention', 'cu');
    });
    this.overheadNs = cost.tileOverheadNs('attention');

    this.llcServer = l2Count;
    this.hbmServer = l2Count + 1;
    this.portBase = l2Count + 2;
    this.free = new Float64Array(this.portBase + this.units);
    this.bw = new Float64Array(this.portBase + this.units);
    for (let i = 0; i < l2Count; i++) this.bw[i] = l2.bandwidthBytesPerNs;
    this.bw[this.llcServer] = llc ? llc.bandwidthBytesPerNs * share : Infinity;
    this.bw[this.hbmServer] = hbm.achievableBandwidthBytesPerNs * share;
    for (let i = 0; i < this.units; i++) this.bw[this.portBase + i] = topology.computeUnit.maxBandwidthBytesPerNs;
    // A shared L2 in halves: on average (halves − 1)/halves of the lines sit in the far half.
    const halves = shared ? (l2.halves ?? 1) : 1;
    this.latL2 = l2.latencyNs + (shared ? ((halves - 1) / halves) * (l2.farExtraLatencyNs ?? 0) : 0);
    this.latLlc = llc ? llc.latencyNs : hbm.latencyNs;
    this.latHbm = hbm.latencyNs;

    this.heap = new SlotHeap(this.slots);
    this.wgOf = new Int32Array(this.slots).fill(-1);
    this.state = new Uint8Array(this.slots);
    this.phaseOf = new Int32Array(this.slots);
    this.chunkOf = new Int32Array(this.slots);
    this.remaining = new Float64Array(this.slots);
    this.dataReady = new Float64Array(this.slots);
    this.ownerQ = new Int32Array(this.slots);
    this.ownerK = new Int32Array(this.slots);
    this.phaseQ = new Int32Array(this.slots);
    this.phaseK = new Int32Array(this.slots);
    this.compactQ = new Int32Array(kernel.grid.batch * kernel.grid.heads).fill(-1);
    this.compactKv = new Int32Array(kernel.grid.batch * kernel.grid.kvHeads).fill(-1);
    this.residents = new Int32Array(this.units);
    this.active = new Int32Array(this.units);
    this.lastT = new Float64Array(this.units);
    this.nextWid = new Int32Array(this.roundRobin ? this.simulated : 1);
    for (let q = 0; q < this.nextWid.length; q++) this.nextWid[q] = q;
    const S = plan.prefix;
    this.start = new Float64Array(S);
    this.end = new Float64Array(S);
    this.sHit = new Float64Array(S);
    this.sMiss = new Float64Array(S);
    this.sLlcHit = new Float64Array(S);
    this.compulsory = new Float64Array(S);
    this.written = new Float64Array(S);
  }

  run(): SimulationResult {
    // Initial fill: each queue deals its workgroups to the least-loaded unit until full.
    for (let q = 0; q < this.nextWid.length; q++) while (this.dispatch(q, 0)) {}
    // The earliest slot stays in the heap while it is handled: its handler re-keys it (one
    // sift instead of a pop and a push) or removes it when its workgroup is done.
    const heap = this.heap;
    while (heap.size > 0) {
      const s = heap.top();
      this.events++;
      this.step(s, heap.time[s]!);
    }
    return this.summarise();
  }

  /** Launch the next workgroup of queue `q` on its least-loaded unit; false when none is left or all are full. */
  private dispatch(q: number, t: number): boolean {
    const wid = this.nextWid[q]!;
    if (wid >= this.plan.prefix) return false;
    const candidates = this.roundRobin ? this.unitsOfPartition[q]! : null;
    let best = -1;
    let bestLoad = this.occ;
    const n = candidates ? candidates.length : this.units;
    for (let i = 0; i < n; i++) {
      const u = candidates ? candidates[i]! : i;
      if (this.residents[u]! < bestLoad) {
        bestLoad = this.residents[u]!;
        best = u;
      }
    }
    if (best < 0) return false;
    this.nextWid[q] = wid + (this.roundRobin ? this.X : 1);
    let slot = best * this.occ;
    while (this.wgOf[slot]! >= 0) slot++;
    this.residents[best]!++;
    this.startWorkgroup(slot, wid, t);
    return true;
  }

  private startWorkgroup(s: number, wid: number, t: number): void {
    const g = this.kernel.grid;
    const c = logicalCoords(mapWorkgroup(this.plan.mapping, wid, g, this.X), g);
    this.wgOf[s] = wid;
    const q = c.batch * g.heads + c.head;
    const kv = c.batch * g.kvHeads + Math.floor(c.head / groupSize(g));
    if (this.compactQ[q]! < 0) this.compactQ[q] = this.owners++;
    if (this.compactKv[kv]! < 0) this.compactKv[kv] = this.owners++;
    this.ownerQ[s] = this.compactQ[q]!;
    this.ownerK[s] = this.compactKv[kv]!;
    this.phaseQ[s] = this.samplingPhase(2 * q);
    this.phaseK[s] = this.samplingPhase(2 * kv + 1);
    this.phaseOf[s] = 0;
    this.chunkOf[s] = 0;
    this.start[wid] = t;
    this.startCompute(s, t);
  }

  /** The phase r at which an owner's steps are sampled. */
  private samplingPhase(ownerKey: number): number {
    return scramble31(ownerKey) % this.plan.stepSample;
  }

  private phaseOffset(s: number, p: number): number {
    return this.ownerKv[p] ? this.phaseK[s]! : this.phaseQ[s]!;
  }

  /** Chunks of a phase of `steps` steps at sampling phase r: [0, k − r), then every k. */
  private chunkCount(steps: number, r: number): number {
    const k = this.plan.stepSample;
    return r === 0 || steps <= k - r ? Math.ceil(steps / k) : 1 + Math.ceil((steps - (k - r)) / k);
  }

  /** Steps in chunk c. */
  private chunkSteps(steps: number, r: number, c: number): number {
    const k = this.plan.stepSample;
    const from = c === 0 ? 0 : c * k - r;
    return Math.min(steps, (c + 1) * k - r) - from;
  }

  /** Resolve chunk `c` of phase `p` against the caches now (one lookup stands for the chunk); returns when its data has arrived. */
  private request(s: number, p: number, c: number, bytes: number, t: number): number {
    const wid = this.wgOf[s]!;
    const u = (s / this.occ) | 0;
    const inst = this.l2.length === 1 ? 0 : this.partOf[u]!;
    let total = bytes;
    let miss = 0;
    let hbm = 0;
    let deepest = this.latL2;
    this.lookups++;
    const id = scramble31((this.ownerKv[p] ? this.ownerK[s]! : this.ownerQ[s]!) * this.idsPerOwner + this.idBase[p]! + c);
    if (this.l2[inst]!.access(id)) this.sHit[wid] += bytes;
    else {
      this.sMiss[wid] += bytes;
      miss = bytes;
      if (this.llc !== null && this.llc.access(id)) {
        this.sLlcHit[wid] += bytes;
        deepest = this.latLlc;
      } else {
        hbm = bytes;
        deepest = this.latHbm;
      }
    }
    const once = c === 0 ? this.kernel.phases[p]!.onceReadBytes : 0;
    if (once > 0) {
      // The workgroup's own rows: nobody else reads them, a compulsory miss down to HBM.
      total += once;
      miss += once;
      hbm += once;
      this.compulsory[wid] += once;
      deepest = this.latHbm;
    }
    let done = this.serve(inst, t, total);
    if (miss > 0 && this.llc) done = Math.max(done, this.serve(this.llcServer, t, miss));
    if (hbm > 0) done = Math.max(done, this.serve(this.hbmServer, t, hbm));
    done = Math.max(done, this.serve(this.portBase + u, t, total));
    return done + deepest;
  }

  private serve(server: number, t: number, bytes: number): number {
    const f = this.free[server]!;
    const done = (f > t ? f : t) + bytes / this.bw[server]!;
    this.free[server] = done;
    return done;
  }

  /** Bring the unit's processor-sharing clock to `t`. */
  private settle(u: number, t: number): void {
    const n = this.active[u]!;
    if (n > 0) {
      const dt = (t - this.lastT[u]!) / n;
      for (let s = u * this.occ; s < (u + 1) * this.occ; s++) if (this.state[s] === COMPUTING) this.remaining[s] = Math.max(0, this.remaining[s]! - dt);
    }
    this.lastT[u] = t;
  }

  private reschedule(u: number, t: number): void {
    const n = this.active[u]!;
    for (let s = u * this.occ; s < (u + 1) * this.occ; s++) if (this.state[s] === COMPUTING) this.heap.set(s, t + this.remaining[s]! * n);
  }

  /** Start the slot's current chunk: issue its loads and compute alongside them. */
  private startCompute(s: number, t: number): void {
    const u = (s / this.occ) | 0;
    this.settle(u, t);
    this.state[s] = COMPUTING;
    this.active[u]!++;
    this.beginChunk(s, t);
    this.reschedule(u, t);
  }

  /** Look up the chunk's tiles and set its compute work; the chunk ends when both are done. */
  private beginChunk(s: number, t: number): void {
    const p = this.phaseOf[s]!;
    const c = this.chunkOf[s]!;
    const steps = this.chunkSteps(this.kernel.phases[p]!.steps, this.phaseOffset(s, p), c);
    this.remaining[s] = steps * this.stepNs[p]! + (p === 0 && c === 0 ? this.overheadNs : 0);
    this.dataReady[s] = this.request(s, p, c, steps * this.bytesPerStep[p]!, t);
  }

  /** Move to the next chunk (or phase); false when the workgroup is done. */
  private advance(s: number, t: number): boolean {
    const p = this.phaseOf[s]!;
    const c = this.chunkOf[s]!;
    if (c + 1 < this.chunkCount(this.kernel.phases[p]!.steps, this.phaseOffset(s, p))) {
      this.chunkOf[s] = c + 1;
      return true;
    }
    this.write(s, p, t);
    if (p + 1 >= this.kernel.phases.length) return false;
    this.phaseOf[s] = p + 1;
    this.chunkOf[s] = 0;
    return true;
  }

  /** The slot's event: its compute finished (COMPUTING) or its data arrived after it (WAITING). */
  private step(s: number, t: number): void {
    const u = (s / this.occ) | 0;
    const computing = this.state[s] === COMPUTING;
    if (computing && this.dataReady[s]! > t) {
      // Compute ran ahead of the loads: release the unit until the data is in.
      this.settle(u, t);
      this.state[s] = WAITING;
      this.active[u]!--;
      this.reschedule(u, t);
      this.heap.set(s, this.dataReady[s]!);
      return;
    }
    if (!this.advance(s, t)) {
      this.settle(u, t);
      if (computing) this.active[u]!--;
      this.state[s] = 0;
      this.reschedule(u, t);
      this.finish(s, u, t);
      return;
    }
    if (computing) {
      // Next chunk right away; the unit's sharing does not change.
      this.settle(u, t);
      this.beginChunk(s, t);
      this.heap.set(s, t + this.remaining[s]! * this.active[u]!);
    } else this.startCompute(s, t);
  }

  /** A phase's output rows: written into L2 (new lines: misses), later written back to HBM. */
  private write(s: number, p: number, t: number): void {
    const bytes = this.kernel.phases[p]!.writeBytes;
    if (bytes === 0) return;
    const u = (s / this.occ) | 0;
    this.written[this.wgOf[s]!] += bytes;
    this.serve(this.l2.length === 1 ? 0 : this.partOf[u]!, t, bytes);
    if (this.llc) this.serve(this.llcServer, t, bytes);
    this.serve(this.hbmServer, t, bytes);
  }

  private finish(s: number, u: number, t: number): void {
    this.heap.remove(s);
    this.end[this.wgOf[s]!] = t;
    this.wgOf[s] = -1;
    this.residents[u]!--;
    this.dispatch(this.roundRobin ? this.partOf[u]! : 0, t);
  }

  /** Totals over the workgroups ids[from..to). */
  private totals(ids: readonly number[], from: number, to: number): Omit<SimulationTotals, 'timeNs'> {
    let hit = 0;
    let miss = 0;
    let llcHit = 0;
    let compulsory = 0;
    let written = 0;
    for (let j = from; j < to; j++) {
      const i = ids[j]!;
      hit += this.sHit[i]!;
      miss += this.sMiss[i]!;
      llcHit += this.sLlcHit[i]!;
      compulsory += this.compulsory[i]!;
      written += this.written[i]!;
    }
    return {
      l2HitBytes: hit,
      l2MissBytes: miss + compulsory + written,
      llcHitBytes: llcHit,
      llcMissBytes: this.llc ? miss - llcHit + compulsory : 0,
      hbmReadBytes: miss - llcHit + compulsory,
      hbmWriteBytes: written,
    };
  }

  private summarise(): SimulationResult {
    const S = this.plan.prefix;
    const G = this.G;
    // Launch ids simulated: all of the prefix, or those dealt to the simulated partitions.
    const ids: number[] = [];
    for (let i = 0; i < S; i++) if (!this.roundRobin || i % this.X < this.simulated) ids.push(i);
    const scale = this.roundRobin ? this.X / this.simulated : 1;
    let timeNs = 0;
    for (const i of ids) if (this.end[i]! > timeNs) timeNs = this.end[i]!;
    const totals: SimulationTotals = { timeNs, ...this.totals(ids, 0, ids.length) };
    for (const key of TOTAL_KEYS) totals[key] *= scale;
    let window: [number, number] = [S, S];
    if (S < G) {
      // Steady state: the planned window, or all but the first and last wave.
      const edge = Math.min(this.slots / scale, Math.floor(ids.length / 4));
      let from = this.plan.steadyFrom === undefined ? edge : ids.findIndex((i) => i >= this.plan.steadyFrom!);
      let to = this.plan.steadyTo === undefined ? ids.length - edge : ids.findIndex((i) => i >= this.plan.steadyTo!);
      if (from < 0) from = 0;
      if (to < 0) to = ids.length;
      to = Math.max(from + 1, to);
      window = [ids[from]!, ids[to - 1]! + 1];
      // Slots stay full in the steady state, so one workgroup costs its residency over the
      // number of slots (robust to waves that start in lockstep).
      let residency = 0;
      for (let i = from; i < to; i++) residency += this.end[ids[i]!]! - this.start[ids[i]!]!;
      const n = to - from;
      const rest = G - S;
      totals.timeNs += (rest * residency) / n / this.slots;
      const steady = this.totals(ids, from, to);
      for (const key of TOTAL_KEYS) totals[key] += (rest * steady[key]) / n;
    }
    return { ...totals, workgroups: G, simulatedWorkgroups: ids.length, steadyWindow: window, sampledLookups: this.lookups, events: this.events };
  }
}
