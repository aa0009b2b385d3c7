/**
 * NVIDIA B200 (Blackwell, two dies) as a Fleet topology.
 *
 * The two reticle-sized dies are the partitions (74 SMs each). The 126 MB L2 is modelled as
 * one device-wide cache in two halves, one per die (`organisation: 'shared'`, `halves: 2`),
 * not as a private L2 per die: software sees one coherent GPU, each line lives in the half of
 * the die that homes its address, and an SM on the other die reaches it across the die-to-die
 * link at an extra latency (the bimodal L2 latency measured across dies). A per-partition
 * model would let both dies cache their own copy of the same weights and would need a
 * write-back to make a die's stores visible to the other; the B200 does neither.
 *
 * Tags in `sources` as in /work/shared/research/hardware.md: DS (datasheet), DER (derived),
 * MEAS (third-party measurement), UNC (uncertain or a placeholder). S-ids are that file's §6.
 */
import type { Topology } from '@fleet/core';

/** SM clock, GHz: "similar to the H100 SXM5" (S51); the H100 SXM5's 1980 MHz max boost (S37). */
export const B200_CLOCK_GHZ = 1.98;
const CLK = B200_CLOCK_GHZ;
const KiB = 1024;
const MiB = 1024 * KiB;

/** SMs enabled on each die: 80 physical, 74 enabled (S51). */
export const SMS_PER_DIE = 74;
const DIES = 2;
const SMS = SMS_PER_DIE * DIES;

/** Latencies, ns. */
export const B200_LATENCY_NS = Object.freeze({
  /** L1 hit, 19.6 ns ≈ 39 cycles (MEAS S52, OpenCL). */
  l1: 19.6,
  /** L2 hit inside the requester's own die (MEAS S52: ≈ 150 ns). */
  l2: 150,
  /**
   * Extra latency of an L2 hit in the other die's half. S52 reports the cross-die latency as
   * bimodal with an extra penalty but no figure we could read: placeholder = the H100's
   * far-half extra, 190–240 cycles (MEAS* S7), midpoint 215 cycles at 1.98 GHz.
   */
  l2CrossDieExtra: Math.round((215 / CLK) * 10) / 10,
  /** HBM load-to-use: no B200 figure; placeholder = our H100 pointer chase, 658 cycles at 1.98 GHz. */
  hbm: Math.round((658 / CLK) * 10) / 10,
});
const LAT = B200_LATENCY_NS;

/** Dense tensor peaks of the whole GPU, TFLOP/s (S53; the page's peaks are UNC). */
const BF16_TFLOPS = 2250;
const FP8_TFLOPS = 4500;

/** HBM3e peak and our H100's achieved fraction (3.036 of 3.35 TB/s), used until a B200 measurement exists. */
const HBM_PEAK_BYTES_PER_NS = 8000;
const H100_HBM_ACHIEVED_FRACTION = 3036 / 3350;

/** H100 SXM5 L2 bandwidth as modelled by @fleet/backend-h100 (S7: H200 9.7–10.5 TB/s), bytes/ns. */
const H100_L2_BYTES_PER_NS = 10000;
const H100_SMS = 132;

/** A device-scope counter sits in one die's half: half the SMs reach it across the dies. */
const DEVICE_ATOMIC_NS = Math.round((LAT.l2 + LAT.l2CrossDieExtra / 2) * 10) / 10;
/** System-scope release (MEMBAR.SYS): no measurement on any GPU; assumed. */
const SYSTEM_RELEASE_NS = 1000;

export const topology: Topology = {
  name: 'b200',
  description: 'NVIDIA B200 (Blackwell): 148 SMs on 2 dies, 126 MB L2 split across the dies with a cross-die penalty, HBM3e 8 TB/s',
  clockGHz: CLK,
  partitions: { kind: 'die', computeUnits: [SMS_PER_DIE, SMS_PER_DIE] },
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
      latencyNs: LAT.l1,
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
      capacityBytes: 126 * MiB,
      lineBytes: 128,
      associativity: 16,
      bandwidthBytesPerNs: Math.round((H100_L2_BYTES_PER_NS * SMS) / H100_SMS),
      latencyNs: LAT.l2,
      halves: DIES,
      farExtraLatencyNs: LAT.l2CrossDieExtra,
      writePolicy: 'write-back',
      replacement: 'lru',
    },
    hbm: {
      capacityBytes: 180e9,
      peakBandwidthBytesPerNs: HBM_PEAK_BYTES_PER_NS,
      achievableBandwidthBytesPerNs: Math.round(HBM_PEAK_BYTES_PER_NS * H100_HBM_ACHIEVED_FRACTION),
      latencyNs: LAT.hbm,
    },
  },
  coherence: [
    {
      scope: 'wave',
      atomicResolvesAt: 'lds',
      atomicLatencyNs: LAT.l1,
      release: { fixedNs: 0, writeBackDirty: false },
      acquire: { fixedNs: 0, invalidates: false },
    },
    {
      scope: 'group',
      atomicResolvesAt: 'lds',
      atomicLatencyNs: LAT.l1,
      release: { fixedNs: LAT.l1, writeBackDirty: false },
      acquire: { fixedNs: 0, invalidates: false },
    },
    {
      // chiplet = die: a die-local counter is a GPU-scope atomic on a line homed in the die's own L2 half
      scope: 'chiplet',
      atomicResolvesAt: 'l2',
      atomicLatencyNs: LAT.l2,
      release: { fixedNs: LAT.l2, writeBackDirty: false },
      acquire: { fixedNs: LAT.l1, invalidates: true },
    },
    {
      scope: 'device',
      atomicResolvesAt: 'l2',
      atomicLatencyNs: DEVICE_ATOMIC_NS,
      release: { fixedNs: DEVICE_ATOMIC_NS, writeBackDirty: false },
      acquire: { fixedNs: LAT.l1, invalidates: true },
    },
    {
      scope: 'system',
      atomicResolvesAt: 'l2',
      atomicLatencyNs: DEVICE_ATOMIC_NS,
      release: { fixedNs: SYSTEM_RELEASE_NS, writeBackDirty: false },
      acquire: { fixedNs: LAT.l1, invalidates: true },
    },
  ],
  levels: {
    wavefront: { unit: 'warp', lanes: 32 },
    cu: { unit: 'sm' },
    chiplet: { unit: 'die' },
    device: { unit: 'device' },
  },
  sources: {
    '/clockGHz': 'MEAS/UNC S51: clocks "similar to the H100 SXM5"; its 1980 MHz max boost (DS S37) is used',
    '/partitions/computeUnits': 'MEAS/DS S51: 2 dies, 80 SMs physical and 74 enabled per die, 148 SMs',
    '/computeUnit/simdWidth': 'DS S49: warp of 32 threads',
    '/computeUnit/simdsPerUnit': 'UNC 4 sub-partitions per SM assumed unchanged from Hopper (S33/S36); S51 finds the SM familiar',
    '/computeUnit/registerFileBytes': 'DS S49: 64K × 32-bit registers per SM (CC 10.0)',
    '/computeUnit/sharedMemoryBytes': 'DS S51/S49: shared memory up to 228 KB = 233472 B per SM, as on H100',
    '/computeUnit/l1/capacityBytes': 'DS S51: 256 KB unified L1 + shared per SM; UNC used whole as the L1, an upper bound',
    '/computeUnit/l1/lineBytes': 'UNC 128 B lines assumed as on Hopper (S38)',
    '/computeUnit/l1/associativity': 'UNC not published; 4-way chosen so 256 KiB / (128 B × 4) = 512 sets',
    '/computeUnit/l1/bandwidthBytesPerNs': `UNC 128 B/clk/SM assumed as on Hopper × ${CLK} GHz`,
    '/computeUnit/l1/latencyNs': `MEAS S52: ${LAT.l1} ns (≈ 39 cycles) L1 hit, OpenCL`,
    '/computeUnit/l1/writePolicy': 'UNC global stores write through the L1 to the L2, as on Hopper',
    '/computeUnit/matrixFlopsPerNs/bf16': `DS/UNC S53: ${BF16_TFLOPS} TFLOP/s dense BF16 / ${SMS} SMs (the page's peaks are UNC)`,
    '/computeUnit/matrixFlopsPerNs/fp16': `DS/UNC S53: ${BF16_TFLOPS} TFLOP/s dense / ${SMS} SMs, FP16 as BF16`,
    '/computeUnit/matrixFlopsPerNs/fp8': `DS/UNC S53: ${FP8_TFLOPS} TFLOP/s dense FP8 / ${SMS} SMs`,
    '/computeUnit/vectorFlopsPerNs': `UNC DER 128 FP32 lanes × 2 (FMA) × ${CLK} GHz per SM, lanes assumed as on Hopper (S33)`,
    '/computeUnit/maxBandwidthBytesPerNs': `UNC 64 B/clk/SM × ${CLK} GHz, as assumed for Hopper and CDNA; the shared L2 and HBM rates bind first`,
    '/memory/l2/capacityBytes': 'MEAS S52: 126 MB L2 in total (taken as 126 MiB), partitioned across the two dies',
    '/memory/l2/lineBytes': 'UNC 128 B lines assumed as on Hopper (S38)',
    '/memory/l2/associativity': 'UNC not published; 16-way chosen so 126 MiB / (128 B × 16) = 64512 sets',
    '/memory/l2/bandwidthBytesPerNs': `UNC DER no B200 L2 bandwidth measurement: the H100 model's ${H100_L2_BYTES_PER_NS / 1000} TB/s (MEAS* S7) × ${SMS}/${H100_SMS} SMs at a similar clock`,
    '/memory/l2/latencyNs': `MEAS S52: ≈ ${LAT.l2} ns for an L2 hit inside the requester's partition (die)`,
    '/memory/l2/halves': 'MEAS S52: the L2 is partitioned across the 2 dies; one half per die',
    '/memory/l2/farExtraLatencyNs': `UNC S52: cross-die L2 latency is bimodal with an extra penalty (figure not recorded); placeholder = H100 far-half extra 215 cycles (MEAS* S7) at ${CLK} GHz`,
    '/memory/l2/writePolicy': 'UNC write-back; the L2 is the point of device coherence, as on Hopper',
    '/memory/hbm/capacityBytes': 'DS S53: HBM3e, 8 stacks, 180–192 GB; the lower end taken',
    '/memory/hbm/peakBandwidthBytesPerNs': 'DS S53: HBM3e ≈ 8 TB/s',
    '/memory/hbm/achievableBandwidthBytesPerNs': 'UNC DER no B200 measurement: 8 TB/s × our H100 read fraction 3.036/3.35 TB/s (CAL, h100-microbench.json)',
    '/memory/hbm/latencyNs': `UNC no B200 measurement: placeholder = our H100 HBM pointer chase, 658 cycles at ${CLK} GHz (CAL)`,
    '/coherence/0/atomicLatencyNs': `UNC a shared-memory atomic assumed to cost an L1 hit (${LAT.l1} ns, MEAS S52); no B200 shared-memory latency`,
    '/coherence/0/release/fixedNs': 'UNC warp scope needs no memory fence, counted as 0',
    '/coherence/0/acquire/fixedNs': 'UNC warp scope needs no memory fence, counted as 0',
    '/coherence/1/atomicLatencyNs': `UNC a shared-memory atomic assumed to cost an L1 hit (${LAT.l1} ns)`,
    '/coherence/1/release/fixedNs': `UNC fence.acq_rel.cta assumed one shared-memory round trip (≈ an L1 hit, ${LAT.l1} ns)`,
    '/coherence/1/acquire/fixedNs': 'UNC CTA-scope acquire on one SM needs no invalidate, counted as 0',
    '/coherence/2/atomicLatencyNs': `UNC CUDA has no die scope: a die-local counter is a GPU-scope atomic on a line homed in the die's own L2 half, one near L2 round trip (${LAT.l2} ns, MEAS S52)`,
    '/coherence/2/release/fixedNs': `UNC fence.acq_rel.gpu for die-local data: one near L2 round trip (${LAT.l2} ns); the coherent L2 needs no write-back`,
    '/coherence/2/acquire/fixedNs': `UNC L1 invalidate assumed one L1 hit (${LAT.l1} ns)`,
    '/coherence/3/atomicLatencyNs': `UNC DER a device counter lives in one die's half: near L2 (${LAT.l2} ns) + half the cross-die extra (${LAT.l2CrossDieExtra} ns)`,
    '/coherence/3/release/fixedNs': 'UNC fence.acq_rel.gpu: no number exists; assumed one device-average L2 round trip, nothing to write back',
    '/coherence/3/acquire/fixedNs': `UNC L1 invalidate assumed one L1 hit (${LAT.l1} ns)`,
    '/coherence/4/atomicLatencyNs': 'UNC system-scope atomics on device memory assumed to resolve at the L2 like device scope',
    '/coherence/4/release/fixedNs': 'UNC fence.sc.sys orders against the host interface: assumed 1 µs, no measurement',
    '/coherence/4/acquire/fixedNs': `UNC as device scope: L1 invalidate, one L1 hit (${LAT.l1} ns)`,
    '/levels/wavefront/lanes': 'DS S49: warp of 32',
  },
};
