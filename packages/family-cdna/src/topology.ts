/**
 * The CDNA topology shape (CDNA3 gfx942, CDNA4 gfx950): eight XCDs of wave64 CUs, a private
 * write-back L2 per XCD, a memory-side Infinity Cache (MALL) and HBM. What every CDNA part
 * shares is fixed here; a device passes what differs, and its `sources` map gives the
 * provenance of every value (shared ones included), as hardware.md does per part.
 */
import type { Topology } from '@fleet/core';
import { cdnaCoherenceScopes, cdnaCoherenceSources, type CdnaCoherenceParams } from './coherence.js';
import { cdnaLevelSources, cdnaLevels } from './levels.js';
import { cyclesToNs } from './latency.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** What one CDNA device sets; the rest of its topology is the family's. */
export interface CdnaTopologySpec {
  name: string;
  description: string;
  xcds: number;
  cusPerXcd: number;
  /** LDS per CU, KiB (64 on CDNA3, 160 on CDNA4). */
  ldsKiB: number;
  /** Per-CU vL1D bandwidth, bytes/ns. */
  l1BandwidthBytesPerNs: number;
  /** Dense matrix FLOP per clock per CU. */
  matrixFlopsPerClk: { bf16: number; fp16: number; fp8: number };
  /** Per-XCD L2 bandwidth, bytes/ns. */
  l2BandwidthBytesPerNs: number;
  /** MALL bandwidth, bytes/ns. */
  llcBandwidthBytesPerNs: number;
  hbm: { capacityGiB: number; peakBandwidthBytesPerNs: number; achievableBandwidthBytesPerNs: number };
  /** Clock, load latencies and their origin (also the coherence scopes' inputs). */
  coherence: CdnaCoherenceParams;
  /** The device's provenance strings; the coherence and level sources are appended. */
  sources: Record<string, string>;
}

/** Builds a CDNA device's topology from what differs between CDNA parts. */
export function cdnaTopology(spec: CdnaTopologySpec): Topology {
  const clk = spec.coherence.clockGHz;
  const lat = spec.coherence.latencyCycles;
  const ns = (cycles: number) => cyclesToNs(cycles, clk);
  return {
    name: spec.name,
    description: spec.description,
    clockGHz: clk,
    partitions: { kind: 'xcd', computeUnits: Array.from({ length: spec.xcds }, () => spec.cusPerXcd) },
    computeUnit: {
      simdWidth: 64,
      simdsPerUnit: 4,
      registerFileBytes: 512 * KiB,
      sharedMemoryBytes: spec.ldsKiB * KiB,
      l1: {
        capacityBytes: 32 * KiB,
        lineBytes: 128,
        associativity: 64,
        bandwidthBytesPerNs: spec.l1BandwidthBytesPerNs,
        latencyNs: ns(lat.l1),
        writePolicy: 'write-through',
        replacement: 'lru',
      },
      matrixFlopsPerNs: {
        bf16: spec.matrixFlopsPerClk.bf16 * clk,
        fp16: spec.matrixFlopsPerClk.fp16 * clk,
        fp8: spec.matrixFlopsPerClk.fp8 * clk,
      },
      vectorFlopsPerNs: 256 * clk,
      maxBandwidthBytesPerNs: 64 * clk,
    },
    memory: {
      l2: {
        organisation: 'per-partition',
        capacityBytes: 4 * MiB,
        lineBytes: 128,
        associativity: 16,
        bandwidthBytesPerNs: spec.l2BandwidthBytesPerNs,
        latencyNs: ns(lat.l2),
        writePolicy: 'write-back',
        replacement: 'lru',
      },
      llc: {
        memorySide: true,
        capacityBytes: 256 * MiB,
        lineBytes: 64,
        associativity: 16,
        bandwidthBytesPerNs: spec.llcBandwidthBytesPerNs,
        latencyNs: ns(lat.mall),
        writePolicy: 'write-back',
        replacement: 'lru',
      },
      hbm: {
        capacityBytes: spec.hbm.capacityGiB * GiB,
        peakBandwidthBytesPerNs: spec.hbm.peakBandwidthBytesPerNs,
        achievableBandwidthBytesPerNs: spec.hbm.achievableBandwidthBytesPerNs,
        latencyNs: ns(lat.hbm),
      },
    },
    coherence: cdnaCoherenceScopes(spec.coherence),
    levels: cdnaLevels(),
    sources: { ...spec.sources, ...cdnaCoherenceSources(spec.coherence), ...cdnaLevelSources() },
  };
}
