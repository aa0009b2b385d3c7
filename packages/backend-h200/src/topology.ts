/**
 * NVIDIA H200 SXM 141 GB as a Fleet topology: the H100 SXM5's GH100 die (132 SMs in 8 GPCs,
 * the same clocks, latencies, coherence and cluster hardware) with six stacks of HBM3e.
 * What differs, and why:
 * - HBM: 141 GB at 4.8 TB/s peak (datasheet); achievable read bandwidth 4.29 TB/s (our
 *   bench/h100/pipeline.py `env.sumReadTBps` on an H200) and its latency under load (our
 *   bench/h100/loaded_latency.py on an H200): the only calibration points for this part.
 * - L2: the device reports 60 MiB (cudaDeviceProp.l2CacheSize 62914560 in both of our H200
 *   runs) where the H100 SXM5 reports 50 MiB: more of the GH100's L2 slices are enabled.
 * Everything else is the H100 SXM5 topology object itself (@fleet/family-hopper's `H100_SXM5`, the
 * family's reference part), so a change there carries over.
 */
import type { Topology } from '@fleet/core';
import { H100_SXM5 as h100 } from '@fleet/family-hopper';
import loaded from './calibration/h200-loaded-latency-ours.json' with { type: 'json' };

/** DS NVIDIA H200 datasheet: 141 GB HBM3e. */
export const H200_HBM_BYTES = 141e9;
/** DS NVIDIA H200 datasheet: 4.8 TB/s. */
export const H200_HBM_PEAK_BYTES_PER_NS = 4800;
/** CAL ours: summed read kernel on the H200, 4.289 TB/s (copy 4.216 TB/s read + write). */
export const H200_HBM_ACHIEVABLE_BYTES_PER_NS = 4289;
/**
 * CAL ours (bench/h100/loaded_latency.py on an H200, calibration/h200-loaded-latency-ours.json):
 * HBM3e queues less at a given bandwidth — its chase rises as L0 + q·X/(Xs − X) with a smaller q
 * and a saturation near the 4.8 TB/s peak.
 */
export const H200_HBM_LOADED_LATENCY = { queueNs: loaded.fit.queueNs, saturationBytesPerNs: loaded.fit.saturationBytesPerNs };
/** CAL ours: cudaDeviceProp.l2CacheSize on the H200 (results/h200/microbench.json, results/h200-pipeline env). */
export const H200_L2_BYTES = 62914560;

export const topology: Topology = {
  ...h100,
  name: 'h200',
  description:
    'NVIDIA H200 SXM 141 GB (Hopper): the GH100 die of the H100 SXM5 — 132 SMs in 8 GPCs, clusters with DSMEM — with a 60 MB L2 in two halves and 141 GB of HBM3e',
  memory: {
    ...h100.memory,
    l2: { ...h100.memory.l2, capacityBytes: H200_L2_BYTES },
    hbm: {
      ...h100.memory.hbm,
      capacityBytes: H200_HBM_BYTES,
      peakBandwidthBytesPerNs: H200_HBM_PEAK_BYTES_PER_NS,
      achievableBandwidthBytesPerNs: H200_HBM_ACHIEVABLE_BYTES_PER_NS,
      loadedLatency: H200_HBM_LOADED_LATENCY,
    },
  },
  sources: {
    ...h100.sources,
    '/memory/l2/capacityBytes':
      'CAL ours: the H200 reports a 62914560 B (60 MiB) L2 (cudaDeviceProp.l2CacheSize, bench/h100/results/h200/microbench.json); latencies and halves as the H100 (same die; our near/far medians 284/316 vs 285/315 cycles)',
    '/memory/hbm/capacityBytes': 'DS NVIDIA H200 datasheet: 141 GB HBM3e',
    '/memory/hbm/peakBandwidthBytesPerNs': 'DS NVIDIA H200 datasheet: 4.8 TB/s',
    '/memory/hbm/achievableBandwidthBytesPerNs':
      'CAL ours (the one H200 calibration point): read kernel 4.289 TB/s (copy 4.216 TB/s read+write), bench/h100/pipeline.py env on an H200',
    '/memory/hbm/loadedLatency/queueNs': `CAL ours on the H200 (bench/h100/loaded_latency.py, calibration/h200-loaded-latency-ours.json): q = ${loaded.fit.queueNs} ns over ${loaded.fit.rows} sequential-stream rows (rms ${(loaded.fit.rmsRelativeError * 100).toFixed(1)}%; unloaded chase ${Math.round(loaded.unloaded.chaseNs)} ns)`,
    '/memory/hbm/loadedLatency/saturationBytesPerNs': `CAL ours on the H200: Xs = ${loaded.fit.saturationBytesPerNs} B/ns (streams reached ${loaded.fit.largestBandwidthBytesPerNs} B/ns of the 4800 B/ns peak)`,
    '/memory/hbm/latencyNs': 'CAL as the H100 (prior 658 cycles); ours on the H200: cold-HBM median 716 cycles vs 725 on our H100 — no difference to carry',
  },
};
