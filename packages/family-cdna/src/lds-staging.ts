/**
 * The megakernel GEMM's K loop at one wave per SIMD.
 *
 * FLEET and Mirage MPK on CDNA run Composable Kernel's 16 × 64 × 256 GEMM tile (FLEET §6:
 * "16x64x256 CK GEMM tiles") with the workgroup's four waves side by side along N (MWarp 1 ×
 * NWarp 4, 16 × 16 × 32 MFMAs: ROCm/fleet-chiplet-megakernel `BlockGemmSmallM16Policy`) and
 * no second LDS buffer (`DoubleSmemBuffer` false). Each K-chunk is loaded into registers,
 * written to LDS, and after a barrier every wave reads the whole A chunk (the tile's 16 rows)
 * and its quarter of B back, multiplies, and meets the others at the next barrier. A CU
 * running one wave per SIMD (the megakernel's occupancy, FLEET §8) has no other wave to issue
 * meanwhile, so the chunk's LDS traffic adds to its load wait and its MFMAs: it is charged as
 * compute on the megakernel pipeline (overlap 1), which the runtime adds to the memory time.
 */

/** A GEMM tile staged through LDS: its rows (A, batch) and columns (B, weights), and how many waves split the columns. */
export interface LdsStagedTile {
  rows: number;
  cols: number;
  wavesAlongN: number;
}

/** The megakernel's tile: 16 batch rows × 64 output columns, four waves along N (see above). */
export const MEGAKERNEL_GEMM_TILE: LdsStagedTile = Object.freeze({ rows: 16, cols: 64, wavesAlongN: 4 });

/**
 * LDS bandwidth of a CU, bytes per clock: 32 banks × 4 B on CDNA3 (DS S1, CDNA3 white paper
 * "128 bytes/clock"), 64 banks × 4 B on CDNA4 (DS S1b/S20: LDS grown to 160 KiB with twice
 * the banks).
 */
export const CDNA3_LDS_BYTES_PER_CLK = 128;
export const CDNA4_LDS_BYTES_PER_CLK = 256;

/**
 * LDS bytes moved per matrix FLOP of `t` (bf16 operands): every K element of A's rows and B's
 * columns is written once; each wave then reads all of A's rows and its share of B's columns.
 * Per K element that is (rows + cols) written and (waves · rows + cols) read, 2 bytes each,
 * over 2 · rows · cols FLOPs. The 16 × 64 tile over four waves: 208 / 1024 ≈ 0.20 B/FLOP.
 */
export function ldsBytesPerFlop(t: LdsStagedTile): number {
  return (t.rows + t.cols + t.wavesAlongN * t.rows + t.cols) / (t.rows * t.cols);
}

/** How a kernel's GEMM tiles stage their operands through LDS, serial with the MFMAs. */
export interface LdsStaging {
  /** LDS bytes per matrix FLOP (`ldsBytesPerFlop`). */
  bytesPerFlop: number;
  /** The CU's LDS bandwidth, bytes/ns. */
  bytesPerNs: number;
}

/** The megakernel tile's staging on a CU whose LDS moves `bytesPerClk` at `clockGHz`. */
export function megakernelLdsStaging(bytesPerClk: number, clockGHz: number): LdsStaging {
  if (!(bytesPerClk > 0) || !(clockGHz > 0))
    throw new RangeError(`LDS staging needs a positive bandwidth and clock, got ${bytesPerClk} B/clk at ${clockGHz} GHz`);
  return { bytesPerFlop: ldsBytesPerFlop(MEGAKERNEL_GEMM_TILE), bytesPerNs: bytesPerClk * clockGHz };
}

/** Time the LDS round trip of `flops` matrix FLOPs takes under `s`, ns. */
export function ldsStagingNs(flops: number, s: LdsStaging): number {
  return (flops * s.bytesPerFlop) / s.bytesPerNs;
}
