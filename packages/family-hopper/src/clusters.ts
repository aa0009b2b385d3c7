/**
 * Thread-block clusters on Hopper: where they can be placed, how many fit at once, and DSMEM,
 * the SM-to-SM network their CTAs share memory through. Parameters come from our own
 * microbenchmarks on an H100 SXM5 (`reference/h100-microbench-ours.json`); every GH100 part
 * (H100, H200) has the same GPCs, clusters and DSMEM.
 */
import { H100_CLOCK_GHZ } from './reference/topology.js';
import { clusterBarrierCycles, dsmemLatencyCycles, OURS } from './reference/calibration.js';

/** Largest cluster: 8 portable, 16 with the non-portable attribute on H100 (DS S43/S46/S47). */
export const MAX_CLUSTER_SIZE = 16;

/**
 * Groups of SMs that can hold the CTAs of one cluster, largest first (ours: SMs that ever
 * share a cluster, joined by union-find over 120 cluster launches of sizes 16/8/4/2). Seven
 * GPCs of 18, 18, 16, 16, 16, 16, 16 SMs; the eighth GPC's 16 SMs split into a group of 8 and
 * four TPC pairs that only ever pair with each other.
 */
export const CLUSTER_DOMAINS: readonly number[] = Object.freeze([...OURS.gpcs.clusterDomainSizes]);

function checkSize(clusterSize: number): void {
  if (!Number.isInteger(clusterSize) || clusterSize < 1 || clusterSize > MAX_CLUSTER_SIZE) {
    throw new RangeError(`cluster size must be an integer in 1..${MAX_CLUSTER_SIZE} (got ${clusterSize})`);
  }
}

/**
 * Clusters of `clusterSize` CTAs that can be resident at once: every cluster lives inside one
 * placement domain (a GPC), so a domain of d SMs holding `ctasPerSm` CTAs each fits
 * ⌊d · ctasPerSm / size⌋ of them. Derived from the domain sizes, not tabulated (checked
 * against `cudaOccupancyMaxActiveClusters` at one CTA per SM).
 */
export function maxActiveClusters(clusterSize: number, domains: readonly number[] = CLUSTER_DOMAINS, ctasPerSm = 1): number {
  checkSize(clusterSize);
  return domains.reduce((s, d) => s + Math.floor((d * ctasPerSm) / clusterSize), 0);
}

/**
 * CTAs of ClusterFusion's fused attention kernel per SM: ≈ 101 KB of dynamic shared memory
 * each (seedcode §2) against 228 KB per SM (DS S37) leaves room for two.
 */
export const CLUSTERFUSION_CTAS_PER_SM = Math.floor(233472 / (101312 + 1024));

/** One TMA box of ClusterFusion's weight stream: 64 rows × 128 fp16 (seedcode §2, TMA_LOAD_ONCE). */
export const CLUSTERFUSION_TMA_BOX_BYTES = 64 * 128 * 2;

/**
 * How a CTA of ClusterFusion's fused kernel streams W_qkv, the KV cache and W_o (seedcode §2,
 * kernel.cuh): thread 0 issues the TMA copy of box i into one of two shared-memory buffers
 * before the CTA waits on box i − 1, so two 16 KB boxes are in flight (the attention loop
 * double-buffers an 8 KB K box and an 8 KB V box: the same 32 KB), and the CTA's dot products
 * run on one buffer while the other fills.
 */
export const CLUSTERFUSION_TMA_PIPELINE = Object.freeze({ inFlightBytes: 2 * CLUSTERFUSION_TMA_BOX_BYTES, overlap: 2 });

/** SMs busy when the grid is sized to `maxActiveClusters` (1 CTA per SM). */
export function activeSms(clusterSize: number, domains: readonly number[] = CLUSTER_DOMAINS): number {
  return clusterSize * maxActiveClusters(clusterSize, domains);
}

/** DSMEM: remote shared-memory access between the CTAs of a cluster. */
export interface DsmemSpec {
  /** Remote load latency, ns, by cluster size. */
  latencyNs(clusterSize: number): number;
  /** One CTA's remote-read rate when its cluster runs alone, bytes/ns. */
  readBytesPerNsPerCta(clusterSize: number): number;
  /** One CTA's remote-write rate when its cluster runs alone, bytes/ns. */
  writeBytesPerNsPerCta(clusterSize: number): number;
  /** All SMs together, every cluster reading its neighbour (max active clusters), bytes/ns. */
  aggregateReadBytesPerNs(clusterSize: number): number;
  /** barrier.cluster arrive.release + wait.acquire, ns. */
  barrierNs(clusterSize: number): number;
}

const bw = (op: 'read' | 'write', grid: 'one-cluster' | 'max-active-clusters', n: number) => {
  const rows = OURS.dsmemBandwidth.rows.filter((r) => r.op === op && r.grid === grid);
  const row = rows.find((r) => r.cluster >= n) ?? rows[rows.length - 1]!;
  return grid === 'one-cluster' ? row.perCtaBytesPerNs : row.totalTBps * 1000;
};

/** Ours: 192 cycles at size 2, ≈ 207 at 4–16; 33.5 B/ns read and 40 B/ns write per CTA (28 / 33 at 16); 2.7–4.2 TB/s over the GPU; barrier 774–906 cycles. */
export const dsmem: DsmemSpec = {
  latencyNs: (n) => dsmemLatencyCycles(n) / H100_CLOCK_GHZ,
  readBytesPerNsPerCta: (n) => bw('read', 'one-cluster', n),
  writeBytesPerNsPerCta: (n) => bw('write', 'one-cluster', n),
  aggregateReadBytesPerNs: (n) => bw('read', 'max-active-clusters', n),
  barrierNs: (n) => clusterBarrierCycles(n) / H100_CLOCK_GHZ,
};
