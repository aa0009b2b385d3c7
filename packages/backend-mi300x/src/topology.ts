/**
 * AMD Instinct MI300X (CDNA3, gfx942) as a Fleet topology.
 *
 * Tags in `sources` (as in /work/shared/research/hardware.md): DS datasheet/vendor docs,
 * DER arithmetic on DS values, MEAS third-party measurement on this SKU, MEAS* on a close
 * relative, CAL our own measurement or a calibration value, UNC assumption.
 * Source ids S1..S53 are hardware.md §6.
 */
import type { Topology } from '@fleet/core';
import {
  MI300X_LATENCY_CYCLES as LAT,
  MI300X_L2_BYTES_PER_NS_PER_XCD,
  MI300X_MALL_BYTES_PER_NS,
  type CdnaCoherenceParams,
  cdnaTopology,
} from '@fleet/family-cdna';

/** Peak engine clock, GHz (S2; XCDs run 3–10% apart under load, S3). */
export const MI300X_CLOCK_GHZ = 2.1;
const CLK = MI300X_CLOCK_GHZ;

const XCDS = 8;
const CUS_PER_XCD = 38;
/** Aggregate vL1D bandwidth measured by gpu-benches (S7), TB/s. */
const L1_AGGREGATE_TBPS = 38.8;

const coherenceParams: CdnaCoherenceParams = {
  clockGHz: CLK,
  latencyCycles: LAT,
  latencyOrigin: `cycles MEAS on MI300X (S7/S6) at ${CLK} GHz`,
};

export const topology: Topology = cdnaTopology({
  name: 'mi300x',
  description: 'AMD Instinct MI300X (CDNA3): 8 XCDs × 38 CUs, 4 MiB private L2 per XCD, 256 MiB memory-side Infinity Cache (MALL), 192 GB HBM3',
  xcds: XCDS,
  cusPerXcd: CUS_PER_XCD,
  ldsKiB: 64,
  l1BandwidthBytesPerNs: Math.round((L1_AGGREGATE_TBPS * 1000 * 10) / (XCDS * CUS_PER_XCD)) / 10,
  matrixFlopsPerClk: { bf16: 2048, fp16: 2048, fp8: 4096 },
  l2BandwidthBytesPerNs: MI300X_L2_BYTES_PER_NS_PER_XCD,
  llcBandwidthBytesPerNs: MI300X_MALL_BYTES_PER_NS,
  hbm: { capacityGiB: 192, peakBandwidthBytesPerNs: 5300, achievableBandwidthBytesPerNs: 4200 },
  coherence: coherenceParams,
  sources: {
    '/clockGHz': 'DS S2: 2100 MHz peak engine clock (implied by the peak table); XCDs differ 3–10% under load (S3), not modelled',
    '/partitions/computeUnits': 'DS S1/S2: 304 CUs = 8 XCDs × 38 active (40 physical, 2 fused off)',
    '/computeUnit/simdWidth': 'DS S1: wavefront of 64 lanes (wave64)',
    '/computeUnit/simdsPerUnit': 'DS S21: 4 × SIMD16 per CU',
    '/computeUnit/registerFileBytes': 'DS S1/S21: 512 KiB VGPR+AGPR per CU',
    '/computeUnit/sharedMemoryBytes': 'DS S1: 64 KiB LDS per CU',
    '/computeUnit/l1/capacityBytes': 'DS S1: 32 KiB vL1D per CU',
    '/computeUnit/l1/lineBytes': 'DS S5: 128 B line',
    '/computeUnit/l1/associativity': 'DS S20: 64-way × 4 sets',
    '/computeUnit/l1/bandwidthBytesPerNs': `MEAS S7 gpu-benches: ${L1_AGGREGATE_TBPS} TB/s aggregate / 304 CUs (≈64 B/clk/CU)`,
    '/computeUnit/l1/latencyNs': `MEAS S7 gpu-latency mi300x: ${LAT.l1} cycles at ${CLK} GHz (S6: 112 cycles)`,
    '/computeUnit/l1/writePolicy': 'DS S1 write-through; MEAS S6 write-no-allocate (not modelled)',
    '/computeUnit/matrixFlopsPerNs/bf16': `DS S2: 2048 FLOP/clk/CU × ${CLK} GHz (× 304 CUs = 1307.4 TFLOP/s dense)`,
    '/computeUnit/matrixFlopsPerNs/fp16': `DS S2: 2048 FLOP/clk/CU × ${CLK} GHz (1307.4 TFLOP/s dense)`,
    '/computeUnit/matrixFlopsPerNs/fp8': `DS S2: 4096 FLOP/clk/CU × ${CLK} GHz (2614.9 TFLOP/s dense)`,
    '/computeUnit/vectorFlopsPerNs': `DS S2: FP32 vector 256 FLOP/clk/CU × ${CLK} GHz (163.4 TFLOP/s)`,
    '/computeUnit/maxBandwidthBytesPerNs': `UNC 64 B/clk/CU × ${CLK} GHz: the per-CU L1 rate S7 measured in aggregate, assumed to be what one CU can pull`,
    '/memory/l2/capacityBytes': 'DS S4: 4 MiB per XCD (16 channels × 256 KiB), private to the XCD, 32 MiB in total',
    '/memory/l2/lineBytes': 'DS S4: 128 B line',
    '/memory/l2/associativity': 'DS S4/S20: 16-way',
    '/memory/l2/bandwidthBytesPerNs':
      'MEAS S7 gpu-cache mi300x: ≈25–28 TB/s aggregate ≈ 3.4 TB/s per XCD for L2-resident read-only sets (structural peak ≈4.3 TB/s/XCD, DER/UNC)',
    '/memory/l2/latencyNs': `MEAS S7: ${LAT.l2} cycles (203–213, flat 36 KiB–4 MiB) at ${CLK} GHz`,
    '/memory/l2/writePolicy': 'DS S4: write-back, write-allocate',
    '/memory/llc/capacityBytes': 'DS S20/S4: 256 MiB Infinity Cache (MALL), memory-side, 32 MiB per HBM stack',
    '/memory/llc/lineBytes': 'DS S20: 64 B line',
    '/memory/llc/associativity': 'DS S20: 16-way',
    '/memory/llc/bandwidthBytesPerNs':
      'MEAS S9 rocm-amdgpu-bench "MALL BW" 6423 GB/s; S7 gpu-benches shows 8.5–9.7 TB/s for 14–35 MB sets and 5.5–6 TB/s for 57–233 MB; AMD peak ≈17 TB/s (S8, DS)',
    '/memory/llc/latencyNs': `MEAS S7: ${LAT.mall} cycles (455–460 for 4.7–64 MiB; ≈530 by 240 MiB) at ${CLK} GHz`,
    '/memory/llc/writePolicy': 'UNC the MALL is memory-side and not coherence-managed (S20); write-back assumed',
    '/memory/hbm/capacityBytes': 'DS S2 "192 GB" HBM3; DER 8 stacks × 24 GiB = 192 GiB',
    '/memory/hbm/peakBandwidthBytesPerNs': 'DS S2: 5.3 TB/s',
    '/memory/hbm/achievableBandwidthBytesPerNs': 'MEAS S7 gpu-stream mi300x: 4.2 TB/s read (79%); S10 ROCm roofline also 4.2 TB/s',
    '/memory/hbm/latencyNs': `MEAS S7: ${LAT.hbm} cycles (880–905 at ≥ 400 MiB, TLB misses included) at ${CLK} GHz`,
  },
});
