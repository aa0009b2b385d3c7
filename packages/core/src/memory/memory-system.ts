import { onGrid, type Engine } from '../engine/engine.js';
import { parseLayerName } from '../graph/op-graph.js';
import type { BufferSpec, Region, Tile } from '../graph/task-graph.js';
import type { LevelCounters } from '../protocol/events.js';
import type { Topology } from '../topology/topology.js';
import { BandwidthResource } from './bandwidth-resource.js';
import { Cache, maskPopcount, type AccessResult, type SectorMask } from './cache.js';
import { FillTimes } from './fill-times.js';
import { homeHalf } from './placement.js';

/** Lines per cache block: the valid masks have this many bits. */
const MAX_SECTORS = 128;

/** Traffic of one tile, resolved against the caches at the moment it starts. */
export interface TileTraffic {
  /** Bytes through the requester's L2 (hits, fills and writes). */
  l2Bytes: number;
  /** Bytes the memory-side LLC serves or absorbs. */
  llcBytes: number;
  /** Bytes read from / written to HBM. */
  hbmBytes: number;
  /** Latency of the slowest level touched, ns. */
  latencyNs: number;
  /**
   * Σ bytes read × latency of the level that served them, byte·ns. Over a compute unit's
   * bytes in flight this is the Little's-law time the reads need at least.
   */
  readLatencyByteNs: number;
  /** The part of `readLatencyByteNs` served from DRAM (HBM), byte·ns. */
  dramReadLatencyByteNs: number;
}

export interface MemoryCounters {
  l2: LevelCounters;
  llc: LevelCounters;
  hbmReadBytes: number;
  hbmWriteBytes: number;
  /**
   * Bytes read past the L2 (its read misses and bypassing reads), whether the LLC or HBM
   * served them: what L2-to-fabric request counters (CDNA `TCC_EA_RDREQ`) measure.
   */
  fabricReadBytes: number;
}

function zeroLevel(): LevelCounters {
  return { hitBytes: 0, missBytes: 0, bypassBytes: 0, writeBackBytes: 0 };
}

export function zeroCounters(): MemoryCounters {
  return { l2: zeroLevel(), llc: zeroLevel(), hbmReadBytes: 0, hbmWriteBytes: 0, fabricReadBytes: 0 };
}

export function addCounters(into: MemoryCounters, c: MemoryCounters, scale = 1): void {
  for (const lvl of ['l2', 'llc'] as const) {
    into[lvl].hitBytes += c[lvl].hitBytes * scale;
    into[lvl].missBytes += c[lvl].missBytes * scale;
    into[lvl].bypassBytes += c[lvl].bypassBytes * scale;
    into[lvl].writeBackBytes += c[lvl].writeBackBytes * scale;
  }
  into.hbmReadBytes += c.hbmReadBytes * scale;
  into.hbmWriteBytes += c.hbmWriteBytes * scale;
  into.fabricReadBytes += c.fabricReadBytes * scale;
}

/** L2 hit rate over all L2 accesses (reads and writes) that the L2 looked up. */
export function l2HitRate(c: MemoryCounters): number {
  const total = c.l2.hitBytes + c.l2.missBytes;
  return total === 0 ? 0 : c.l2.hitBytes / total;
}

export interface MemorySystemOptions {
  /** Simulation granularity: caches track blocks of this many bytes (≥ the line size). */
  granularityBytes: number;
  /**
   * Record when each read miss's fill lands, for tiles that wait on fills (`resolveTile`'s
   * `waitOnFills`). Off when no tile does: the record would never be read.
   */
  tracksFills?: boolean;
}

/**
 * The memory hierarchy below the compute units: one L2 per partition (or one shared L2
 * split into halves, each line homed in one), an optional memory-side LLC, HBM; caches decide hits, bandwidth
 * resources decide how long the bytes take. Counters are kept per bucket (the runtime
 * buckets by layer) so sampled layers can be extrapolated.
 */
export class MemorySystem {
  readonly l2: Cache[];
  readonly llc: Cache | null;
  readonly l2Bandwidth: BandwidthResource[];
  readonly llcBandwidth: BandwidthResource | null;
  readonly hbmBandwidth: BandwidthResource;
  readonly blockBytes: number;
  /** Sector size of the valid masks: one L2 line (a block holds at most 128 of them). */
  readonly sectorBytes: number;
  /** The sectors of the block an access touches (reused). */
  private readonly request: SectorMask;
  private readonly bases: readonly number[];
  private readonly shared: boolean;
  private readonly halves: number;
  private readonly partitions: number;
  private readonly counters: MemoryCounters[] = [];
  /**
   * Per private L2 instance: when the fill of a block's last miss arrives, ns (only blocks
   * whose fill may still be outstanding; see `pendingFillNs`).
   */
  private readonly fillReady: FillTimes[];
  /** The same for the memory-side LLC: its fills from HBM. */
  private readonly llcFillReady = new FillTimes();
  private readonly engine: Engine;
  /** The tile being resolved waits on in-flight fills (its pipeline's `waitsOnFills`). */
  private waitOnFills = false;
  /**
   * Bytes the tile's unit keeps in flight (its pipeline's `inFlightBytes`): a step's reads are
   * issued as a stream at that depth, so the access at byte·ns position P of the step is issued
   * P / this ns after the step starts, and its fill lands that much later too. Infinity: all
   * of the step's accesses issue at its start.
   */
  private streamInFlightBytes = Infinity;
  /** When the access being resolved is issued, ns after now (its position in the step's stream). */
  private issueOffsetNs = 0;
  private readonly tracksFills: boolean;
  /** Latencies of the levels, ns (read once: the hot path would otherwise walk the topology per access). */
  private readonly l2LatencyNs: number;
  private readonly farExtraLatencyNs: number;
  private readonly llcLatencyNs: number;
  private readonly hbmLatencyNs: number;
  /** The L2 instance of the partition whose tile is being resolved. */
  private inst = 0;
  /** Byte range within a block that `request` holds the sectors of (-1: none yet). */
  private maskLo = -1;
  private maskHi = -1;
  /** The first sector `request` holds (its fill key with the block): bytes [lo, hi) are never empty. */
  private maskFirst = 0;

  constructor(engine: Engine, topology: Topology, buffers: readonly BufferSpec[], options: MemorySystemOptions, onFlowDone: (flowId: number) => void) {
    const { l2, llc, hbm } = topology.memory;
    this.partitions = topology.partitions.computeUnits.length;
    // One valid bit per line. Were a bit to cover several lines, a read of one line would mark
    // its neighbours present and later reads of them would hit without ever being fetched (a
    // cold op could read less than its bytes from DRAM), so a block holds at most 128 lines.
    this.blockBytes = Math.max(l2.lineBytes, llc?.lineBytes ?? 0, Math.min(options.granularityBytes, MAX_SECTORS * l2.lineBytes));
    this.sectorBytes = Math.max(l2.lineBytes, this.blockBytes / MAX_SECTORS);
    const sectors = this.blockBytes / this.sectorBytes;
    this.shared = l2.organisation === 'shared';
    this.halves = this.shared ? (l2.halves ?? 1) : 1;
    // A shared L2 is modelled as its halves: each holds half the capacity and bandwidth.
    const instances = this.shared ? this.halves : this.partitions;
    const perInstance = this.shared ? l2.capacityBytes / this.halves : l2.capacityBytes;
    const cap = topology.computeUnit.maxBandwidthBytesPerNs;
    this.l2Bandwidth = Array.from(
      { length: instances },
      (_, i) => new BandwidthResource(`l2.${i}`, engine, this.shared ? l2.bandwidthBytesPerNs / this.halves : l2.bandwidthBytesPerNs, cap, onFlowDone),
    );
    this.llcBandwidth = llc ? new BandwidthResource('llc', engine, llc.bandwidthBytesPerNs, cap, onFlowDone) : null;
    this.hbmBandwidth = new BandwidthResource('hbm', engine, hbm.achievableBandwidthBytesPerNs, cap, onFlowDone);
    const layout = layerPeriodicLayout(buffers, this.blockBytes);
    this.bases = layout.bases;
    this.periodBlocks = layout.periodBlocks;
    this.l2 = Array.from({ length: instances }, (_, i) => new Cache(`l2.${i}`, perInstance, this.blockBytes, l2.associativity, sectors, this.periodBlocks));
    this.llc = llc ? new Cache('llc', llc.capacityBytes, this.blockBytes, llc.associativity, sectors, this.periodBlocks) : null;
    this.request = new Int32Array(this.l2[0]!.words);
    this.engine = engine;
    this.fillReady = Array.from({ length: instances }, () => new FillTimes());
    this.tracksFills = options.tracksFills === true;
    this.l2LatencyNs = l2.latencyNs;
    this.farExtraLatencyNs = l2.farExtraLatencyNs ?? 0;
    this.llcLatencyNs = llc?.latencyNs ?? 0;
    this.hbmLatencyNs = hbm.latencyNs;
  }

  /** Record that the fill of `block`'s request for `sectors` lands at `readyNs`. */
  private recordFill(fills: FillTimes, block: number, first: number): void {
    if (!this.tracksFills) return;
    // On the grid after now, so the time left is exact however late the run is.
    fills.readyNs = this.engine.now + onGrid(this.issueOffsetNs + this.fillLatNs);
    fills.nowNs = this.engine.now;
    fills.record(block, first);
  }

  /**
   * A hit on a line whose fill is still on its way (a second worker asking for a weight line
   * the first one missed a moment ago) is a hit in the L2's counters, but the request waits
   * in the L2's miss queue until the fill arrives: it sees the rest of the miss latency, not
   * the hit latency. Workers that share a weight tile in lockstep (FLEET's M-tile traversal)
   * thus gain traffic, not latency. A fill lands at its miss's place in the missing tile's
   * stream (a step issues its reads `streamInFlightBytes` at a time), not all at once, so a
   * follower a little behind still meets the leader's later fills in flight. Returns the
   * latency the hit sees from its own issue, ns. Fills are recorded for every read miss (with
   * `tracksFills`), whoever waits on them; a request is known by its block and first line (a
   * tile step's slice of a row).
   */
  private pendingFillNs(fills: FillTimes, block: number, first: number): void {
    const hitLatencyNs = this.fillLatNs;
    const now = this.engine.now;
    fills.nowNs = now;
    fills.lookup(block, first);
    const left = fills.readyNs - now;
    if (left <= hitLatencyNs) return;
    // Measured from when this request issues in its own step's stream.
    this.fillLatNs = Math.max(hitLatencyNs, left - this.issueOffsetNs);
  }

  /**
   * Latencies handed between the hot path's calls, ns: `pendingFillNs` takes the hit latency
   * and leaves the latency the hit sees, `recordFill` takes the miss latency; `memorySide`
   * leaves its latency in `sideLatNs`. Fields rather than arguments and results, since a
   * double crossing a call that is not inlined is boxed (an allocation per access).
   */
  private fillLatNs = 0.5;
  private sideLatNs = 0.5;

  /**
   * Blocks per layer slot of the address layout (a power of two), or null when the layout is
   * plain sequential (see `layerPeriodicLayout`).
   */
  readonly periodBlocks: number | null;

  /**
   * The caches' contents as seen from the start of decoder layer `layer`, with every block of
   * a per-layer buffer named by its role, offset and how many layers back it belongs to, and
   * every stamp relative to its cache's clock: two layer boundaries with equal states are the
   * same machine state up to the layer translation. Fills still in flight (a later hit on
   * them would wait) are part of it, each with its block so named and the time it has left.
   * Copied now, put in canonical form when the returned function is called (only if the
   * cheaper parts of two states already agree). Null without a layer-periodic layout.
   */
  layerRelativeState(layer: number): (() => Float64Array) | null {
    const P = this.periodBlocks;
    if (P === null) return null;
    const caches = [...this.l2, ...(this.llc ? [this.llc] : [])];
    const snaps = caches.map((c) => c.snapshot());
    const now = this.engine.now;
    const fills = [...this.fillReady, this.llcFillReady].map((f) => f.inFlight(now));
    const label = (block: number) => {
      const slot = Math.floor(block / P);
      const key = block - slot * P;
      return slot === 0 ? key : key + P * (1 + layer - (slot - 1));
    };
    return () => {
      const out = new Float64Array(caches.reduce((n, c) => n + c.stateLength, 0) + fills.reduce((n, f) => n + 1 + f.length, 0));
      let at = 0;
      caches.forEach((c, i) => {
        at = c.appendState(label, out, at, snaps[i]!);
      });
      for (const f of fills) {
        // (block, sector, ns left) triples, ordered by label and sector: where they sit in the table is no state.
        const entries: number[][] = [];
        for (let i = 0; i < f.length; i += 3) entries.push([label(f[i]!), f[i + 1]!, f[i + 2]!]);
        entries.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
        out[at++] = entries.length;
        for (const e of entries) for (const x of e) out[at++] = x;
      }
      return out.subarray(0, at);
    };
  }

  /** Address of a region's first byte in the layout (`layerPeriodicLayout`). */
  regionAddress(r: Region): number {
    return this.bases[r.buffer]! + r.offset;
  }

  /**
   * Whether the memory system can stand for `layers` more layers that repeat the last one
   * (`skipLayers`): a layer-periodic layout and no fill in flight.
   */
  canSkipLayers(): boolean {
    if (this.periodBlocks === null) return false;
    const now = this.engine.now;
    return [...this.fillReady, this.llcFillReady].every((f) => f.inFlight(now).length === 0);
  }

  /**
   * Whether every fill recorded has landed: a later hit on any line sees the hit latency,
   * however long from now it comes. (Stricter than `canSkipLayers`'s test, and O(1).)
   */
  fillsLanded(): boolean {
    const now = this.engine.now;
    if (!this.llcFillReady.landedBy(now)) return false;
    for (const f of this.fillReady) if (!f.landedBy(now)) return false;
    return true;
  }

  /**
   * The memory system as it stands after `layers` more decoder layers that each repeat the
   * last one exactly (a proven steady state, see `SteadyStateProbe`): every cached block of a
   * per-layer buffer renamed to the same role that many layers later, the last layer's counters
   * (bucket `from`, less `since` where given: what the bucket held before that layer ran)
   * added to buckets `from + 1 … from + layers`. Needs `canSkipLayers`.
   */
  skipLayers(layers: number, from: number, since?: MemoryCounters): void {
    const P = this.periodBlocks;
    if (P === null) throw new Error('memory: skipping layers needs a layer-periodic layout');
    for (const c of [...this.l2, ...(this.llc ? [this.llc] : [])]) c.relabel(P, layers * P);
    let last = this.countersOf(from);
    if (since) {
      last = zeroCounters();
      addCounters(last, this.countersOf(from));
      addCounters(last, since, -1);
    }
    // The skipped buckets hold what earlier runs of those layers counted (zero in a first run): adding copies the last layer's.
    for (let b = from + 1; b <= from + layers; b++) addCounters(this.countersOf(b), last);
  }

  /** The L2 instance a compute unit of `partition` uses (a shared L2: its near half). */
  l2Index(partition: number): number {
    return this.shared ? Math.floor((partition * this.halves) / this.partitions) : partition;
  }

  countersOf(bucket: number): MemoryCounters {
    while (this.counters.length <= bucket) this.counters.push(zeroCounters());
    return this.counters[bucket]!;
  }

  /** All buckets, indexed by bucket. */
  allCounters(): readonly MemoryCounters[] {
    return this.counters;
  }

  /**
   * Resolve a tile's accesses against the caches now (so concurrent workers' accesses
   * interleave in simulated time) and return its traffic per level. With `waitOnFills`, a
   * hit on a line still being filled costs the rest of the fill (`pendingFillNs`).
   */
  resolveTile(tile: Tile, partition: number, bucket: number, out: TileTraffic, step = 0, waitOnFills = false, streamInFlightBytes = Infinity): void {
    this.waitOnFills = waitOnFills;
    this.streamInFlightBytes = streamInFlightBytes > 0 ? streamInFlightBytes : Infinity;
    this.issueOffsetNs = 0;
    out.l2Bytes = 0;
    out.llcBytes = 0;
    out.hbmBytes = 0;
    out.latencyNs = 0;
    out.readLatencyByteNs = 0;
    out.dramReadLatencyByteNs = 0;
    const c = this.countersOf(bucket);
    const steps = tile.steps ?? 1;
    const scale = tile.trafficScale ?? 1;
    const before = scale === 1 ? null : this.scratch(c);
    this.inst = this.l2Index(partition);
    for (const r of tile.reads) this.region(r, false, c, out, step, steps);
    if (step === steps - 1) for (const r of tile.writes) this.region(r, true, c, out, 0, 1);
    if (before) {
      // Set sampling: what the sampled accesses did stands for `scale` times as many bytes.
      const f = scale - 1;
      for (const lvl of ['l2', 'llc'] as const) {
        const a = c[lvl];
        const b = before[lvl];
        a.hitBytes += (a.hitBytes - b.hitBytes) * f;
        a.missBytes += (a.missBytes - b.missBytes) * f;
        a.bypassBytes += (a.bypassBytes - b.bypassBytes) * f;
        a.writeBackBytes += (a.writeBackBytes - b.writeBackBytes) * f;
      }
      c.hbmReadBytes += (c.hbmReadBytes - before.hbmReadBytes) * f;
      c.hbmWriteBytes += (c.hbmWriteBytes - before.hbmWriteBytes) * f;
      c.fabricReadBytes += (c.fabricReadBytes - before.fabricReadBytes) * f;
      out.l2Bytes *= scale;
      out.llcBytes *= scale;
      out.hbmBytes *= scale;
      out.readLatencyByteNs *= scale;
      out.dramReadLatencyByteNs *= scale;
    }
  }

  private readonly scratchCounters = zeroCounters();

  /** A copy of `c` in a reused object. */
  private scratch(c: MemoryCounters): MemoryCounters {
    const s = this.scratchCounters;
    for (const lvl of ['l2', 'llc'] as const) {
      s[lvl].hitBytes = c[lvl].hitBytes;
      s[lvl].missBytes = c[lvl].missBytes;
      s[lvl].bypassBytes = c[lvl].bypassBytes;
      s[lvl].writeBackBytes = c[lvl].writeBackBytes;
    }
    s.hbmReadBytes = c.hbmReadBytes;
    s.hbmWriteBytes = c.hbmWriteBytes;
    s.fabricReadBytes = c.fabricReadBytes;
    return s;
  }

  /**
   * Step `step` of `steps` of a region: whole rows when it has at least `steps` rows (a
   * quantized weight's K-steps, a split-K slice's rows), else the same slice of every row.
   * Slices stay as wide as the region's rows allow, so no step reads a fraction of a sector
   * another step reads the rest of.
   */
  private region(r: Region, write: boolean, c: MemoryCounters, out: TileTraffic, step: number, steps: number): void {
    const rows = r.rows ?? 1;
    const stride = r.strideBytes ?? r.bytes;
    const base = this.bases[r.buffer]! + r.offset;
    const G = this.blockBytes;
    let row0 = 0;
    let row1 = rows;
    let lo = 0;
    let hi = r.bytes;
    if (rows >= steps) {
      row0 = Math.floor((step * rows) / steps);
      row1 = Math.floor(((step + 1) * rows) / steps);
    } else {
      lo = Math.floor((step * r.bytes) / steps);
      hi = Math.floor(((step + 1) * r.bytes) / steps);
    }
    if (hi <= lo) return;
    const policy = r.policy;
    const nontemporal = policy === 'nontemporal';
    const streaming = policy === 'streaming';
    const shared = this.shared;
    // Addresses are integers below 2⁵³: the running block start is exact.
    for (let row = row0; row < row1; row++) {
      const start = base + row * stride + lo;
      const end = base + row * stride + hi;
      let b = Math.floor(start / G);
      for (let at = b * G; at < end; b++, at += G) {
        const bLo = start > at ? start - at : 0;
        const bHi = end < at + G ? end - at : G;
        const sectors = this.sectorMask(bLo, bHi);
        if (nontemporal) this.bypassBlock(b, bHi - bLo, sectors, write, c, out);
        else if (shared) this.sharedBlock(b, bHi - bLo, sectors, write, streaming, c, out);
        else this.block(b, bHi - bLo, sectors, write, streaming, c, out);
      }
    }
  }

  /** Sectors covering bytes [lo, hi) of a block, in the reused request mask (kept from the last call when the range is the same). */
  private sectorMask(lo: number, hi: number): SectorMask {
    const m = this.request;
    if (lo === this.maskLo && hi === this.maskHi) return m;
    this.maskLo = lo;
    this.maskHi = hi;
    const a = (lo / this.sectorBytes) | 0;
    this.maskFirst = a;
    const b = Math.ceil(hi / this.sectorBytes);
    for (let w = 0; w < m.length; w++) {
      const from = Math.max(a - 32 * w, 0);
      const to = Math.min(b - 32 * w, 32);
      m[w] = to <= from ? 0 : to - from >= 32 ? -1 : (((1 << (to - from)) - 1) << from) | 0;
    }
    return m;
  }

  /** Where this access sits in the step's stream: the reads before it went out first. */
  private issueAt(out: TileTraffic): void {
    this.issueOffsetNs = this.tracksFills ? out.readLatencyByteNs / this.streamInFlightBytes : 0;
  }

  /** A nontemporal access: bypasses L2, straight to the memory side; a store makes any L2 copy stale. */
  private bypassBlock(block: number, bytes: number, sectors: SectorMask, write: boolean, c: MemoryCounters, out: TileTraffic): void {
    this.issueAt(out);
    c.l2.bypassBytes += bytes;
    if (write) this.l2[this.inst]!.invalidate(block, sectors);
    this.memorySide(block, write ? bytes : this.lineBytesOf(sectors), sectors, write, c, out);
    const lat = this.sideLatNs;
    if (lat > out.latencyNs) out.latencyNs = lat;
  }

  /** An access through the requester's private L2. */
  private block(block: number, bytes: number, sectors: SectorMask, write: boolean, streaming: boolean, c: MemoryCounters, out: TileTraffic): void {
    this.issueAt(out);
    out.l2Bytes += bytes;
    const inst = this.inst;
    const l2Lat = this.l2LatencyNs;
    const res = this.l2[inst]!.accessMask(block, write ? bytes : 0, streaming, sectors);
    // The fill a hit waits on is looked up before any double is computed: a double local live
    // across a call that is not inlined gets boxed (an allocation per access). For the same
    // reason each latency goes straight into the tile's maximum, and `memorySide` leaves its
    // latency in a field.
    const hitRead = !write && bytes * res.hitFraction > 0;
    this.fillLatNs = l2Lat;
    if (hitRead && this.waitOnFills) this.pendingFillNs(this.fillReady[inst]!, block, this.maskFirst);
    const hitBytes = bytes * res.hitFraction;
    c.l2.hitBytes += hitBytes;
    if (hitRead) {
      const lat = this.fillLatNs;
      out.readLatencyByteNs += hitBytes * lat;
      if (lat > out.latencyNs) out.latencyNs = lat;
    } else if (l2Lat > out.latencyNs) out.latencyNs = l2Lat;
    if (hitBytes < bytes) {
      c.l2.missBytes += bytes - hitBytes;
      if (!write) {
        const missSectors = res.miss;
        this.memorySide(block, this.lineBytesOf(missSectors), missSectors, false, c, out);
        this.fillLatNs = this.sideLatNs;
        this.recordFill(this.fillReady[inst]!, block, this.maskFirst);
        if (this.sideLatNs > out.latencyNs) out.latencyNs = this.sideLatNs;
      }
    }
    if (res.evictedDirtyBytes > 0) this.writeBackEvicted(res, c, out);
  }

  /**
   * A shared L2 split into halves (Hopper), as measured on H100: every line has a home half;
   * a read looks in the requester's near half first, and a miss there is served by the home
   * half at the far latency and leaves a copy near (reads replicate); stores go to the home
   * half and make copies elsewhere stale.
   */
  private sharedBlock(block: number, bytes: number, sectors: SectorMask, write: boolean, streaming: boolean, c: MemoryCounters, out: TileTraffic): void {
    this.issueAt(out);
    out.l2Bytes += bytes;
    const l2Lat = this.l2LatencyNs;
    const near = this.inst;
    const home = this.halfOf(block);
    const farLat = l2Lat + (home === near ? 0 : this.farExtraLatencyNs);
    if (write) {
      for (let h = 0; h < this.l2.length; h++) if (h !== home) this.l2[h]!.invalidate(block, sectors);
      const res = this.l2[home]!.accessMask(block, bytes, streaming, sectors);
      const hit = bytes * res.hitFraction;
      c.l2.hitBytes += hit;
      c.l2.missBytes += bytes - hit;
      if (res.evictedDirtyBytes > 0) this.writeBackEvicted(res, c, out);
      if (farLat > out.latencyNs) out.latencyNs = farLat;
      return;
    }
    const resNear = this.l2[near]!.accessMask(block, 0, streaming, sectors);
    const nearHit = bytes * resNear.hitFraction;
    const missSectors = resNear.miss;
    if (resNear.evictedDirtyBytes > 0) this.writeBackEvicted(resNear, c, out);
    c.l2.hitBytes += nearHit;
    out.readLatencyByteNs += nearHit * l2Lat;
    // Each latency the access sees goes straight into the tile's maximum (a running maximum in
    // a local, live across the calls, would be boxed).
    let rest = bytes - nearHit;
    if (rest > 0 && home !== near) {
      const resHome = this.l2[home]!.accessMask(block, 0, streaming, missSectors);
      const homeHit = rest * resHome.hitFraction;
      const stillMissing = resHome.miss;
      if (resHome.evictedDirtyBytes > 0) this.writeBackEvicted(resHome, c, out);
      c.l2.hitBytes += homeHit;
      out.readLatencyByteNs += homeHit * farLat;
      if (farLat > out.latencyNs) out.latencyNs = farLat;
      rest -= homeHit;
      if (rest > 0) {
        c.l2.missBytes += rest;
        this.memorySide(block, this.lineBytesOf(stillMissing), stillMissing, false, c, out);
        if (this.sideLatNs > out.latencyNs) out.latencyNs = this.sideLatNs;
      }
      return;
    }
    if (l2Lat > out.latencyNs) out.latencyNs = l2Lat;
    if (rest > 0) {
      c.l2.missBytes += rest;
      this.memorySide(block, this.lineBytesOf(missSectors), missSectors, false, c, out);
      if (this.sideLatNs > out.latencyNs) out.latencyNs = this.sideLatNs;
    }
  }

  /**
   * Bytes a read of `sectors` fetches from below: whole lines, as the hardware does. Counting
   * only the requested bytes would undercount a read of part of a line whose rest later hits.
   */
  private lineBytesOf(sectors: SectorMask): number {
    return maskPopcount(sectors) * this.sectorBytes;
  }

  /** An access evicted a dirty block: write it back to the memory side. */
  private writeBackEvicted(res: AccessResult, c: MemoryCounters, out: TileTraffic): void {
    if (res.evictedDirtyBytes <= 0) return;
    c.l2.writeBackBytes += res.evictedDirtyBytes;
    this.memorySide(res.evictedBlock, res.evictedDirtyBytes, res.evicted, true, c, out);
  }

  /** A read or write that reaches the memory side (LLC if any, else HBM); returns its latency. */
  /** A read or write that reaches the memory side; its latency goes to `sideLatNs`. */
  private memorySide(block: number, bytes: number, sectors: SectorMask, write: boolean, c: MemoryCounters, out: TileTraffic): void {
    if (!write) c.fabricReadBytes += bytes;
    if (!this.llc) {
      const hbmLat = this.hbmLatencyNs;
      out.hbmBytes += bytes;
      if (write) c.hbmWriteBytes += bytes;
      else {
        c.hbmReadBytes += bytes;
        out.readLatencyByteNs += bytes * hbmLat;
        out.dramReadLatencyByteNs += bytes * hbmLat;
      }
      this.sideLatNs = hbmLat;
      return;
    }
    out.llcBytes += bytes;
    const res = this.llc.accessMask(block, write ? bytes : 0, false, sectors);
    // Another XCD's miss on the same line a moment ago: the LLC holds the read until its fill
    // lands (looked up first: no double is kept across the call).
    this.fillLatNs = this.llcLatencyNs;
    if (!write && this.waitOnFills && bytes * res.hitFraction > 0) this.pendingFillNs(this.llcFillReady, block, firstSector(sectors));
    const hitLat = this.fillLatNs;
    const hbmLat = this.hbmLatencyNs;
    if (res.evictedDirtyBytes > 0) {
      c.llc.writeBackBytes += res.evictedDirtyBytes;
      c.hbmWriteBytes += res.evictedDirtyBytes;
      out.hbmBytes += res.evictedDirtyBytes;
    }
    const hitBytes = bytes * res.hitFraction;
    c.llc.hitBytes += hitBytes;
    if (!write) {
      out.readLatencyByteNs += hitBytes * hitLat + (bytes - hitBytes) * hbmLat;
      out.dramReadLatencyByteNs += (bytes - hitBytes) * hbmLat;
    }
    if (hitBytes >= bytes || write) {
      c.llc.missBytes += bytes - hitBytes;
      this.sideLatNs = hitLat;
      return;
    }
    c.llc.missBytes += bytes - hitBytes;
    c.hbmReadBytes += bytes - hitBytes;
    out.hbmBytes += bytes - hitBytes;
    this.sideLatNs = hbmLat;
    if (!write) {
      this.fillLatNs = hbmLat;
      this.recordFill(this.llcFillReady, block, firstSector(sectors));
    }
  }

  private halfOf(block: number): number {
    // Like the set index, the home half depends on the address within a layer slot only.
    // A slot is a power of two of blocks: the remainder is a mask (block ids are non-negative).
    const key = this.periodBlocks === null ? block : block & (this.periodBlocks - 1);
    return homeHalf(key, this.halves);
  }

  /**
   * Write back every dirty line of one L2 instance (a CDNA `buffer_wbl2`, or the
   * end-of-kernel write-back); returns the bytes and accounts them in `bucket`.
   */
  writeBackL2(instance: number, bucket: number, out: TileTraffic): number {
    const c = this.countersOf(bucket);
    out.l2Bytes = 0;
    out.llcBytes = 0;
    out.hbmBytes = 0;
    out.latencyNs = 0;
    out.readLatencyByteNs = 0;
    out.dramReadLatencyByteNs = 0;
    const bytes = this.l2[instance]!.writeBackAll((block, dirty, sectors) => {
      this.memorySide(block, dirty, sectors, true, c, out);
      out.latencyNs = Math.max(out.latencyNs, this.sideLatNs);
    });
    c.l2.writeBackBytes += bytes;
    out.l2Bytes = bytes;
    return bytes;
  }
}

/**
 * Where the buffers live, block-aligned. Layer-periodic: the address space is cut into slots
 * of a power-of-two number of blocks; slot 0 holds the buffers that belong to no layer, slot
 * j + 1 those of decoder layer j, each role (`L<j>.w_qkv`, `L<j>.k_cache`…) at the same offset
 * in every slot. The caches index sets (and Hopper's L2 its home half) by the address within
 * a slot, as an address hash sees the low bits, so identical layers meet identical set
 * conflicts and a cache state can be compared across layers. Sequential (period null) when
 * the slots would not fit 31-bit block ids.
 */
export function layerPeriodicLayout(buffers: readonly BufferSpec[], blockBytes: number): { bases: number[]; periodBlocks: number | null } {
  const blocksOf = (b: BufferSpec) => Math.ceil(Math.max(1, b.bytes) / blockBytes);
  const roleOf = (b: BufferSpec) => {
    const n = parseLayerName(b.name);
    return n ? { layer: n.layer, role: `L.${n.role}` } : { layer: -1, role: `#${b.id}` };
  };
  const size = new Map<string, number>();
  let maxLayer = -1;
  for (const b of buffers) {
    const { layer, role } = roleOf(b);
    maxLayer = Math.max(maxLayer, layer);
    size.set(role, Math.max(size.get(role) ?? 0, blocksOf(b)));
  }
  const offset = new Map<string, number>();
  let total = 0;
  for (const [role, n] of size) {
    offset.set(role, total);
    total += n;
  }
  const period = 2 ** Math.ceil(Math.log2(Math.max(1, total)));
  const bases: number[] = [];
  if ((maxLayer + 2) * period < 2 ** 31) {
    for (const b of buffers) {
      const { layer, role } = roleOf(b);
      bases[b.id] = ((layer + 1) * period + offset.get(role)!) * blockBytes;
    }
    return { bases, periodBlocks: period };
  }
  let addr = 0;
  for (const b of buffers) {
    bases[b.id] = addr;
    addr += blocksOf(b) * blockBytes;
  }
  return { bases, periodBlocks: null };
}

/** The first sector a request touches (0 for an empty one): with its block, the key of its fill. */
function firstSector(sectors: SectorMask): number {
  for (let w = 0; w < sectors.length; w++) {
    const m = sectors[w]!;
    if (m !== 0) return 32 * w + (31 - Math.clz32(m & -m));
  }
  return 0;
}
