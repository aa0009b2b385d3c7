/**
 * Hardware description as plain data. Every backend contributes one `Topology`, validated
 * against `topologySchema` (JSON Schema 2020-12, ajv strict mode) before use.
 *
 * Units, everywhere: bytes, nanoseconds, bytes per nanosecond (1 TB/s = 1000 B/ns),
 * FLOP per nanosecond per compute unit.
 */

/** Where a cache places a newly fetched line and what it does with stores. */
export type CacheAllocation = 'write-back' | 'write-through';

/** Access policy carried by a memory request. */
export type AccessPolicy =
  /** allocate in the cache, most-recently-used position */
  | 'default'
  /** allocate, but at the LRU position: evicted first (CDNA sc1+nt loads) */
  | 'streaming'
  /** bypass the cache entirely (CDNA nt stores) */
  | 'nontemporal';

export interface CacheSpec {
  capacityBytes: number;
  lineBytes: number;
  associativity: number;
  /** Sustained bandwidth of one instance, bytes/ns. */
  bandwidthBytesPerNs: number;
  /** Load-to-use latency of a hit, ns. */
  latencyNs: number;
  writePolicy: CacheAllocation;
  replacement: 'lru';
}

export interface L2Spec extends CacheSpec {
  /**
   * `per-partition`: one private instance per partition (CDNA XCD L2).
   * `shared`: one device-wide cache split into `halves` physical halves; an access to the
   * half that is not the requester's adds `farExtraLatencyNs` (Hopper's partitioned L2).
   */
  organisation: 'per-partition' | 'shared';
  halves?: number;
  farExtraLatencyNs?: number;
}

export interface LlcSpec extends CacheSpec {
  /** A memory-side cache (AMD MALL) caches HBM traffic of every partition. */
  memorySide: true;
}

export interface HbmSpec {
  capacityBytes: number;
  peakBandwidthBytesPerNs: number;
  /** What a streaming kernel achieves; the simulator's bandwidth resource uses this. */
  achievableBandwidthBytesPerNs: number;
  /** Unloaded read latency (a lone dependent read), ns. */
  latencyNs: number;
  /**
   * How the latency grows with load (memory/loaded-latency.ts): latencyNs + queueNs · ρ/(1 − ρ)
   * at ρ = delivered bandwidth / saturationBytesPerNs. Omitted: the latency is constant.
   */
  loadedLatency?: LoadedLatencySpec;
}

export interface LoadedLatencySpec {
  /** Queueing delay at half the saturation bandwidth, ns. */
  queueNs: number;
  /** Bandwidth at which the queue diverges, bytes/ns (a fit parameter, at or above what streams achieve). */
  saturationBytesPerNs: number;
}

export interface ComputeUnitSpec {
  /** Lanes of one wavefront/warp. */
  simdWidth: number;
  simdsPerUnit: number;
  registerFileBytes: number;
  sharedMemoryBytes: number;
  l1: CacheSpec;
  /** Dense matrix throughput per compute unit, FLOP/ns, by element type. */
  matrixFlopsPerNs: { bf16: number; fp16: number; fp8?: number };
  /** Vector (non-matrix) fp32 throughput per compute unit, FLOP/ns. */
  vectorFlopsPerNs: number;
  /** Most bytes/ns one compute unit can pull from the memory system. */
  maxBandwidthBytesPerNs: number;
}

export interface PartitionSpec {
  /** `xcd`, `gpc`, `die`… what the vendor calls it. */
  kind: string;
  /** Compute units in each partition, in order. Its length is the partition count. */
  computeUnits: number[];
}

export type CoherenceScopeName = 'wave' | 'group' | 'chiplet' | 'device' | 'system';

/** Where an atomic at this scope resolves. */
export type AtomicSite = 'l1' | 'lds' | 'dsmem' | 'l2' | 'llc' | 'memory';

export interface CoherenceScope {
  scope: CoherenceScopeName;
  atomicResolvesAt: AtomicSite;
  atomicLatencyNs: number;
  /** Release fence: fixed part, plus a part proportional to dirty bytes written back. */
  release: { fixedNs: number; writeBackDirty: boolean };
  acquire: { fixedNs: number; invalidates: boolean };
}

/** How the four task levels land on this hardware. */
export interface LevelMapping {
  wavefront: { unit: string; lanes: number };
  cu: { unit: string };
  /** The chiplet level: a partition (`unit: 'xcd'`) or a thread-block cluster (`'cluster'`). */
  chiplet: { unit: string; maxSize?: number };
  device: { unit: string };
}

export interface Topology {
  name: string;
  description: string;
  clockGHz: number;
  partitions: PartitionSpec;
  computeUnit: ComputeUnitSpec;
  memory: { l2: L2Spec; llc?: LlcSpec; hbm: HbmSpec };
  coherence: CoherenceScope[];
  levels: LevelMapping;
  /**
   * Provenance: JSON pointer of a field (e.g. `/memory/hbm/achievableBandwidthBytesPerNs`)
   * to where its value comes from (datasheet, paper, measurement, assumption).
   */
  sources: Record<string, string>;
}

/** Total compute units of a topology. */
export function totalComputeUnits(t: Topology): number {
  return t.partitions.computeUnits.reduce((a, b) => a + b, 0);
}

export function partitionCount(t: Topology): number {
  return t.partitions.computeUnits.length;
}

export function coherenceScope(t: Topology, scope: CoherenceScopeName): CoherenceScope {
  const s = t.coherence.find((c) => c.scope === scope);
  if (!s) throw new Error(`topology ${t.name} defines no coherence scope '${scope}'`);
  return s;
}
