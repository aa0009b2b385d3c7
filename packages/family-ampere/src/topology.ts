/**
 * The topology of an sm80-model device without clusters: GPCs of SMs, a device-wide L2 (in
 * halves on GA100), DRAM. Its chiplet level is the SM itself — no thread-block clusters, no
 * distributed shared memory — so policies that need clusters (ClusterFusion) or a chiplet L2
 * (FLEET) say so from the topology.
 */
import type { Topology } from '@fleet/core';
import type { Sm80DeviceSpec } from './device-spec.js';

const KiB = 1024;

/** UNC (not measured on these parts): L1 hit latency, shared-memory and device-scope atomic and fence latencies, cycles — Hopper's measured values (family-hopper reference) taken over. */
export const SM80_LATENCY_CYCLES = Object.freeze({ l1: 33, shared: 30, atomicGpu: 400, fenceGpu: 700 });

export function sm80Topology(d: Sm80DeviceSpec): Topology {
  const clk = d.clockGHz;
  const ns = (cycles: number) => Math.round((cycles / clk) * 10) / 10;
  const sms = d.smsPerGpc.reduce((a, b) => a + b, 0);
  const L = SM80_LATENCY_CYCLES;
  const deviceScope = {
    atomicResolvesAt: 'l2' as const,
    atomicLatencyNs: ns(L.atomicGpu),
    release: { fixedNs: ns(L.fenceGpu), writeBackDirty: false },
    acquire: { fixedNs: ns(L.l1), invalidates: true },
  };
  return {
    name: d.name,
    description: d.description,
    clockGHz: clk,
    partitions: { kind: 'gpc', computeUnits: [...d.smsPerGpc] },
    computeUnit: {
      simdWidth: 32,
      simdsPerUnit: 4,
      registerFileBytes: 256 * KiB,
      sharedMemoryBytes: d.sharedPerSm,
      l1: {
        capacityBytes: d.sharedPerSm + 28 * KiB,
        lineBytes: 128,
        associativity: 4,
        bandwidthBytesPerNs: 128 * clk,
        latencyNs: ns(L.l1),
        writePolicy: 'write-through',
        replacement: 'lru',
      },
      matrixFlopsPerNs: {
        bf16: (d.fp16Tflops * 1000) / sms,
        fp16: (d.fp16Tflops * 1000) / sms,
        ...(d.fp8Tflops ? { fp8: (d.fp8Tflops * 1000) / sms } : {}),
      },
      vectorFlopsPerNs: d.fp32Lanes * 2 * clk,
      maxBandwidthBytesPerNs: 64 * clk,
    },
    memory: {
      l2: {
        organisation: 'shared',
        capacityBytes: d.l2Bytes,
        lineBytes: 128,
        associativity: 16,
        bandwidthBytesPerNs: d.l2BytesPerClk * clk,
        latencyNs: ns(d.l2LatencyCycles),
        halves: d.l2Halves,
        farExtraLatencyNs: ns(d.l2FarExtraCycles),
        writePolicy: 'write-back',
        replacement: 'lru',
      },
      hbm: {
        capacityBytes: d.dramBytes,
        peakBandwidthBytesPerNs: d.dramPeakBytesPerNs,
        achievableBandwidthBytesPerNs: d.dramAchievableBytesPerNs,
        latencyNs: d.dramLatencyNs,
      },
    },
    coherence: [
      {
        scope: 'wave',
        atomicResolvesAt: 'lds',
        atomicLatencyNs: ns(L.shared),
        release: { fixedNs: 0, writeBackDirty: false },
        acquire: { fixedNs: 0, invalidates: false },
      },
      {
        scope: 'group',
        atomicResolvesAt: 'lds',
        atomicLatencyNs: ns(L.shared),
        release: { fixedNs: ns(L.shared), writeBackDirty: false },
        acquire: { fixedNs: 0, invalidates: false },
      },
      // No clusters: blocks on different SMs meet only in the L2, as at device scope.
      { scope: 'chiplet', ...deviceScope },
      { scope: 'device', ...deviceScope },
      { scope: 'system', ...deviceScope, release: { fixedNs: 1000, writeBackDirty: false } },
    ],
    levels: { wavefront: { unit: 'warp', lanes: 32 }, cu: { unit: 'sm' }, chiplet: { unit: 'sm' }, device: { unit: 'device' } },
    sources: {
      '/computeUnit/simdWidth': 'DS CUDA C programming guide: warps of 32 threads',
      '/computeUnit/simdsPerUnit': 'DS Ampere/Ada whitepapers: 4 SM sub-partitions',
      '/computeUnit/registerFileBytes': 'DS 64K × 32-bit registers per SM',
      '/computeUnit/l1/capacityBytes': 'DS unified L1/shared memory per SM (the shared carve-out plus the rest)',
      '/computeUnit/l1/latencyNs': `UNC ${L.l1} cycles, Hopper's measured L1 hit taken over`,
      '/computeUnit/l1/bandwidthBytesPerNs': 'UNC 128 B/clk/SM',
      '/computeUnit/vectorFlopsPerNs': `DS ${d.fp32Lanes} FP32 lanes × 2 (FMA) × ${clk} GHz per SM`,
      '/computeUnit/maxBandwidthBytesPerNs': 'UNC 64 B/clk/SM, as for Hopper and CDNA',
      '/computeUnit/l1/lineBytes': 'DS 128 B lines with 32 B sectors',
      '/computeUnit/l1/associativity': 'UNC not published; 4-way',
      '/computeUnit/matrixFlopsPerNs/bf16': 'DS the dense BF16 tensor peak equals the FP16 one',
      '/memory/l2/lineBytes': 'DS 128 B lines',
      '/memory/l2/associativity': 'UNC not published; 16-way',
      '/levels/wavefront/lanes': 'DS 32 threads per warp',
      ...coherenceSources(),
      ...d.sources,
    },
  };
}

/** Every coherence scope's numbers: Hopper's measured latencies taken over (UNC here). */
function coherenceSources(): Record<string, string> {
  const out: Record<string, string> = {};
  const scopes = ['wave', 'group', 'chiplet (no clusters: as device)', 'device', 'system'];
  scopes.forEach((name, i) => {
    out[`/coherence/${i}/atomicLatencyNs`] =
      `UNC ${name} — Hopper's measured atomic latency (shared ${SM80_LATENCY_CYCLES.shared}, L2 ${SM80_LATENCY_CYCLES.atomicGpu} cycles) taken over`;
    out[`/coherence/${i}/release/fixedNs`] =
      `UNC ${name} — Hopper's measured fence (${SM80_LATENCY_CYCLES.fenceGpu} cycles) taken over; system release assumed 1 µs`;
    out[`/coherence/${i}/acquire/fixedNs`] = `UNC ${name} — an L1 invalidation at the L1 hit latency`;
  });
  return out;
}
