/**
 * The kernels PyTorch 2.11 launches on an H100 for decode, as the libraries pick them:
 * cuBLASLt 13.0's nvjet GEMMs and cuDNN 9.19's SDPA. Selection follows the libraries'
 * objective — the fewest waves of the slowest tile over the 132 SMs, split-K when the grid
 * would leave SMs idle — over the tile menu we saw them use (reference/h100-pipeline-ours.json);
 * which tile wins at which M is predicted, and compared with the kernels they really chose
 * in `fleet validate --suite h100-pipeline`.
 */
import {
  dramLatencyAtInFlight,
  gemmRaster,
  inFlightFromRate,
  loadedDramLatencyNs,
  occupancy,
  type ComputeResources,
  type DecodeAttentionKernel,
  type DecodeAttentionShape,
  type GemmFp8,
  type GemmKernel,
  type GemmShape,
  type GroupedGemmKernel,
  type GroupedGemmShape,
  type KernelLibrary,
  type PrefillAttentionKernel,
  type PrefillAttentionShape,
  type TilePipeline,
} from '@fleet/core';
import { selectFlashDecode } from './flash-decoding.js';
import { median } from './stats.js';
import { DECODE_BLOCKS, FP8_CAL, GAPS, KSWEEP, PIPELINE, PREFILL_TILES } from './reference/calibration.js';
import { selectLowBitGemm, type DenseGemm, type LowBitKernelFamily } from './lowbit-gemm.js';
import { h100Sm80Device } from './lowbit-h100.js';
import { GRAPH_GAP_NS, GRAPH_LAUNCH_NS, TILE_OVERHEAD_NS, VECTOR_EFFICIENCY, WGMMA_EFFICIENCY } from './cost-params.js';
import { H100_CLOCK_GHZ, H100_LATENCY_CYCLES as LAT, H100_SXM5 as topology } from './reference/topology.js';

/** DS (CUDA C programming guide, compute capability 9.0): per-SM limits. */
export const H100_SM: ComputeResources = {
  waveSize: 32,
  simds: 4, // four SM sub-partitions, one warp scheduler each
  maxWavesPerSimd: 16, // 64 warps per SM
  registersPerSimd: 65536 / 4,
  registerGranularity: 8, // 256 registers per warp
  sharedBytes: 228 * 1024,
  maxBlocks: 32,
};

const SMS = topology.partitions.computeUnits.reduce((a, b) => a + b, 0);
const HBM_NS = LAT.hbm / H100_CLOCK_GHZ;
const L2_NS = LAT.l2 / H100_CLOCK_GHZ;

/**
 * Little's law over a calibration kernel: bytes one CTA keeps outstanding at the DRAM, given
 * the bytes it streamed in `ns` while `ctas` like it streamed beside it. The latency is the
 * DRAM's at the whole kernel's bandwidth (topology.memory.hbm.loadedLatency): a kernel
 * measured near saturation waited in queues, and the unloaded latency would undercount the
 * bytes it had in flight.
 */
function ctaInFlight(bytes: number, ns: number, ctas: number): number {
  return inFlightFromRate(topology.memory.hbm, bytes / ns, (ctas * bytes) / ns);
}

/**
 * DER from the tile menu: every nvjet tile's stage count in our sweep is
 * min(16, ⌊budget / ((tileCols + tileRows) × 64 × 2 B)⌋) for a budget in [215040, 221184) B:
 * 227 KB of shared memory per CTA less the epilogue and barriers. 216 KiB taken.
 */
export const NVJET_STAGE_BUDGET = 216 * 1024;
const NVJET_K_TILE = 64;

/**
 * DER from CAL `gemvStream`: the bytes of DRAM reads an nvjet CTA would keep outstanding if its
 * whole call were streaming. At M = 1 each of 96 CTAs streams 64 × 4096 × 2 B of weights in
 * the kernel's profiled time in a graph (`GAPS.layer`, the same kernel and shape; the per-call
 * time of a graph of six calls also holds the graph's own launch) less what the simulation
 * charges apart — the first access and the per-tile overhead — and Little's law at the DRAM latency under that kernel's own load
 * (~2/3 of the H100's saturation) gives the bytes. One point cannot tell the kernel's fixed
 * cost from its stream, so this folds the fixed cost in (CAL `KSWEEP` separates them, below);
 * it stays the figure of the nvjet CTAs of a multicast pair (several row tiles), which no sweep
 * separated, and the one the row-wise FP8 and CUTLASS grouped kernels transfer, all priced
 * without a fixed cost of their own.
 */
const GEMV_CTA_BYTES = 64 * PIPELINE.gemvStream.k * 2;
const GEMV_PROFILED = GAPS.layer.kinds.find((k) => k.name === PIPELINE.gemvStream.kernel && k.grid[0]! * k.grid[1]! === PIPELINE.gemvStream.ctas)!;
const GEMV_STREAM_NS = GEMV_PROFILED.us * 1000 - HBM_NS - TILE_OVERHEAD_NS;
export const GEMV_STREAM_DRAM_IN_FLIGHT = Math.round(ctaInFlight(GEMV_CTA_BYTES, GEMV_STREAM_NS, PIPELINE.gemvStream.ctas));

/**
 * The sweep's fits of the tiles priced from it: 8 batch rows, M = 1 and 8. Its fits at M = 16–64
 * (tiles of 16–64 rows) set nothing yet: the same in-flight gives their rates back within 8%
 * (kernel-library.test.ts), but their intercepts grow with the tile's stage (2.2–3.9 µs for
 * 64-column tiles, 4.4–5.8 for 192-column ones), which the pricing does not separate.
 */
const KSWEEP_GEMV_FITS = KSWEEP.fits.filter((f) => f.m <= 8);

/**
 * DER from CAL `KSWEEP`: an nvjet CTA keeps this many bytes of DRAM reads outstanding. Over K
 * the skinny kernels' time is a line, fixed + bytes / rate (20 fits: 64x8, 192x8, split-K or
 * not, grids of 96–128 CTAs, M = 1 and 8, two H100s); the rate, 2.72–3.06 TB/s, is the
 * stream's alone. Little's law per fit — each CTA's share of the rate times the DRAM latency
 * at the whole rate (topology.memory.hbm.loadedLatency) — gives 13.9–19.5 KB; the median
 * taken: the H200's sweep (held out, `fleet validate --suite h200-ksweep`) checks it. Its stage
 * ring (16 × 9 KiB for 64x8, 8 × 25 KiB for 192x8) is not all in flight at the DRAM: the
 * producer's TMA issue is the limit. The same CTAs stream L2 hits through their full ring.
 */
export const NVJET_DRAM_IN_FLIGHT = Math.round(
  median(KSWEEP_GEMV_FITS.map((f) => inFlightFromRate(topology.memory.hbm, (f.TBps * 1000) / f.ctas, f.TBps * 1000))),
);

/** The median intercept (profiled kernel µs) of the sweep's fits of tiles `cols` wide. */
function ksweepFixedUs(cols: number): number {
  return median(KSWEEP_GEMV_FITS.filter((f) => f.kernel.startsWith(`nvjet_sm90_tst_${cols}x`)).map((f) => f.fixedUs));
}
const KSWEEP_NARROW = { cols: 64, us: ksweepFixedUs(64) };
const KSWEEP_WIDE = { cols: 192, us: ksweepFixedUs(192) };

/**
 * DER from CAL `KSWEEP`: the time an nvjet CTA of a single-wave grid spends outside its
 * stream, ns — starting the producer and consumer warps, filling the first stages, the
 * epilogue and the grid's tail — by the tile's width. The fits' intercepts (profiled kernel
 * time) grow with it: median 2.62 µs over the twelve 64x8 fits, 3.67 over the eight 192x8
 * ones (each stage carries a wider weight tile, and the epilogue stores more columns). A line
 * through the two, less what the simulation charges apart (the first access and the per-tile
 * overhead). The sweep's grids are single waves (≤ 128 CTAs); larger grids keep no such
 * charge, their next wave's fill running under the last one's epilogue.
 */
export function nvjetTileFixedNs(tileCols: number): number {
  const us = KSWEEP_NARROW.us + ((KSWEEP_WIDE.us - KSWEEP_NARROW.us) * (tileCols - KSWEEP_NARROW.cols)) / (KSWEEP_WIDE.cols - KSWEEP_NARROW.cols);
  return Math.max(0, Math.round(us * 1000 - HBM_NS - TILE_OVERHEAD_NS));
}

/**
 * CAL ours (`GAPS.layer`): cuBLASLt's split-K reduction kernel at M = 1 (`splitKreduce_kernel`,
 * 4096 columns), its profiled run in a graph. With the gap before it, what splitting K costs
 * the selection objective beside the partial sums' traffic.
 */
export const SPLITK_REDUCE_NS = GAPS.layer.kinds.find((k) => k.name.includes('splitKreduce'))!.us * 1000;

/**
 * The DRAM latency nvjet's selection objective charges a grid: the latency its CTAs' weight
 * streams see when every resident CTA keeps its DRAM bytes in flight (Little's law over the
 * loaded-latency curve). More CTAs load the memory harder, so a wider grid does not stream
 * proportionally faster (cuBLASLt keeps a 96-CTA GEMV of N = 6144 rather than split K over
 * the 132 SMs). cuBLASLt's heuristic is the library's, not the device's — it picks the
 * same kernels on an H200 — so the objective stays the H100's whatever the memory.
 */
function selectionHbmNs(residentCtas: number, ctaInFlightBytes: number): number {
  return dramLatencyAtInFlight(topology.memory.hbm, residentCtas * ctaInFlightBytes);
}

/**
 * CAL `nvjetTileMenu`: the tiles (output columns × batch rows) of every nvjet kernel cuBLASLt
 * ran in our sweep — the library's compiled menu, from 64x8 for a GEMV to 320x128 and
 * 192x192. The selection chooses among these only: wgmma takes batch rows in steps of 8, but
 * the library compiled 8–64, 80, 96, 128, 160 and 192, and column widths from 32 to 320.
 */
const NVJET_MENU: readonly { cols: number; rows: number }[] = [
  ...new Map(
    PIPELINE.nvjetTileMenu.tiles.map((t) => {
      const [cols, rows] = t.split('_')[0]!.split('x').map(Number) as [number, number];
      return [`${cols}x${rows}`, { cols, rows }] as const;
    }),
  ).values(),
].sort((a, b) => a.rows - b.rows || a.cols - b.cols);
const NVJET_ROWS = [...new Set(NVJET_MENU.map((t) => t.rows))];
const NVJET_MAX_ROWS = NVJET_ROWS[NVJET_ROWS.length - 1]!;

/** The most batch rows of a tile whose fixed cost and stream the sweeps over K measured (M = 1–64). */
const KSWEEP_MAX_ROWS = 64;

export function nvjetStages(tileCols: number, tileRows: number): number {
  return Math.min(16, Math.floor(NVJET_STAGE_BUDGET / ((tileCols + tileRows) * NVJET_K_TILE * 2)));
}

/**
 * CTAs that share a weight tile: with at least two batch tiles, two row tiles of a column
 * tile run side by side and fetch its weights once. nvjet's cluster (the `AxB` in its names:
 * A CTAs along the weight rows, B along the batch) multicasts the larger operand tile: the
 * weights (`1x2`, `4x2`) for tiles wider than tall — 64x8 … 64x32, 96x64, 128x64, 144x128 …
 * 320x128 in our sweeps — the batch rows (`2x1`) for 80x128 … 128x128, and mostly for 48x64
 * and 64x64 (a third of their runs are `4x2`, both); with the batch rows multicast, the pair
 * shares its weight tile through the L2 instead. Either way two.
 */
export function multicast(rowTiles: number): number {
  return Math.min(2, rowTiles);
}

/**
 * The tiles whose fixed cost the sweeps over K measured (CAL `KSWEEP` at M = 1 and 8; its
 * M = 16–64 runs, held out, check them): up to 64 batch rows in one row tile.
 */
export function skinnyTile(tileRows: number, rowTiles: number): boolean {
  return tileRows <= KSWEEP_MAX_ROWS && rowTiles === 1;
}

/**
 * The DRAM bytes an nvjet CTA keeps outstanding. A CTA alone on its weight tile (one row tile)
 * keeps the sweep's figure whatever its batch rows: the stream is its producer's TMA issue,
 * which the batch rows (read from the L2) do not change, and the sweep's rate held from 8 to
 * 64 rows (its M = 16–64 fits, 2.7–3.0 TB/s). A multicast pair's CTA (several row tiles), which
 * no sweep separated into a fixed cost and a stream, keeps the whole-call figure of CAL
 * `gemvStream`, each CTA issuing half of every weight stage over the same producer.
 */
function ctaDramInFlight(rowTiles: number): number {
  return rowTiles === 1 ? NVJET_DRAM_IN_FLIGHT : GEMV_STREAM_DRAM_IN_FLIGHT;
}

export function nvjetPipeline(tileCols: number, tileRows: number, rowTiles = 1): TilePipeline {
  const stages = nvjetStages(tileCols, tileRows);
  // One producer warp + two consumer warpgroups, one CTA per SM (shared memory bound).
  const occ = occupancy(H100_SM, { threads: 384, registersPerThread: 168, sharedBytes: stages * (tileCols + tileRows) * NVJET_K_TILE * 2 });
  return {
    inFlightBytes: stages * (tileCols + tileRows) * NVJET_K_TILE * 2 * Math.max(1, occ.blocks),
    dramInFlightBytes: ctaDramInFlight(rowTiles) * multicast(rowTiles),
    overlap: stages,
  };
}

/**
 * CAL ours (reference/h100-fp8-ours.json: `torch._scaled_mm` e4m3 per-tensor beside bf16
 * `F.linear` at M = 4096, the sweep's three calibration shapes): cuBLASLt's FP8 main loop
 * reaches this fraction of the bf16 main loop's share of its peak — the compute-bound FP8
 * speedup over the peak ratio, median of the three (1.82, 1.99, 1.73 over 2). The sweep's
 * other three shapes set nothing: they are the held-out rows of `fleet validate --suite h100-fp8`.
 */
export const FP8_RELATIVE_EFFICIENCY = (() => {
  const rows = FP8_CAL.rows;
  const peakRatio = topology.computeUnit.matrixFlopsPerNs.fp8! / topology.computeUnit.matrixFlopsPerNs.bf16;
  return median(
    rows
      .filter((x) => x.variant === 'bf16')
      .map((b) => b.usPerCall / rows.find((f) => f.variant === 'e4m3-tensor' && f.n === b.n && f.k === b.k)!.usPerCall / peakRatio),
  );
})();

/**
 * DS (S33): Hopper's dense FP8 tensor peak, 1978.9 TFLOP/s, is twice the bf16 one; at the
 * main loop's relative efficiency above, an FP8 GEMM's tile FLOPs count this fraction of a
 * bf16 tile's at the cost model's (bf16) matrix rate.
 */
export const FP8_MATRIX_FLOPS_SCALE = topology.computeUnit.matrixFlopsPerNs.bf16 / topology.computeUnit.matrixFlopsPerNs.fp8! / FP8_RELATIVE_EFFICIENCY;

/** The peak ratio alone (DS S33): what cuBLASLt's selection objective charges an FP8 tile, its heuristic knowing its kernels' peak, not our calibration. */
const FP8_PEAK_FLOPS_SCALE = topology.computeUnit.matrixFlopsPerNs.bf16 / topology.computeUnit.matrixFlopsPerNs.fp8!;

/**
 * The library's estimate of one candidate's time, ns (its selection objective): a menu tile of
 * `cols` output columns × `rows` batch rows, K split `splitK` ways. Exported so a study can set
 * it beside the simulated time of the same kernel (`nvjetKernel`).
 *
 * A grid of one wave (decode, and the sweeps over K that set its stream) is priced per CTA: its
 * weight tile streamed at the DRAM rate, shared by a multicast pair. A grid of several waves is
 * a persistent kernel whose SMs run tile after tile, and is priced per round as the machine runs
 * it: each round's CTAs meet in the L2 on the operand tiles they share, read again from DRAM
 * whatever the raster sweeps past the L2 (`waveDramBytes`), and share the L2's bandwidth for
 * every operand byte they read.
 */
export function nvjetEstimateNs(s: GemmShape, cols: number, rows: number, splitK: number): number {
  const colTiles = Math.ceil(s.n / cols);
  const rowTiles = Math.ceil(s.m / rows);
  const ctas = colTiles * rowTiles * splitK;
  const k = s.k / splitK;
  const shared = multicast(rowTiles);
  const pipe = nvjetPipeline(cols, rows, rowTiles);
  const multiWave = ctas > SMS;
  // Every CTA streams its weight tile through its own producer at the DRAM rate, except that
  // the CTAs of a cluster sharing the tile (TMA multicast) each fetch their share of it; in a
  // grid of several waves, the bytes its round reads from DRAM, shared by the round's CTAs.
  const dram = multiWave ? waveDramBytes(s, cols, rows) : (cols * k * s.weightBytes) / shared;
  // W8A8: FP8 activations, FP8 MMAs at twice the bf16 rate.
  const onChip = rows * k * (s.fp8 ? 1 : 2);
  const computeNs = ((2 * cols * rows * k) / (topology.computeUnit.matrixFlopsPerNs.bf16 * WGMMA_EFFICIENCY)) * (s.fp8 ? FP8_PEAK_FLOPS_SCALE : 1);
  const onChipNs = Math.max((onChip * L2_NS) / pipe.inFlightBytes, (dram + onChip) / topology.computeUnit.maxBandwidthBytesPerNs);
  // A CTA bound by compute or on-chip reads keeps its DRAM bytes in flight only for the share
  // of its time its weight stream takes, so it loads the memory less (as the machine charges
  // it). Two fixed-point steps from the unloaded latency settle the load and the latency.
  // The same bytes outstanding per CTA as the machine charges; a multicast pair's CTA keeps
  // them for its half of the tile.
  const w = ctaDramInFlight(rowTiles);
  const busyNs = Math.max(computeNs, onChipNs);
  let dramNs = (dram * topology.memory.hbm.latencyNs) / w;
  for (let i = 0; i < 2; i++) {
    const duty = busyNs > 0 ? Math.min(1, dramNs / busyNs) : 1;
    dramNs = (dram * selectionHbmNs(Math.min(ctas, SMS), w * duty)) / w;
  }
  const memNs = Math.max(dramNs, onChipNs);
  const waves = Math.ceil(ctas / SMS);
  if (multiWave) {
    // Each round's CTAs share the L2's bandwidth for every byte of their operand tiles (the
    // machine serves each CTA's reads, a multicast pair's included), whether or not they fill
    // the round: the rounds are whole tiles, and a round is as long as its slowest resource.
    const l2RoundNs = ((onChip + cols * k * s.weightBytes) * SMS) / topology.memory.l2.bandwidthBytesPerNs;
    return waves * Math.max(memNs, computeNs, l2RoundNs);
  }
  const reduceNs = splitK > 1 ? GRAPH_GAP_NS + SPLITK_REDUCE_NS + (s.m * s.n * 4 * splitK) / topology.memory.hbm.achievableBandwidthBytesPerNs : 0;
  // The L2, which all SMs share, serves every re-read of an operand: each CTA's activation
  // rows, and the weight tile again for every further row tile, a multicast pair's second CTA
  // included (the machine reads the tile for each CTA). Small tiles over a large problem
  // re-read so often that the L2's bandwidth, not the SMs, sets the time.
  const weightRereads = s.n * s.k * s.weightBytes * Math.max(0, rowTiles - 1);
  const l2Ns = (ctas * onChip + weightRereads) / topology.memory.l2.bandwidthBytesPerNs;
  return Math.max(memNs, computeNs, l2Ns) + reduceNs;
}

/**
 * The DRAM bytes per CTA of a grid of several waves, as its raster (`NVJET_RASTER`) walks it:
 * the CTAs of a round that share an operand tile meet in the L2, so a round reads each tile it
 * spans once; the operand the raster sweeps once per tile of the other (the weights along N,
 * the activations along M) stays in the L2 for the next sweep only if it fits one half of it
 * (the SMs of either half read every tile of a sweep, and each half keeps its own copy). So a
 * weight larger than 25 MB swept along N is read from DRAM again by every round, or by every
 * row tile when a round does not cover one. The other operand is read once.
 */
export function waveDramBytes(s: GemmShape, cols: number, rows: number): number {
  const colTiles = Math.ceil(s.n / cols);
  const rowTiles = Math.ceil(s.m / rows);
  const tiles = colTiles * rowTiles;
  const round = Math.min(tiles, SMS);
  const weight = s.n * s.k * s.weightBytes;
  const act = s.m * s.k * (s.fp8 ? 1 : 2);
  const alongM = gemmRaster({ raster: NVJET_RASTER }, rowTiles, colTiles) === 'along-m';
  const [swept, sweptTiles, other, otherTiles] = alongM ? [act, rowTiles, weight, colTiles] : [weight, colTiles, act, rowTiles];
  const l2 = topology.memory.l2;
  const fits = swept <= l2.capacityBytes / (l2.organisation === 'shared' ? (l2.halves ?? 1) : 1);
  // A band of `NVJET_SWIZZLE` tiles across the raster sweeps the operand once.
  const band = Math.min(NVJET_SWIZZLE, otherTiles);
  const sweeps = fits ? 1 : round >= sweptTiles * band ? tiles / round : Math.ceil(otherTiles / band);
  return (swept * sweeps + other) / tiles;
}

/**
 * PyTorch's W4A16 kernel (`torch._weight_int4pack_mm`, tinygemm), as the profiler shows it
 * (CAL `int4Stream`): one CTA of 8 warps per 16 batch rows × 8 output columns over all of K
 * (mma.m16n8k16 with the weights as the 16-row operand), 64 registers, 4 KiB of shared
 * memory; activation rows are loaded only where they exist.
 */
export const TINYGEMM = {
  tileRows: 16,
  tileCols: 8,
  threads: PIPELINE.int4Stream.threads,
  registersPerThread: PIPELINE.int4Stream.registersPerThread,
  sharedBytes: PIPELINE.int4Stream.sharedBytes,
};

/**
 * DER from CAL `int4Stream`: the bytes an SM running tinygemm CTAs keeps in flight. Its warps
 * load codes, scales and activations straight into registers (no shared-memory stages), so
 * one limit covers all of its reads. Little's law over the measured kernel, as the machine
 * runs it: each SM's CTAs stream their DRAM bytes (codes + scale/zero pairs) at the DRAM
 * latency under the kernel's own load and their activation row at the L2's, after one first
 * access and the per-tile overheads that the resident CTAs do not hide.
 */
export const TINYGEMM_IN_FLIGHT = (() => {
  const c = PIPELINE.int4Stream;
  const perSm = c.ctas / SMS;
  const dram = TINYGEMM.tileCols * c.k * 0.5 + (c.k / c.group) * TINYGEMM.tileCols * 2 * 2;
  const act = c.m * c.k * 2;
  const fixedNs = (perSm * (HBM_NS + TILE_OVERHEAD_NS)) / tinygemmResident();
  const dramNs = loadedDramLatencyNs(topology.memory.hbm, (c.ctas * dram) / (c.kernelUs * 1000));
  return Math.round((perSm * (dram * dramNs + act * L2_NS)) / (c.kernelUs * 1000 - fixedNs));
})();

function tinygemmResident(): number {
  return occupancy(H100_SM, TINYGEMM).blocks;
}

function tinygemm(): GemmKernel {
  const occ = occupancy(H100_SM, TINYGEMM);
  // Without shared-memory stages the overlap is the warps each scheduler interleaves.
  return {
    name: 'tinygemm_m16n8k16_chunk_kernel',
    tileRows: TINYGEMM.tileRows,
    tileCols: TINYGEMM.tileCols,
    splitK: 1,
    maskedRows: true,
    pipeline: { inFlightBytes: TINYGEMM_IN_FLIGHT, overlap: occ.wavesPerSimd, residentTiles: occ.blocks },
  };
}

/**
 * The GEMM cuBLASLt runs (bf16, fp8) or, for packed sub-byte weights, the low-bit kernel of
 * the library's choice (lowbit-gemm.ts): Tilus's by default, Triton's, or PyTorch's tinygemm
 * (the W4A16 kernel PyTorch ships for Hopper, assumed for every sub-byte format).
 */
export function selectGemm(s: GemmShape, lowBit: LowBitChoice = 'tilus'): GemmKernel {
  if (s.fp8) return selectNvjetFp8(s);
  if (!s.quant && s.weightBytes >= 1) return selectNvjet(s);
  return lowBit === 'tinygemm' ? tinygemm() : selectLowBitGemm(H100_LOWBIT, s, lowBit, NVJET_DENSE);
}

/** Low-bit kernels a Hopper library can run for sub-byte weights. */
export type LowBitChoice = LowBitKernelFamily | 'tinygemm';

const H100_LOWBIT = h100Sm80Device(H100_SM);
/** nvjet as the low-bit selection's dense GEMM (dequantize-then-GEMM) and its own estimate. */
const NVJET_DENSE: DenseGemm = {
  kernel: selectNvjet,
  estimateNs: (s) => {
    const k = selectNvjet(s);
    return nvjetEstimateNs(s, k.tileCols, k.tileRows, k.splitK);
  },
};

/** FP8 K-tiles are 128 one-byte elements deep: the bf16 tiles' 64 × 2 B per row. */
const FP8_K_TILE = 128;

/**
 * DER from CAL `gemvStream` (UNC transfer), as CUTLASS_GROUPED_DRAM_IN_FLIGHT: the row-wise
 * kernel's single TMA producer keeps the same fraction of its weight stage outstanding at the
 * DRAM as the calibrated nvjet GEMV does of its 64-column one; its stage holds 128 columns
 * × 128 B, twice as many bytes.
 */
export const ROWWISE_DRAM_IN_FLIGHT = Math.round((GEMV_STREAM_DRAM_IN_FLIGHT / (64 * NVJET_K_TILE * 2)) * (128 * FP8_K_TILE));

/**
 * CAL ours (bench/results/h100/sweep.json, section fp8, the row-wise kernel on the calibration
 * shapes (N, K) = (6144, 4096), (24576, 4096), (7168, 8192) at M = 1, 16, 64): the time a
 * row-wise CTA's weight stage waits, per K-stage, for each out-of-bounds activation row that
 * each CTA resident beside it loads, ns. Its 128-row activation box crosses the tensor's edge
 * at M < 128 and TMA's boundary check fills the rows past it: DeepGEMM's maintainers find TMA
 * loads slower for a partial tile than for a full one, "due to boundary check", and faster
 * once the input is padded (deepseek-ai/DeepGEMM, GitHub issue 35, on an H800). In our sweep the kernel is slowest at
 * M = 1 (1.1–1.3× its time at M = 64, which fills half as many rows), more so the more CTAs
 * run it (N/128 of them: per-CTA weight rate 36.6 B/ns at 32 CTAs, 28 at 48–56, 23 at 64, the
 * DRAM at 35–48% of its bandwidth), not at M = 256 (two full row tiles, twice the CTAs), and
 * the same on the H200's faster memory: a cost on the die, shared by the grid. UNC: that
 * mechanism (the boundary check's work, shared by the resident CTAs). 0.035 of 0.025, 0.03 and
 * 0.035 gives the least mean error over the nine calibration rows (5.1% against 6.5 and 7.8,
 * timed without a profiler session attached); the sweep's other shapes (32 and 64 CTAs) and
 * the H200 check it.
 */
export const ROWWISE_OOB_ROW_NS = 0.035;

/**
 * The row-wise kernel's DRAM bytes in flight per CTA: ROWWISE_DRAM_IN_FLIGHT over the DRAM
 * latency, less the share of each stage's round trip its activation box's boundary check adds
 * (ROWWISE_OOB_ROW_NS per out-of-bounds row of each CTA loading at once). The CTAs at once are
 * the grid's over its waves; a batch of whole row tiles crosses no edge.
 */
export function rowwiseDramInFlight(m: number, n: number, cols: number, rows: number): number {
  const rowTiles = Math.ceil(m / rows);
  const tiles = Math.ceil(n / cols) * rowTiles;
  const resident = tiles / Math.ceil(tiles / SMS);
  const outOfBounds = (rowTiles * rows - m) / rowTiles;
  return Math.round((ROWWISE_DRAM_IN_FLIGHT * HBM_NS) / (HBM_NS + ROWWISE_OOB_ROW_NS * resident * outOfBounds));
}

/**
 * cuBLASLt's FP8 GEMM (`torch._scaled_mm`), as our sweep profiled it (bench/results/h100/
 * sweep.json, section fp8: 144 kernels over six shapes × M = 1–4096). Per-tensor scales run
 * the bf16 GEMM's nvjet family (`nvjet_sm90_qqtst_…`, `qr` for e5m2 activations) on FP8
 * operands: K-tiles of 128 one-byte elements (the same bytes per stage, so the same stage
 * counts), the same tile menu, split-K and clusters, chosen by the same objective. Row-wise
 * (per-channel × per-token) scales run one kernel at every shape and M in the sweep,
 * `nvjet_sm90_qqtst_128x128_128x6_1x1_h_bz_coopA_algo2_ovscale`: 128 × 128 tiles, 6 stages,
 * no cluster (no multicast), no split-K, a grid of one CTA per tile up to the 132 SMs
 * (persistent beyond); its weight stream slows with the activation rows its boxes fill past
 * the tensor's edge (`rowwiseDramInFlight`). Both apply their scales to the fp32 accumulators
 * in the epilogue; the tile FLOPs count at the FP8 rate.
 */
function selectNvjetFp8(s: GemmShape): GemmKernel {
  const qr = s.fp8!.activations.startsWith('f8e5m2') ? 'qr' : 'qq';
  if (s.fp8!.scales === 'channel') {
    const [cols, rows] = [128, 128];
    return {
      name: `nvjet_sm90_${qr}tst_${cols}x${rows}_${FP8_K_TILE}x${nvjetStages(cols, rows)}_1x1_ovscale`,
      tileRows: rows,
      tileCols: cols,
      splitK: 1,
      matrixFlopsScale: FP8_MATRIX_FLOPS_SCALE,
      pipeline: { ...nvjetPipeline(cols, rows, 1), dramInFlightBytes: rowwiseDramInFlight(s.m, s.n, cols, rows) },
      raster: NVJET_RASTER,
      swizzle: NVJET_SWIZZLE,
    };
  }
  const k = selectNvjet(s);
  const stages = nvjetStages(k.tileCols, k.tileRows);
  return {
    ...k,
    name: `nvjet_sm90_${qr}tst_${k.tileCols}x${k.tileRows}_${FP8_K_TILE}x${stages}${k.splitK > 1 ? '_splitK' : ''}`,
    matrixFlopsScale: FP8_MATRIX_FLOPS_SCALE,
  };
}

/**
 * Whether cuBLASLt has an FP8 GEMM for these operands: Hopper's FP8 MMAs take the OCP
 * encodings, e4m3 and e5m2, and cuBLASLt's FP8 matmuls need at least one e4m3 operand
 * (DS cuBLAS documentation, cublasLtMatmul FP8 type combinations: no e5m2 × e5m2).
 */
export function hopperFp8Refusal(fp8: GemmFp8): string | null {
  if (fp8.weights.endsWith('fnuz') || fp8.activations.endsWith('fnuz'))
    return "Hopper's FP8 tensor cores take the OCP encodings (f8e4m3, f8e5m2), not AMD's FNUZ ones";
  if (fp8.weights === 'f8e5m2' && fp8.activations === 'f8e5m2') return "cuBLASLt's FP8 GEMMs need at least one e4m3 operand (no e5m2 × e5m2)";
  return null;
}

function selectNvjet(s: GemmShape): GemmKernel {
  let best: { cols: number; rows: number; splitK: number; ns: number; ctas: number; rowTiles: number } | null = null;
  // Row tiles up to the menu's first width that holds all of M: cuBLASLt covers a batch of up
  // to 64 with one row tile (64x16 at M = 16, 64x64 at M = 64), not with two narrower ones.
  const maxRows = NVJET_ROWS.find((r) => r >= s.m) ?? NVJET_MAX_ROWS;
  for (const { cols, rows } of NVJET_MENU) {
    if (rows > maxRows) break;
    for (let splitK = 1; splitK <= 4; splitK++) {
      // Split-K in whole K-tiles; one split takes any K (the last K-tile is masked).
      if (splitK > 1 && s.k % (splitK * NVJET_K_TILE) !== 0) continue;
      const ctas = Math.ceil(s.n / cols) * Math.ceil(s.m / rows) * splitK;
      // Split-K fills idle SMs of a single wave; it never makes a grid longer than one wave.
      if (splitK > 1 && ctas > SMS) continue;
      const ns = nvjetEstimateNs(s, cols, rows, splitK);
      // Ties (within 1%) go to fewer row tiles, then to no split, then to fewer CTAs: a second
      // row tile couples the CTAs of a column in a multicast cluster, whose stages wait on both
      // consumers; a split adds the reduction; more CTAs re-read more.
      const rowTiles = Math.ceil(s.m / rows);
      const tie =
        best !== null &&
        ns <= best.ns * 1.01 &&
        (rowTiles < best.rowTiles || (rowTiles === best.rowTiles && (splitK < best.splitK || (splitK === best.splitK && ctas < best.ctas))));
      if (!best || ns < best.ns * 0.99 || tie) {
        best = { cols, rows, splitK, ns, ctas, rowTiles };
      }
    }
  }
  const b = best!;
  return nvjetKernel(s, b.cols, b.rows, b.splitK);
}

/**
 * The nvjet kernel of one menu tile and split-K for a shape, as the machine runs it: its stages,
 * pipeline and fixed cost. `selectNvjet` returns this for the candidate its objective prefers; a
 * study can price any other candidate (e.g. the one cuBLAS was measured running) the same way.
 */
export function nvjetKernel(s: GemmShape, cols: number, rows: number, splitK: number): GemmKernel {
  const stages = nvjetStages(cols, rows);
  const rowTiles = Math.ceil(s.m / rows);
  const ctas = Math.ceil(s.n / cols) * rowTiles * splitK;
  return {
    name: `nvjet_sm90_tst_${cols}x${rows}_${NVJET_K_TILE}x${stages}${splitK > 1 ? '_splitK' : ''}`,
    tileRows: rows,
    tileCols: cols,
    splitK,
    pipeline: nvjetPipeline(cols, rows, rowTiles),
    ...(ctas <= SMS && skinnyTile(rows, rowTiles) ? { tileFixedNs: nvjetTileFixedNs(cols) } : {}),
    raster: NVJET_RASTER,
    swizzle: NVJET_SWIZZLE,
  };
}

/**
 * The order nvjet's tile scheduler walks a large GEMM's tiles. Its grids are persistent (our
 * pipeline sweep: [2, 66, 1], one CTA an SM, for every M ≥ 2048), so a scheduler hands the tiles
 * out; nvjet's is not public. CUTLASS's SM90 persistent scheduler, which cuBLASLt's kernels
 * follow, rasters along M when there are more column tiles than row tiles and along N otherwise
 * (`RasterOrderOptions::Heuristic`), so a prefill GEMM's wave shares its activation rows and
 * streams the weights once per few row tiles rather than re-reading the activations per column.
 */
const NVJET_RASTER = 'heuristic' as const;

/**
 * The band of tiles nvjet's scheduler walks across its raster (CUTLASS's swizzle). CAL ours
 * (bench/results/h100-long-linear, `sweep.py --only=linear --long`; `h100-linear`'s prefill GEMM
 * rows): Qwen3-8B's and Llama-3-8B's projections at M = 2048–65536, where cuBLASLt's 192x192
 * kernel keeps 700 TFLOPS up to 64K token rows. Without a swizzle a raster along N streams a
 * 200 MB weight from DRAM once per row tile (34 GB at 32K rows, more than the HBM moves in the
 * 9.3 ms measured): mean error over the 48 rows 9.4% (gate+up at 32K rows +52%); with bands
 * of 2, 4, 8 or 16 tiles 6.2, 6.6, 6.7 and 6.5% — any band fits the L2, and 2 fits best.
 */
export const NVJET_SWIZZLE = 2;

/**
 * CAL ours (`GAPS.sdpa`, rows layout): each cuDNN SDPA call runs a memset node before its
 * kernel (0.77 µs). What a call of the replayed chain takes beyond its kernel's profiled time,
 * the graph's launch share and one kernel boundary, ns (1.77 µs), charged to the kernel's start.
 */
export const CUDNN_SDPA_MEMSET_NODE_NS = (() => {
  const chain = GAPS.sdpa.find((r) => r.layout === 'rows' && r.kvLen === 1024)!;
  const kernel = chain.kinds.find((k) => k.cat === 'kernel')!;
  return Math.round((chain.replayUs / kernel.count - kernel.us) * 1000 - GRAPH_LAUNCH_NS / kernel.count - GRAPH_GAP_NS);
})();

/**
 * CAL ours (bench/h100/decode_blocks.py; batch 1, 1–4 CTAs, far from the HBM limit): the
 * grouped-rows decode kernel's time per CTA and 128-token KV block (`64x128x{d}` at every head
 * dim), ns — the slope of its kernel time from 8K to 32K tokens, averaged over 1, 2 and 4 KV
 * heads: 1074 at head dim 64, 1435 at 128, 2640 at 256.
 */
const CUDNN_DECODE_BLOCK_NS: readonly (readonly [number, number])[] = [...new Set(DECODE_BLOCKS.rows.map((r) => r.headDim))]
  .sort((a, b) => a - b)
  .map((d) => {
    const at = (L: number) => DECODE_BLOCKS.rows.filter((r) => r.headDim === d && r.kvLen === L).map((r) => r.kernelUs * 1000);
    const [short, long] = [at(8192), at(32768)];
    const slopes = long.map((t, i) => (t - short[i]!) / ((32768 - 8192) / 128));
    return [d, slopes.reduce((a, x) => a + x, 0) / slopes.length] as const;
  });

/**
 * DER from CUDNN_DECODE_BLOCK_NS: the grouped-rows decode kernel's vector work per score (its
 * softmax and accumulator rescale, FLOP-equivalents at the cost model's vector rate) — what
 * its 64-row, 128-token block takes beyond the wgmma at the GEMMs' efficiency, the two serial as
 * the machine charges this kernel. Between measured head dims the block time is interpolated
 * linearly; beyond them only the wgmma grows with the head dim (the nearest one's vector work a
 * score is kept).
 */
export function cudnnDecodeVectorFlopsPerScore(headDim: number): number {
  const pts = CUDNN_DECODE_BLOCK_NS;
  // A head dim between the kernel's own runs on the next one up (`CUDNN_DECODE_HEAD_DIMS`).
  const kernelDim = CUDNN_DECODE_HEAD_DIMS.find((d) => d >= headDim) ?? headDim;
  const j = pts.findIndex(([d]) => d >= kernelDim);
  let blockNs: number;
  if (j === 0 || j < 0) {
    const [d, ns] = pts[j === 0 ? 0 : pts.length - 1]!;
    blockNs = ns + ((kernelDim - d) / d) * wgmmaBlockNs(64, d);
  } else {
    const [d0, t0] = pts[j - 1]!;
    const [d1, t1] = pts[j]!;
    blockNs = t0 + ((kernelDim - d0) / (d1 - d0)) * (t1 - t0);
  }
  return ((blockNs - wgmmaBlockNs(64, headDim)) * topology.computeUnit.vectorFlopsPerNs * VECTOR_EFFICIENCY) / (64 * FLASH_BLOCK);
}

/**
 * MEAS ours (bench/results/h100-headdim96, `sweep.py --only=headdim --headdims=96,80`): cuDNN's
 * grouped-rows decode kernel takes head dim 128's time at head dims 80 and 96 (374–380 µs for
 * 32K tokens on 8 CTAs, against 373 at 128 and 276 at 64): it runs kernels built for 64, 128
 * and 256, a head dim between them on the next one up.
 */
const CUDNN_DECODE_HEAD_DIMS = [64, 128, 256];

/** The wgmma of a flash block of `rows` queries × 128 KV tokens at head dim `d` (QKᵀ and PV), ns at the GEMMs' efficiency. */
function wgmmaBlockNs(rows: number, d: number): number {
  return (4 * rows * FLASH_BLOCK * d) / (topology.computeUnit.matrixFlopsPerNs.bf16 * WGMMA_EFFICIENCY);
}

/**
 * cuDNN's SDPA decode, as our sweep shows it (PyTorch 2.11, cuDNN 9.19): GQA with the
 * group's queries as rows runs `sm90_flash_fprop`, one CTA per (request, KV head), no split
 * (grid min(B × H_kv, 132), a persistent kernel); one query per head (MHA) runs the sm80
 * kernel, which splits the KV length 8 ways for a batch-1 request of ≥ 1024 tokens (grid
 * 8 × 32) and adds a reduction kernel.
 */
export function selectDecodeAttention(s: DecodeAttentionShape): DecodeAttentionKernel {
  const group = s.heads / s.kvHeads;
  // K and V tiles of 128 tokens, double-buffered; two consumer warpgroups.
  const pipeline: TilePipeline = { inFlightBytes: 2 * 2 * 128 * s.headDim * 2, dramBytesPerNs: CUDNN_FLASH_DRAM_BYTES_PER_NS, overlap: 4 };
  // The same sm90 flash kernel as prefill's: the same time outside its KV loop per CTA. Its
  // wgmma tile holds 64 query rows, so a group of 4 computes QKᵀ, PV and the softmax of 64
  // rows per KV block (MEAS ours, bench/results/h100-headdim: at 8–64 CTAs the kernel's time
  // follows that compute over head dims 64 and 128 — 276 and 373 µs at 32K tokens — where a
  // DRAM stream would halve with the head dim). Its producer warp's TMA streams K/V under the
  // consumers (warp-specialised), so memory hides under compute until the HBM saturates.
  if (group > 1)
    return {
      name: 'cudnn_sm90_flash_fprop',
      splits: 1,
      pipeline: { inFlightBytes: pipeline.inFlightBytes, overlap: Infinity },
      // Every CTA waits for the memset node before it starts.
      tileFixedNs: CUDNN_FLASH_CTA_FIXED_NS + CUDNN_FLASH_TILE_FIXED_NS + CUDNN_SDPA_MEMSET_NODE_NS,
      persistentWorkgroups: Math.min(s.batch * s.kvHeads, SMS),
      queryRowTile: 64,
      softmaxFlopsPerScore: cudnnDecodeVectorFlopsPerScore(s.headDim),
    };
  const ctas = s.batch * s.kvHeads;
  const splits = ctas * 8 <= 2 * SMS && s.kvLen >= 1024 ? 8 : 1;
  return { name: splits > 1 ? 'cudnn_sm80_flash_fprop+lean_reduction' : 'cudnn_sm80_flash_fprop', splits, pipeline };
}

/**
 * DS (CUDA C programming guide, arithmetic instruction throughput, compute capability 9.0):
 * 16 exp2 results per clock per SM on the special-function units against 128 FP32 FMA lanes,
 * so one exp costs 8 lane-cycles = 16 FLOP-equivalents at the FMA rate (the "3.9 TFLOPS of
 * special functions beside 989 TFLOPS of matmul" FlashAttention-3 is built around). The
 * running max, the scale-and-subtract, the row sum and the bf16 conversion add about 4 lane
 * operations (8). UNC: the count of the non-exp operations.
 */
export const SOFTMAX_FLOPS_PER_SCORE = (128 / 16) * 2 + 4 * 2;

/**
 * A flash kernel's vector work per score: the softmax's, plus the online softmax's rescale of
 * the output accumulator (rows × head dim fp32 multiplies) once per KV block of `kvBlock`
 * tokens — 2 × headDim / kvBlock FLOP-equivalents per score.
 */
export function flashVectorFlopsPerScore(headDim: number, kvBlock: number): number {
  return SOFTMAX_FLOPS_PER_SCORE + (2 * headDim) / kvBlock;
}

/**
 * cuDNN 9.19's causal SDPA forward as PyTorch 2.11 runs it for prefill (our phases sweep,
 * bench/h100/phases.py): `sm90_flash_fprop_wgmma_f16 …64x128x128`, a persistent grid of
 * min(tiles, 132) CTAs, one CTA per 128 queries of one head streaming 128-token K/V blocks
 * (128 × 32 heads = 128 CTAs at 512 tokens, 132 above); each CTA pays its start once
 * (`CUDNN_FLASH_CTA_FIXED_NS`) and each tile its own prologue and epilogue beyond what the
 * machine charges (`CUDNN_FLASH_TILE_FIXED_NS`). Its warp-specialised ping-pong runs
 * one warpgroup's softmax under the other's wgmma, so the two overlap. K/V stages are
 * double-buffered. cuDNN's tile scheduler is not public; it hands the tiles out as their index
 * runs, the query block fastest and a head's longest causal block first (`head-major`,
 * FlashAttention's causal grid order): of the orders a scheduler could take, that one times the
 * batch-1 causal microbenchmark (PREFILL_TILES, section `causal`, 64–256 heads) within 8%,
 * where FlashAttention-3's L2 sections (longest causal blocks of a 32 MB section of heads first)
 * run 27% fast at 64 heads and the query block slowest 16%. At 32K tokens it leaves Qwen3-8B's
 * TTFT 11% over the measured where FA3's order leaves it 8% (bench/h100/results/h100-long-prefill).
 */
export function selectPrefillAttention(s: PrefillAttentionShape): PrefillAttentionKernel {
  return {
    name: 'cudnn_sm90_flash_fprop_wgmma_f16_64x128x128',
    queryRows: FLASH_BLOCK,
    kvCols: FLASH_BLOCK,
    order: 'head-major',
    softmaxFlopsPerScore: flashVectorFlopsPerScore(s.headDim, FLASH_BLOCK),
    tileFixedNs: CUDNN_FLASH_TILE_FIXED_NS,
    ctaFixedNs: CUDNN_FLASH_CTA_FIXED_NS,
    persistentCtas: Math.min(SMS, s.batch * s.heads * Math.ceil(s.queryLen / FLASH_BLOCK)),
    pipeline: { inFlightBytes: 2 * 2 * FLASH_BLOCK * s.headDim * 2, dramBytesPerNs: CUDNN_FLASH_DRAM_BYTES_PER_NS, overlap: 4, vectorUnderMatrix: true },
  };
}

const FLASH_BLOCK = 128;

/** The cost model's time for one 128 × 128 KV block of a head-dim-128 flash tile, ns: the larger of its wgmma and its softmax, which run under each other. */
function flashBlockNs(): number {
  const d = 128;
  const vectorNs = (flashVectorFlopsPerScore(d, FLASH_BLOCK) * FLASH_BLOCK * FLASH_BLOCK) / (topology.computeUnit.vectorFlopsPerNs * VECTOR_EFFICIENCY);
  return Math.max(wgmmaBlockNs(FLASH_BLOCK, d), vectorNs);
}

/**
 * CAL ours (bench/h100/prefill_tiles.py, section `tiles`; batch 1): the cuDNN kernel, non-causal
 * at 512 tokens (every tile 4 KV blocks), over 8–256 query heads, so that its persistent CTAs
 * run 1–8 tiles each. Its time is linear in the tiles of the busiest CTA (⌈tiles / 132⌉): a
 * least-squares line, whose slope is one tile's time and whose intercept the time a CTA spends
 * once — its start, the pipeline's first fill and the kernel's drain (10.8 µs for one tile, 64.2
 * for eight: 2.9 + 7.6 per tile).
 */
const CUDNN_FLASH_TILE_LINE = (() => {
  const pts = PREFILL_TILES.rows.filter((r) => r.section === 'tiles' && r.tiles >= SMS / 2).map((r) => [Math.ceil(r.tiles / SMS), r.kernelUs * 1000] as const);
  const mx = pts.reduce((a, [x]) => a + x, 0) / pts.length;
  const my = pts.reduce((a, [, y]) => a + y, 0) / pts.length;
  const slope = pts.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / pts.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return { tileNs: slope, ctaNs: my - slope * mx };
})();

/**
 * DER from CUDNN_FLASH_TILE_LINE: the time a persistent cuDNN flash CTA spends once, beyond its
 * tiles, ns — charged to the first tile each CTA runs.
 */
export const CUDNN_FLASH_CTA_FIXED_NS = Math.round(CUDNN_FLASH_TILE_LINE.ctaNs);

/**
 * DER from CUDNN_FLASH_TILE_LINE: a tile's time outside its KV loop (loading its queries,
 * normalising and storing its output, the loop's restart) beyond what the machine charges it —
 * 4 blocks at the cost model's rate (`flashBlockNs`), the first access and the per-tile
 * overhead. The persistent kernel overlaps most of it with its neighbours, so it is small.
 */
export const CUDNN_FLASH_TILE_FIXED_NS = Math.max(0, Math.round(CUDNN_FLASH_TILE_LINE.tileNs - 4 * flashBlockNs() - HBM_NS - TILE_OVERHEAD_NS));

/**
 * DER from CAL `sdpaDecodeStream`: one cuDNN flash CTA's DRAM rate, bytes/ns. Each of the 8
 * CTAs streams 2 × 32768 × 128 × 2 B of K/V in the kernel's profiled time less the first
 * access, the per-tile overhead and the tile's fixed time. The stream is issue-limited
 * (its producer warp's TMA), not latency-limited: in our sweep the per-CTA rate is the same
 * with 64 CTAs loading the HBM to 0.87 of saturation as with these 8 (0.11), where Little's
 * law at the loaded latency would give the 64 a third less. Prefill's tiles stream at it; the
 * decode kernel it comes from turned out compute-bound on its padded 64-row tile at these
 * loads (`selectDecodeAttention`), so it is a floor on the issued rate, which prefill,
 * compute-bound itself, rarely meets.
 */
export const CUDNN_FLASH_DRAM_BYTES_PER_NS = (() => {
  const a = PIPELINE.sdpaDecodeStream;
  return (2 * a.kvLen * 128 * 2) / (a.kernelUs * 1000 - HBM_NS - TILE_OVERHEAD_NS - CUDNN_FLASH_CTA_FIXED_NS - CUDNN_FLASH_TILE_FIXED_NS);
})();

/**
 * `torch._grouped_mm` on sm90 (aten/src/ATen/native/cuda/GroupMM.cu, PyTorch 2.11): CUTLASS's
 * pointer-array grouped GEMM. DS (source): with rows per group ≤ 128 or N ≤ 128 ("small",
 * always the case at decode) it runs 64 × 128 × 128 tiles (rows × weight rows × K) under the
 * ping-pong warp-specialised schedule, clusters of 2 along the rows, on a persistent grid of
 * one CTA per SM (MEAS ours, bench/h100/phases.py profile: grid 132, 384 threads, 206848 B of
 * shared memory = 4 stages of (64 + 128) × 128 × 2 B + epilogue).
 */
export const CUTLASS_GROUPED = { tileRows: 64, tileCols: 128, kTile: 128, stages: 4, clusterRows: 2 };

/**
 * DER from CAL `KSWEEP` (NVJET_DRAM_IN_FLIGHT; UNC transfer): the DRAM bytes a CUTLASS grouped
 * CTA keeps outstanding, as a latency-limited stream — the per-CTA figure the sweep's skinny
 * nvjet fits give at the DRAM latency under their own load. Not its ring: under multicast each
 * CTA of the pair issues its half of every weight stage (64 × 128 × 2 B = 16 KiB), so the
 * 4-stage ring would keep 64 KiB per CTA, 8 MiB over 132 CTAs, enough to run either HBM at its
 * read bandwidth — were the stages freed as soon as they land. Unlike a skinny nvjet tile, whose
 * few wgmma free a stage at once, each consumer here multiplies a 64-row tile (the group's 1–64
 * rows padded; all padding for the pair's second CTA) by the whole 128 × 128 stage before
 * freeing it: 8× nvjet 64x8's MMA work per weight byte, so stages wait on the consumers and few
 * are in flight at the DRAM. The H100 cannot tell the two apart (either saturates its HBM); the
 * H200, held out (`fleet validate --suite h200-moe`), checks the transfer. It replaces
 * GEMV_STREAM_DRAM_IN_FLIGHT scaled by the stage (20.5 KB).
 */
export const CUTLASS_GROUPED_DRAM_IN_FLIGHT = NVJET_DRAM_IN_FLIGHT;

/**
 * DS (GroupMM.cu, sm90): when the average rows per group and N both exceed 128 (prefill, or
 * very large batches) PyTorch switches to 128 × 256 × 64 tiles under the cooperative schedule
 * (both consumer warpgroups on one tile): 4 stages of (128 + 256) × 64 × 2 B fit the shared
 * memory.
 */
export const CUTLASS_GROUPED_LARGE = { tileRows: 128, tileCols: 256, kTile: 64, stages: 4, clusterRows: 2 };

/**
 * CAL ours (bench/results/h100/sweep.json, section moe: torch._grouped_mm gate+up, 8 of 128
 * experts with one row each, its CUTLASS kernel profiled at 27.8 µs): CUTLASS's grouped
 * persistent tile scheduler reads the problem shape of every group in PyTorch's list — all 128
 * experts, empty ones too — one dependent load after another as it advances to a CTA's tiles,
 * so a call costs a time per group beyond its tiles whatever the experts that got rows. Set so
 * the simulated kernel takes the profiled time (with CUTLASS_GROUPED_DRAM_IN_FLIGHT); the
 * sweep's other 47 points (8–128 active experts × 1–64 rows, gate+up and down) are predictions.
 * About 70 cycles per group: the 12-byte shapes come about ten to a line, their loads
 * overlapping.
 */
export const CUTLASS_GROUP_WALK_NS = 35;

export function selectGroupedGemm(s: GroupedGemmShape): GroupedGemmKernel {
  const rows = s.groups.reduce((a, r) => a + r, 0) / Math.max(1, s.groups.length);
  const large = rows > 128 && s.n > 128;
  const c = large ? CUTLASS_GROUPED_LARGE : CUTLASS_GROUPED;
  const stageBytes = (c.tileRows + c.tileCols) * c.kTile * 2;
  return {
    name: large
      ? 'cutlass_sm90_ptr_array_grouped_gemm_cooperative_128x256x64_2x1x1 (torch._grouped_mm)'
      : 'cutlass_sm90_ptr_array_grouped_gemm_pingpong_64x128x128_2x1x1 (torch._grouped_mm)',
    tileRows: c.tileRows,
    tileCols: c.tileCols,
    ctas: SMS,
    clusterRows: c.clusterRows,
    fixedNs: (s.numGroups ?? s.groups.length) * CUTLASS_GROUP_WALK_NS,
    // Two consumer warpgroups (alternating tiles, or sharing one) over a 4-stage ring.
    // The same producer warp in either configuration: the same DRAM bytes outstanding.
    pipeline: { inFlightBytes: c.stages * stageBytes, dramInFlightBytes: CUTLASS_GROUPED_DRAM_IN_FLIGHT, overlap: c.stages },
  };
}

/** The library with another low-bit GEMM: `tinygemm` is what PyTorch 2.11 alone runs for W4A16, `triton` the Triton split-K kernel. */
export function hopperKernelLibrary(lowBit: LowBitChoice): KernelLibrary {
  const names: Record<LowBitChoice, string> = { tilus: 'Tilus low-bit GEMMs', triton: 'Triton split-K low-bit GEMMs', tinygemm: 'tinygemm (W4A16)' };
  return {
    name: `cuBLASLt 13.0 (nvjet), ${names[lowBit]}, FlashAttention-2 split-KV decode, cuDNN 9.19 prefill SDPA and CUTLASS grouped GEMM, as PyTorch 2.11 calls them`,
    gemm: (s) => selectGemm(s, lowBit),
    decodeAttention: selectFlashDecode,
    prefillAttention: selectPrefillAttention,
    groupedGemm: selectGroupedGemm,
    fp8Refusal: hopperFp8Refusal,
  };
}

/**
 * The libraries as a serving engine calls them: cuBLASLt GEMMs, Tilus low-bit GEMMs, decode
 * attention split over the KV length as FlashAttention-2 does (flash-decoding; also PyTorch's
 * SDPA with one query per head and `enable_gqa`), cuDNN prefill, CUTLASS grouped GEMM.
 */
export const kernelLibrary: KernelLibrary = {
  name: 'cuBLASLt 13.0 (nvjet), Tilus low-bit GEMMs, FlashAttention-2 split-KV decode, cuDNN 9.19 prefill SDPA and CUTLASS grouped GEMM, as PyTorch 2.11 calls them',
  gemm: (s) => selectGemm(s),
  decodeAttention: selectFlashDecode,
  prefillAttention: selectPrefillAttention,
  groupedGemm: selectGroupedGemm,
  fp8Refusal: hopperFp8Refusal,
};

/**
 * The same libraries when decode calls PyTorch's SDPA with a GQA group's queries as the query
 * rows of their KV head (`q [B, Hkv, Hq/Hkv, D]`, as bench/h100/*.py do): cuDNN's sm90 flash
 * kernel, one CTA per (request, KV head), never split.
 */
export const SDPA_GROUPED_ROWS_LIBRARY: KernelLibrary = {
  // PyTorch alone runs tinygemm for W4A16, as the bench scripts measured.
  ...hopperKernelLibrary('tinygemm'),
  name: 'cuBLASLt 13.0 (nvjet), tinygemm (W4A16), cuDNN 9.19 SDPA (decode GQA as grouped query rows) and CUTLASS grouped GEMM, as PyTorch 2.11 calls them',
  decodeAttention: selectDecodeAttention,
};
