import type { TilePipeline } from './tile-pipeline.js';

/**
 * The kernels a vendor library launches for an op, as its heuristics pick them: a backend's
 * model of cuBLASLt / hipBLASLt tile selection and of its attention library. Kernel-per-op
 * policies decompose ops the way these kernels do; backends without one get ops' default
 * (batch tiles of 8–64 rows × 64 columns, split-K within one wave).
 */
export interface GemmKernel {
  /** The kernel's name as the library would show it (for traces and docs). */
  name: string;
  /** Batch rows per tile (already a multiple of the matrix instruction's row granularity). */
  tileRows: number;
  /** Output columns (weight rows) per tile. */
  tileCols: number;
  /** K is split over this many workgroups; > 1 adds a reduction kernel. */
  splitK: number;
  /**
   * The kernel loads only the batch rows that exist (masked loads), so a partial batch tile
   * costs less than a full one. Default: the whole tile is loaded from a padded buffer.
   */
  maskedRows?: boolean;
  pipeline: TilePipeline;
  /**
   * Low-bit kernels: vector work the kernel spends dequantizing one weight element, in
   * FLOP-equivalents at the cost model's vector rate (its unpack, convert, scale and any
   * layout conversion). Default: ops' generic count for the weight type.
   */
  dequantFlopsPerElement?: number;
  /**
   * Issue cost of the kernel's matrix instruction relative to the device's fastest one (e.g.
   * 2 for Hopper's mma.sync beside wgmma): its tile FLOPs count this many times. Default 1.
   */
  matrixFlopsScale?: number;
  /**
   * Dequantize-then-GEMM: a separate kernel (named here) first expands the quantized weights
   * into a dense bf16 workspace, which this GEMM then reads as dense weights.
   */
  predequantize?: { name: string; dequantFlopsPerElement: number; pipeline: TilePipeline };
  /**
   * Time each CTA spends outside its K loop, ns (starting its producer and consumers, the
   * epilogue, the grid's tail), once per tile beside the first access and the per-tile
   * overhead. Default 0.
   */
  tileFixedNs?: number;
  /**
   * The order the kernel's tile scheduler walks its output tiles: `along-m` (consecutive tiles
   * down the batch rows of one column tile, then the next column tile), `along-n` (across the
   * columns of one row tile, then the next row tile) or `heuristic` (CUTLASS's persistent
   * scheduler: along M when there are more column tiles than row tiles, else along N). The
   * order decides which operand stays in the L2 while a wave runs. Default `along-m`.
   */
  raster?: 'along-m' | 'along-n' | 'heuristic';
  /**
   * Tiles across the raster the scheduler walks together (CUTLASS's swizzle): the raster sweeps
   * a band of this many row tiles (along N) or column tiles (along M) at a time, so a wave
   * shares both operands' tiles and the swept operand is streamed once per band, not once per
   * tile across. Default 1 (no swizzle).
   */
  swizzle?: number;
}

/**
 * The (row tile, column tile) pairs of a `rowTiles` × `colTiles` GEMM in the order the kernel's
 * scheduler hands them out (`GemmKernel.raster` and `swizzle`): bands of `swizzle` tiles across
 * the raster, each swept along it, a band's tiles together at each step.
 */
export function gemmTileOrder(kernel: Pick<GemmKernel, 'raster' | 'swizzle'> | undefined, rowTiles: number, colTiles: number): [number, number][] {
  const alongM = gemmRaster(kernel, rowTiles, colTiles) === 'along-m';
  const [minor, major] = alongM ? [colTiles, rowTiles] : [rowTiles, colTiles];
  const band = Math.max(1, Math.min(kernel?.swizzle ?? 1, minor));
  const out: [number, number][] = [];
  for (let b0 = 0; b0 < minor; b0 += band)
    for (let j = 0; j < major; j++) for (let i = b0; i < Math.min(minor, b0 + band); i++) out.push(alongM ? [j, i] : [i, j]);
  return out;
}

/** The raster a GEMM kernel's tiles run in for `rowTiles` × `colTiles` tiles (see `GemmKernel.raster`). */
export function gemmRaster(kernel: Pick<GemmKernel, 'raster'> | undefined, rowTiles: number, colTiles: number): 'along-m' | 'along-n' {
  const r = kernel?.raster ?? 'along-m';
  if (r !== 'heuristic') return r;
  return colTiles > rowTiles ? 'along-m' : 'along-n';
}

export interface DecodeAttentionKernel {
  name: string;
  /** Workgroups per (request, KV head): the KV length is split over them; > 1 adds a combine kernel. */
  splits: number;
  pipeline: TilePipeline;
  /**
   * Time a workgroup spends outside its KV loop (loading Q, filling the pipeline, the final
   * normalisation and store), ns, once per workgroup; default 0.
   */
  tileFixedNs?: number;
  /**
   * A persistent grid of this many workgroups, each looping over (request, KV head) pairs:
   * the next pair's loads stream under the previous one's epilogue, so the fixed time is paid
   * once per workgroup, not per pair. Omitted: one workgroup per pair (or split).
   */
  persistentWorkgroups?: number;
  /**
   * Split kernels: the combine walks a (request, head)'s partial outputs one after another,
   * each a dependent read; this much per split, ns, beside its reads. Default 0.
   */
  combineNsPerSplit?: number;
  /** Split kernels: the combine's time per workgroup outside its reads, ns. Default 0. */
  combineFixedNs?: number;
  /**
   * Split kernels: KV tokens per block of the split kernel's loop. Each split takes
   * ⌈blocks / splits⌉ whole blocks (FlashAttention-2's `n_blocks_per_split`), in order.
   * Default: the decomposition's own chunk (256 tokens).
   */
  kvBlock?: number;
  /**
   * Split kernels: query rows each combine workgroup merges (FlashAttention-2: 4 at head dim
   * 128), so a GQA group of 8 takes two workgroups. Default: the group, one per (request, KV head).
   */
  combineRows?: number;
  /**
   * Query rows the kernel's matrix instructions compute per KV block whatever the GQA group
   * holds (a 64-row wgmma tile for a group of 4): QKᵀ, PV and the softmax are priced on
   * these rows, padding included. Omitted: on the group's own rows, matrix work only.
   */
  queryRowTile?: number;
  /** With `queryRowTile`: vector work per QKᵀ score (as `PrefillAttentionKernel`'s). */
  softmaxFlopsPerScore?: number;
}

/** A prefill (causal, many-query) attention kernel: FlashAttention-2/3 style tiles. */
export interface PrefillAttentionKernel {
  name: string;
  /** Query rows of one head per workgroup tile. */
  queryRows: number;
  /** KV tokens per inner step. */
  kvCols: number;
  /**
   * Order the kernel's scheduler hands out query blocks: `longest-first` (causal blocks with
   * the most KV first, over all heads), `l2-sections` (FlashAttention-3's persistent
   * scheduler: heads in sections whose K/V fit `l2SectionBytes`, longest blocks first within
   * a section), `head-major` (each request's head's blocks in turn, the longest first: the tile
   * index with the query block fastest, as FlashAttention's causal grids walk it) or
   * `in-order` (the query block slowest).
   */
  order: 'longest-first' | 'in-order' | 'l2-sections' | 'head-major';
  /** `l2-sections`: K/V bytes one section of heads may hold in the L2. */
  l2SectionBytes?: number;
  /**
   * Vector work per QKᵀ score, in FLOP-equivalents at the vector FMA rate: the exp at the
   * special-function unit's rate, plus max, scale, row sum and conversion.
   */
  softmaxFlopsPerScore: number;
  /**
   * Time a tile spends outside its KV loop, ns: loading its queries, filling the software
   * pipeline before the first block's softmax can start, normalising and storing its output.
   * Default 0.
   */
  tileFixedNs?: number;
  /**
   * A persistent grid of `persistentCtas` CTAs: the time each CTA spends once (its start, the
   * pipeline's first fill, the drain), ns, charged to the first tile it runs — the first
   * `persistentCtas` tiles in the kernel's order. Default 0 (every tile its own workgroup).
   */
  ctaFixedNs?: number;
  persistentCtas?: number;
  pipeline: TilePipeline;
}

export interface PrefillAttentionShape {
  batch: number;
  heads: number;
  kvHeads: number;
  /** Query tokens per request. */
  queryLen: number;
  /** KV tokens per request, including the queries. */
  kvLen: number;
  headDim: number;
}

export interface GemmShape {
  /** Batch rows. */
  m: number;
  /** Output columns. */
  n: number;
  /** Reduction length. */
  k: number;
  /** Bytes per weight element (2 for bf16; packed low-bit types less). */
  weightBytes: number;
  /** Quantized weights: what a low-bit kernel needs to know of their type. Omitted for dense weights. */
  quant?: GemmQuant;
  /** W8A8 FP8: both operands are 8-bit floats (`weightBytes` 1) and the GEMM runs on the FP8 matrix units. */
  fp8?: GemmFp8;
}

/** A W8A8 FP8 GEMM's operands as a kernel library sees them. */
export interface GemmFp8 {
  /** The weights' and the activations' FP8 types: `f8e4m3`, `f8e5m2`, `f8e4m3fnuz`, `f8e5m2fnuz`. */
  weights: string;
  activations: string;
  /** `tensor`: one scale per operand; `channel`: per output channel (weights) and per token (activations). */
  scales: 'tensor' | 'channel';
}

/** A quantized weight as a kernel library sees it (group-wise scales along K, optional zero points). */
export interface GemmQuant {
  /** Code width, 1..8 bits. */
  bits: number;
  /** Signed or unsigned integer codes, or a low-precision float. */
  kind: 'int' | 'uint' | 'float';
  /** K elements per scale. */
  group: number;
  /** Each group also stores a zero point (asymmetric quantization). */
  zeroPoint: boolean;
}

export interface DecodeAttentionShape {
  batch: number;
  heads: number;
  kvHeads: number;
  kvLen: number;
  headDim: number;
}

/** A grouped GEMM (MoE experts): one [rows_g, k] × [n, k]ᵀ product per group that received rows. */
export interface GroupedGemmShape {
  /** Rows of each group that has any, in order. */
  groups: readonly number[];
  n: number;
  k: number;
  weightBytes: number;
  /** Groups in the problem list the kernel is given, with rows or not (all experts); default `groups.length`. */
  numGroups?: number;
}

/**
 * The fused grouped-GEMM kernel a library runs for all groups at once (CUTLASS's
 * pointer-array grouped GEMM behind `torch._grouped_mm`, a Triton fused-MoE kernel…).
 */
export interface GroupedGemmKernel {
  name: string;
  /** Rows per tile (a group's rows are tiled separately; rows past the group's end are not loaded). */
  tileRows: number;
  /** Weight rows (output columns) per tile; every tile streams all of K. */
  tileCols: number;
  /**
   * Persistent grid: this many CTAs take the tiles round-robin in launch order; 0 = one CTA
   * per tile.
   */
  ctas: number;
  /**
   * CTAs of a cluster along the rows sharing each weight tile (TMA multicast: each loads
   * 1/clusterRows of it). A group's row tiles are padded to a multiple, so at one row tile per
   * group the partner CTA only helps load. Default 1.
   */
  clusterRows?: number;
  /**
   * Time each CTA spends outside its tiles, ns: a persistent scheduler walking the groups'
   * problem shapes to find its tiles. Default 0.
   */
  fixedNs?: number;
  pipeline: TilePipeline;
}

export interface KernelLibrary {
  /** Library and version it models, e.g. "cuBLASLt 13.0 + cuDNN 9.19 (PyTorch 2.11)". */
  name: string;
  gemm(shape: GemmShape): GemmKernel;
  decodeAttention(shape: DecodeAttentionShape): DecodeAttentionKernel;
  /** Prefill attention; without it, ops' default FlashAttention-2 tiles (128 × 128, in order). */
  prefillAttention?(shape: PrefillAttentionShape): PrefillAttentionKernel;
  /** The fused grouped GEMM for MoE experts; without it, ops' default tiles are used. */
  groupedGemm?(shape: GroupedGemmShape): GroupedGemmKernel;
  /**
   * Why the library has no GEMM for these FP8 operands (the device's matrix units take
   * another encoding, or no FP8 at all), or null. Without it, FP8 GEMMs are refused.
   */
  fp8Refusal?(fp8: GemmFp8): string | null;
}
