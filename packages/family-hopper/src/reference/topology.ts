/**
 * NVIDIA H100 SXM5 80 GB (Hopper, sm_90) as a Fleet topology: the part the Hopper reference
 * calibration was measured on. The family's derivations (bytes in flight by Little's law,
 * cuBLASLt's selection objective) read those measurements against this part's memory, and
 * @fleet/backend-h100 ships it as its topology; other GH100 parts (H200) start from it.
 *
 * The chiplet level is a thread-block cluster (≤ 16 CTAs on one GPC sharing DSMEM), not a
 * die: the 50 MB L2 is one device-wide cache in two halves, and it is the point of device
 * coherence. Partitions are the 8 GPCs.
 *
 * Tags in `sources` as in /work/shared/research/hardware.md: DS, DER, MEAS, MEAS* (GH200,
 * H100 PCIe or H200 instead of H100 SXM5), CAL (our own H100 measurements in
 * /work/shared/reference/h100-microbench.json, "ours" below), UNC. S-ids are hardware.md §6.
 */
import type { Topology } from '@fleet/core';
import { LOADED_LATENCY } from './calibration.js';

/** Max boost SM clock, GHz (S37 deviceQuery; ours: maxSmClockMHz 1980). */
export const H100_CLOCK_GHZ = 1.98;
const CLK = H100_CLOCK_GHZ;
/** ns = cycles / GHz, rounded to 0.1 ns. */
const ns = (cycles: number) => Math.round((cycles / CLK) * 10) / 10;
const KiB = 1024;

/**
 * Latencies, SM cycles. "ours" = calibration/h100-microbench-ours.json (bench/h100/microbench.cu,
 * 2026-11-21) unless marked "prior" (calibration/h100-microbench-prior.json).
 */
export const H100_LATENCY_CYCLES = Object.freeze({
  /** GH200 pointer chase, 32.0 cycles (MEAS* S7). */
  l1: 32,
  /** prior: sharedLocalCluster1 34 (ours: 28.7 for a plain shared-memory chase). */
  shared: 34,
  /** ours: remote DSMEM load at cluster size 2, 192 (prior 193); 207 at sizes 4–16. */
  dsmem: 192,
  /** ours: L2 hit after the SM's own earlier read, median over 132 SMs × 2048 lines (SMs range 282–306; prior 1 MB chase 346). */
  l2: 296,
  /** ours: first read from the other side of a line homed in the far half, 474 − 292 near (MEAS* S7: 190–240). */
  l2FarExtra: 182,
  /** prior: globalPointerChaseHbm256MB (ours: 725 after an L2 flush, TLB misses included). */
  hbm: 658,
  /** ours: fence.acq_rel.gpu, 673 idle, 688 after a store (fence.acq_rel.cluster: 672). */
  fenceGpu: 688,
  /** ours: fence.acq_rel.cluster with nothing outstanding. */
  fenceCluster: 672,
  /** ours: relaxed atom.add.gpu, mean over 64 lines: 292 homed near, 500 homed far. */
  atomicGpu: 400,
});
const LAT = H100_LATENCY_CYCLES;

/** Dense peaks of the whole GPU, TFLOP/s (S33, tensor peaks quoted at 1830 MHz). */
const BF16_TFLOPS = 989.4;
const FP8_TFLOPS = 1978.9;
const SMS = 132;

/** MEMBAR.SYS-style system release: no measurement exists; assumed. */
const SYSTEM_RELEASE_NS = 1000;

export const H100_SXM5: Topology = {
  name: 'h100',
  description: 'NVIDIA H100 SXM5 80 GB (Hopper): 132 SMs in 8 GPCs, thread-block clusters of ≤ 16 CTAs with DSMEM, 50 MB L2 in two halves, 80 GB HBM3',
  clockGHz: CLK,
  partitions: { kind: 'gpc', computeUnits: [18, 16, 16, 16, 18, 16, 16, 16] },
  computeUnit: {
    simdWidth: 32,
    simdsPerUnit: 4,
    registerFileBytes: 256 * KiB,
    sharedMemoryBytes: 233472,
    l1: {
      capacityBytes: 256 * KiB,
      lineBytes: 128,
      associativity: 4,
      bandwidthBytesPerNs: 128 * CLK,
      latencyNs: ns(LAT.l1),
      writePolicy: 'write-through',
      replacement: 'lru',
    },
    // FLOP/ns per SM = TFLOP/s × 1000 / SMs
    matrixFlopsPerNs: { bf16: (BF16_TFLOPS * 1000) / SMS, fp16: (BF16_TFLOPS * 1000) / SMS, fp8: (FP8_TFLOPS * 1000) / SMS },
    vectorFlopsPerNs: 128 * 2 * CLK,
    maxBandwidthBytesPerNs: 64 * CLK,
  },
  memory: {
    l2: {
      organisation: 'shared',
      capacityBytes: 52428800,
      lineBytes: 128,
      associativity: 16,
      bandwidthBytesPerNs: 10000,
      latencyNs: ns(LAT.l2),
      halves: 2,
      farExtraLatencyNs: ns(LAT.l2FarExtra),
      writePolicy: 'write-back',
      replacement: 'lru',
    },
    hbm: {
      capacityBytes: 85017493504,
      peakBandwidthBytesPerNs: 3350,
      achievableBandwidthBytesPerNs: 3036,
      latencyNs: ns(LAT.hbm),
      loadedLatency: { queueNs: LOADED_LATENCY.fit.queueNs, saturationBytesPerNs: LOADED_LATENCY.fit.saturationBytesPerNs },
    },
  },
  coherence: [
    {
      scope: 'wave',
      atomicResolvesAt: 'lds',
      atomicLatencyNs: ns(LAT.shared),
      release: { fixedNs: 0, writeBackDirty: false },
      acquire: { fixedNs: 0, invalidates: false },
    },
    {
      scope: 'group',
      atomicResolvesAt: 'lds',
      atomicLatencyNs: ns(LAT.shared),
      release: { fixedNs: ns(LAT.shared), writeBackDirty: false },
      acquire: { fixedNs: 0, invalidates: false },
    },
    {
      // chiplet = thread-block cluster: CTAs on one GPC exchange through DSMEM
      scope: 'chiplet',
      atomicResolvesAt: 'dsmem',
      atomicLatencyNs: ns(LAT.dsmem),
      release: { fixedNs: ns(LAT.fenceCluster), writeBackDirty: false },
      acquire: { fixedNs: ns(LAT.l1), invalidates: true },
    },
    {
      scope: 'device',
      atomicResolvesAt: 'l2',
      atomicLatencyNs: ns(LAT.atomicGpu),
      release: { fixedNs: ns(LAT.fenceGpu), writeBackDirty: false },
      acquire: { fixedNs: ns(LAT.l1), invalidates: true },
    },
    {
      scope: 'system',
      atomicResolvesAt: 'l2',
      atomicLatencyNs: ns(LAT.atomicGpu),
      release: { fixedNs: SYSTEM_RELEASE_NS, writeBackDirty: false },
      acquire: { fixedNs: ns(LAT.l1), invalidates: true },
    },
  ],
  levels: {
    wavefront: { unit: 'warp', lanes: 32 },
    cu: { unit: 'sm' },
    chiplet: { unit: 'cluster', maxSize: 16 },
    device: { unit: 'device' },
  },
  sources: {
    '/clockGHz': 'DS S37: 1980 MHz max boost (CAL ours: maxSmClockMHz 1980); tensor peaks are quoted at 1830 MHz (S33)',
    '/partitions/computeUnits':
      'DS S33: 132 SMs in 8 GPCs; CAL ours: GPCs of 18,18,16×6 (SMs that share clusters), ordered so GPCs 0–3 and 4–7 are the two L2 sides: each L2 half is near 66 SMs, one 18-SM GPC and three 16-SM GPCs (l2Sides)',
    '/computeUnit/simdWidth': 'DS S37: warp of 32 threads',
    '/computeUnit/simdsPerUnit': 'DS S33/S36: 4 SM sub-partitions (SMSPs), one warp scheduler each',
    '/computeUnit/registerFileBytes': 'DS S37/S38: 64K × 32-bit registers per SM (CAL ours: regsPerSm 65536)',
    '/computeUnit/sharedMemoryBytes': 'DS S37: 228 KB = 233472 B shared memory per SM (227 KB per block opt-in; ours 232448)',
    '/computeUnit/l1/capacityBytes':
      'DS S37/S38: 256 KB unified L1 + shared per SM; UNC used whole as the L1 — an upper bound, the data cache is what the shared-memory carve-out leaves',
    '/computeUnit/l1/lineBytes': 'DS S38: 128 B lines with 32 B sectors',
    '/computeUnit/l1/associativity': 'UNC not published; 4-way chosen so 256 KiB / (128 B × 4) = 512 sets',
    '/computeUnit/l1/bandwidthBytesPerNs': `UNC 128 B/clk/SM (not measured on Hopper) × ${CLK} GHz`,
    '/computeUnit/l1/latencyNs': `MEAS* S7 gpu-latency gh200: ${LAT.l1} cycles at ${CLK} GHz (H100 PCIe 34)`,
    '/computeUnit/l1/writePolicy': 'UNC global stores write through the L1 to the L2',
    '/computeUnit/matrixFlopsPerNs/bf16': `DS S33: ${BF16_TFLOPS} TFLOP/s dense / ${SMS} SMs (= 4096 FLOP/clk/SM at 1.83 GHz)`,
    '/computeUnit/matrixFlopsPerNs/fp16': `DS S33: ${BF16_TFLOPS} TFLOP/s dense / ${SMS} SMs`,
    '/computeUnit/matrixFlopsPerNs/fp8': `DS S33: ${FP8_TFLOPS} TFLOP/s dense / ${SMS} SMs`,
    '/computeUnit/vectorFlopsPerNs': `DS S33: 128 FP32 lanes × 2 (FMA) × ${CLK} GHz per SM (× 132 = 66.9 TFLOP/s)`,
    '/computeUnit/maxBandwidthBytesPerNs': `UNC 64 B/clk/SM × ${CLK} GHz, as assumed for CDNA; 132 SMs together exceed the L2 and HBM rates, so the shared resources bind first`,
    '/memory/l2/capacityBytes': 'DS S37: 52428800 B (CAL ours: l2Bytes 52428800)',
    '/memory/l2/lineBytes': 'DS S38: 128 B lines, 32 B sectors',
    '/memory/l2/associativity': 'UNC not published; 16-way chosen so 50 MB / (128 B × 16) = 25600 sets',
    '/memory/l2/bandwidthBytesPerNs':
      'MEAS*/UNC S7: H200 (same 132-SM die and clock) 9.7–10.5 TB/s for 4–40 MB; H100 PCIe 7.0–7.7 TB/s; modelled at 10 TB/s (hardware.md §3.2)',
    '/memory/l2/latencyNs': `CAL ours (bench/h100/microbench.cu l2): ${LAT.l2} cycles at ${CLK} GHz, an L2 hit after the SM's own earlier read (reads are replicated into the near half), median over 132 SMs; prior 1 MB pointer chase 346; third-party near half 265–281 (MEAS* S7)`,
    '/memory/l2/halves': 'DS/MEAS S37/S7b: two partitions of ≈25 MB, near and far',
    '/memory/l2/farExtraLatencyNs': `CAL ours: ${LAT.l2FarExtra} cycles at ${CLK} GHz — the first read from the other side of a line homed in the far half (474 vs 292 cycles); later reads hit a near copy; atomics always pay it (292 vs 500 cycles); MEAS* S7 190–240`,
    '/memory/l2/writePolicy': 'UNC write-back; the L2 is the point of device coherence',
    '/memory/hbm/capacityBytes': 'CAL ours: device memBytes 85017493504 (80 GB HBM3, DS S37)',
    '/memory/hbm/peakBandwidthBytesPerNs': 'DS S37/S33: 5 stacks, 5120 bit × 2619 MHz DDR = 3.35 TB/s',
    '/memory/hbm/achievableBandwidthBytesPerNs': 'CAL ours: read-only kernel 3.036 TB/s (copy 3.006 TB/s read+write), 91% of peak',
    '/memory/hbm/latencyNs': `CAL ours: globalPointerChaseHbm256MB ${LAT.hbm} cycles at ${CLK} GHz (MEAS* S7: 620–690)`,
    '/memory/hbm/loadedLatency/queueNs': `CAL ours (bench/h100/loaded_latency.py, calibration/h100-loaded-latency-ours.json): a pointer chase beside SMs streaming at known rates rises from ${Math.round(LOADED_LATENCY.unloaded.chaseNs)} ns unloaded as L0 + q·X/(Xs − X); least squares over ${LOADED_LATENCY.fit.rows} sequential-stream rows gives q = ${LOADED_LATENCY.fit.queueNs} ns (rms ${(LOADED_LATENCY.fit.rmsRelativeError * 100).toFixed(1)}%; a skinny GEMM's weight-tile pattern fits within ${(LOADED_LATENCY.fit.tilePatternRmsRelativeErrorBelow80PercentSaturation * 100).toFixed(1)}% below 80% of saturation)`,
    '/memory/hbm/loadedLatency/saturationBytesPerNs': `CAL ours: the same fit, Xs = ${LOADED_LATENCY.fit.saturationBytesPerNs} B/ns (streams reached ${LOADED_LATENCY.fit.largestBandwidthBytesPerNs} B/ns; the DS peak is 3350)`,
    '/coherence/0/atomicLatencyNs': `UNC a shared-memory atomic assumed to cost a shared load: CAL ours sharedLocalCluster1 ${LAT.shared} cycles`,
    '/coherence/0/release/fixedNs': 'UNC warp scope (__syncwarp) needs no memory fence, counted as 0',
    '/coherence/0/acquire/fixedNs': 'UNC warp scope needs no memory fence, counted as 0',
    '/coherence/1/atomicLatencyNs': `UNC shared-memory atomic assumed to cost a shared load: CAL ours ${LAT.shared} cycles`,
    '/coherence/1/release/fixedNs': `UNC fence.acq_rel.cta (MEMBAR.CTA) assumed one shared-memory round trip (${LAT.shared} cycles); no measurement (hardware.md §3.3 gap)`,
    '/coherence/1/acquire/fixedNs': 'UNC CTA-scope acquire on one SM needs no invalidate, counted as 0',
    '/coherence/2/atomicLatencyNs': `UNC a DSMEM atomic assumed to cost a remote DSMEM load: CAL ours ${LAT.dsmem} cycles at cluster size 2 (ClusterFusion reports ≈190, seeds §3)`,
    '/coherence/2/release/fixedNs': `CAL ours: fence.acq_rel.cluster ${LAT.fenceCluster} cycles (the same as fence.acq_rel.gpu on this H100; cluster.sync 750–906 cycles)`,
    '/coherence/2/acquire/fixedNs': `UNC L1 invalidate for global data assumed one L1 hit (${LAT.l1} cycles)`,
    '/coherence/3/atomicLatencyNs': `CAL ours: relaxed atom.add.gpu ${LAT.atomicGpu} cycles, mean over 64 lines (292 homed in the near half, 500 in the far half: atomics resolve at the home)`,
    '/coherence/3/release/fixedNs': `CAL ours: store + fence.acq_rel.gpu ${LAT.fenceGpu} cycles (673 with nothing outstanding; atom.add.release.gpu 945); nothing to write back, the L2 is the point of coherence`,
    '/coherence/3/acquire/fixedNs': `UNC L1 invalidate (CCTL.IVALL) assumed one L1 hit (${LAT.l1} cycles)`,
    '/coherence/4/atomicLatencyNs': `UNC system-scope atomics on device memory assumed to resolve at the L2 like device scope (CAL ours ${LAT.atomicGpu} cycles)`,
    '/coherence/4/release/fixedNs': 'UNC fence.sc.sys (MEMBAR.SYS) orders against the host interface: assumed 1 µs, no measurement',
    '/coherence/4/acquire/fixedNs': `UNC as device scope: L1 invalidate, one L1 hit (${LAT.l1} cycles)`,
    '/levels/wavefront/lanes': 'DS S37: warp of 32',
    '/levels/chiplet/maxSize': 'DS S43/S46/S47: clusters of ≤ 8 CTAs portable, 16 with the non-portable attribute on H100',
  },
};
