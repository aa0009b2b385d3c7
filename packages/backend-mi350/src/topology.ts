/**
 * AMD Instinct MI350X (CDNA4, gfx950) as a Fleet topology: the part the FLEET paper ran on.
 *
 * Cache organisation and coherence follow CDNA3 (the CDNA pieces come from
 * `@fleet/family-cdna`). No MI350 latency or cache-bandwidth measurement is public
 * (hardware.md §2.3), so latencies are MI300X cycle counts at MI350X's clock [UNC].
 * Tags in `sources` as in hardware.md (DS, DER, MEAS, MEAS*, CAL, UNC); S-ids are its §6.
 */
import type { Topology } from '@fleet/core';
import {
  MI300X_LATENCY_CYCLES as LAT,
  cdnaTopology,
  MI300X_L2_BYTES_PER_CLK_PER_XCD,
  MI300X_MALL_BYTES_PER_NS,
  type CdnaCoherenceParams,
} from '@fleet/family-cdna';

/** MI350X peak engine clock, GHz (S26/S29; MI355X runs 2.4). */
export const MI350X_CLOCK_GHZ = 2.2;
const CLK = MI350X_CLOCK_GHZ;

const XCDS = 8;
const CUS_PER_XCD = 32;

/** MI300X's measured L2 rate per XCD (3.4 TB/s at 2.1 GHz, S7) in bytes per clock. */
const L2_BYTES_PER_CLK = MI300X_L2_BYTES_PER_CLK_PER_XCD;

const latencyOrigin = `MI300X cycle counts (S7/S6) at ${CLK} GHz: no MI350 measurement exists (hardware.md §2.3)`;

const coherenceParams: CdnaCoherenceParams = {
  clockGHz: CLK,
  latencyCycles: LAT,
  latencyOrigin,
  chipletAtomic: {
    ns: 95,
    source:
      'MEAS FLEET repo benchmark/aid_remote_hbm README on MI350 (SPX/NPS1): single-chiplet dependent atomics 88–102 ns (seedcode.md §5); agrees with 205 L2 cycles at 2.2 GHz = 93 ns',
  },
};

export const topology: Topology = cdnaTopology({
  name: 'mi350',
  description: 'AMD Instinct MI350X (CDNA4): 8 XCDs × 32 CUs, 4 MiB private L2 per XCD, 256 MiB memory-side Infinity Cache (MALL), 288 GB HBM3E',
  xcds: XCDS,
  cusPerXcd: CUS_PER_XCD,
  ldsKiB: 160,
  l1BandwidthBytesPerNs: 64 * CLK,
  matrixFlopsPerClk: { bf16: 4096, fp16: 4096, fp8: 8192 },
  l2BandwidthBytesPerNs: Math.round(L2_BYTES_PER_CLK * CLK),
  llcBandwidthBytesPerNs: MI300X_MALL_BYTES_PER_NS,
  hbm: { capacityGiB: 288, peakBandwidthBytesPerNs: 8000, achievableBandwidthBytesPerNs: 5300 },
  coherence: coherenceParams,
  sources: {
    '/clockGHz': 'DS S26/S29: MI350X peak engine clock 2200 MHz (1000 W, air cooled); MI355X is 2400 MHz',
    '/partitions/computeUnits': 'DS S1b/S28: 256 CUs = 8 XCDs × 32 active (36 physical); CAL fleet-mi350-qwen3-8b.json calibration.hardware: 8 XCDs × 32 CUs',
    '/computeUnit/simdWidth': 'DS S1b: wave64',
    '/computeUnit/simdsPerUnit': 'DS S1b/S20: 4 × SIMD16 per CU',
    '/computeUnit/registerFileBytes': 'DS S1b: 512 KiB VGPR per CU',
    '/computeUnit/sharedMemoryBytes': 'DS S1b/S20: 160 KiB LDS per CU (64 banks, 256 B/clk)',
    '/computeUnit/l1/capacityBytes': 'DS S1b/S20: 32 KiB vL1D per CU',
    '/computeUnit/l1/lineBytes': 'DS S1b/S20: 128 B line',
    '/computeUnit/l1/associativity': 'UNC CDNA3 organisation (64-way × 4 sets, S20) carried over',
    '/computeUnit/l1/bandwidthBytesPerNs': `UNC MI300X's measured ≈64 B/clk/CU (S7) at ${CLK} GHz`,
    '/computeUnit/l1/latencyNs': `UNC ${LAT.l1} cycles, ${latencyOrigin}`,
    '/computeUnit/matrixFlopsPerNs/bf16': `DER S28: 4096 FLOP/clk/CU (2× CDNA3) × ${CLK} GHz (× 256 CUs = 2306.9 TFLOP/s dense)`,
    '/computeUnit/matrixFlopsPerNs/fp16': `DER S28: 4096 FLOP/clk/CU × ${CLK} GHz (2306.9 TFLOP/s dense)`,
    '/computeUnit/matrixFlopsPerNs/fp8': `DS/DER S28: 8192 FLOP/clk/CU × ${CLK} GHz (≈4614 TFLOP/s dense)`,
    '/computeUnit/vectorFlopsPerNs': `DS S29: FP32 vector 256 FLOP/clk/CU × ${CLK} GHz (144.2 TFLOP/s)`,
    '/computeUnit/maxBandwidthBytesPerNs': `UNC 64 B/clk/CU × ${CLK} GHz, as assumed for MI300X`,
    '/memory/l2/capacityBytes': 'DS S11/S20: 4 MiB per XCD, 16 channels, 32 MiB in total; CAL fleet-mi350-qwen3-8b.json l2PerXcdBytes 4194304',
    '/memory/l2/lineBytes': 'DS S20: 128 B line for reads (64 B for writes, not modelled)',
    '/memory/l2/associativity': 'DS S20: 16-way',
    '/memory/l2/bandwidthBytesPerNs': `UNC MI300X's measured 3.4 TB/s per XCD (S7) as bytes/clk × ${CLK} GHz; no MI350 measurement. The FLEET paper's calibration block states l2AggregateTBps 100 (12.5 TB/s per XCD), not adopted: it is 2.8× the 16-channel × 128 B/clk structural peak`,
    '/memory/l2/latencyNs': `UNC ${LAT.l2} cycles, ${latencyOrigin}`,
    '/memory/l2/writePolicy': 'DS S20: write-back, write-allocate; CDNA4 keeps a copy after write-back',
    '/memory/llc/capacityBytes':
      'DS S20/S29: 256 MiB Infinity Cache (32 MiB per HBM stack), memory-side; CAL fleet-mi350-qwen3-8b.json llcBytes 268435456 (FLEET code README quotes 224 MiB)',
    '/memory/llc/lineBytes': 'DS S20: 64 B line',
    '/memory/llc/associativity': 'UNC CDNA3 organisation (16-way, S20) carried over',
    '/memory/llc/bandwidthBytesPerNs': "UNC MI300X's measured 6.42 TB/s (S9); no MI350 MALL measurement (hardware.md §2.2 gap)",
    '/memory/llc/latencyNs': `UNC ${LAT.mall} cycles, ${latencyOrigin}`,
    '/memory/llc/writePolicy': 'UNC memory-side, not coherence-managed (S20); write-back assumed',
    '/memory/hbm/capacityBytes': 'DS S20/S29 "288 GB" HBM3E; DER 8 stacks × 36 GiB = 288 GiB',
    '/memory/hbm/peakBandwidthBytesPerNs': 'DS S20/S29/S1b: 8 stacks × 1024 bit × 8 Gb/s = 8.0 TB/s',
    '/memory/hbm/achievableBandwidthBytesPerNs':
      'CAL fleet-mi350-qwen3-8b.json calibration.hardware.hbmTBps: 5.3 TB/s "as the FLEET paper states" (66% of peak); no public MI350 stream measurement',
    '/memory/hbm/latencyNs': `UNC ${LAT.hbm} cycles, ${latencyOrigin}`,
  },
});
