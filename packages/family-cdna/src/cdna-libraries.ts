/**
 * The kernels PyTorch / vLLM on ROCm launch on a CDNA GPU, as their libraries pick them:
 * vLLM's skinny GEMV (wvSplitK) for batches of at most 4 rows, hipBLASLt (Tensile assembly
 * kernels) for every other bf16 GEMM, vLLM's ROCm paged attention for decode and Composable
 * Kernel's FlashAttention forward for prefill. The vendor facts (tile menus, prefetch depth,
 * partition sizes) are in the constants below with their sources; everything shape-dependent
 * (which tile wins, split-K, occupancy, bytes in flight) is derived here, not fitted.
 *
 * Selection follows hipBLASLt's objective as its solution heuristics rank tiles: the fewest
 * waves of the slowest tile over the device's CUs, where every workgroup's operands stream
 * through its XCD's private L2 (workgroup i → XCD i mod 8), so small tiles over a large
 * problem are bounded by the per-XCD L2 re-reads, not by the MFMA pipes.
 */
import {
  occupancy,
  type ComputeResources,
  type DecodeAttentionKernel,
  type DecodeAttentionShape,
  type GemmFp8,
  type GemmKernel,
  type GemmShape,
  type KernelLibrary,
  type PrefillAttentionKernel,
  type PrefillAttentionShape,
  type TilePipeline,
  type Topology,
} from '@fleet/core';
import { vendorPipeline } from './occupancy.js';
import { wvSplitKLaunch, wvSplitKPipeline } from './wvsplitk.js';

/** A library kernel's pipeline that also states the MFMA issue efficiency its tiles reach. */
export interface CdnaTilePipeline extends TilePipeline {
  /** Fraction of the CU's matrix peak the kernel's main loop issues; absent: the cost model's default. */
  mfmaEfficiency?: number;
}

/** What a CDNA part's library model needs beyond its topology. */
export interface CdnaLibrarySpec {
  /** Library and versions it models (shown in traces and docs). */
  name: string;
  /** LLVM target: gfx942 (CDNA3) or gfx950 (CDNA4). */
  arch: 'gfx942' | 'gfx950';
  topology: Topology;
  cu: ComputeResources;
  /** The hipBLASLt main loop's MFMA issue efficiency, where a published measurement gives one. */
  mfmaEfficiency?: number;
  /** The cost model's efficiency for other matrix tiles (the selection estimate needs one). */
  defaultMatrixEfficiency: number;
  /** The cost model's per-tile overhead, ns (the selection estimate charges it per tile). */
  tileOverheadNs: number;
}

/**
 * DS vLLM `rocm_unquantized_gemm` (vllm/model_executor/layers/utils.py): on gfx9 with bf16/fp16
 * and K % 8 = 0, batches of 1–4 rows (and more than 8 outputs) run `ops.wvSplitK`, vLLM's
 * skinny GEMV (csrc/rocm/skinny_gemms.cu); larger batches fall through to
 * `torch.nn.functional.linear`, i.e. hipBLASLt.
 */
export const WVSPLITK_MAX_ROWS = 4;

/** DS MFMA row granularity: v_mfma_f32_16x16x16_bf16 (gfx942) and 16x16x32 (gfx950) take 16 rows (LLVM AMDGPU, CDNA3/4 ISA guides). */
export const MFMA_ROWS = 16;

/**
 * DS hipBLASLt's Tensile kernels for bf16 use a K slice (DepthU) of 64 and prefetch two slices
 * ahead from global memory (PrefetchGlobalRead = 2), one from LDS (PrefetchLocalRead = 1): the
 * `MT256x256x64 … PGR2_PLR1` of the gfx950 8192³ winner (`Cijk_Alik_Bljk_BBS_BH_…_MT256x256x64_
 * MI16x16x1_…_PGR2_PLR1_…_SK3_…_WG32_8_1_WGM8_WGMXCC8`, a public hipblaslt-bench run on MI350X)
 * and the gfx942 logic files (ROCm/hipBLASLt library/…/Logic/asm_full/aquavanjaram/gfx942,
 * `PrefetchGlobalRead: 2`). UNC: DepthU 64 for every tile of the menu (small tiles may use more).
 */
export const HIPBLASLT_DEPTH_U = 64;
export const HIPBLASLT_PREFETCH_GLOBAL = 2;

/**
 * The macro-tile menu hipBLASLt's bf16 logic offers, batch rows × output columns, from 16 × 16
 * (MT16x16x32 in the gfx942 logic) to 256 × 256 (MT256x256x64, the large-GEMM winner on gfx950).
 * UNC: the full power-of-two grid between them is assumed present; the logic files hold
 * thousands of solutions, of which the heuristic shortlists a few per size.
 */
export const HIPBLASLT_TILE_SIDES = [16, 32, 64, 128, 256] as const;

/** Threads of a hipBLASLt workgroup: 4 waves (WG32_8_1 = 256 threads in the kernel names above). */
export const HIPBLASLT_THREADS = 256;

/** What one hipBLASLt workgroup of a rows × cols tile asks of a CU. */
export function hipblasltResources(arch: CdnaLibrarySpec['arch'], cu: ComputeResources, rows: number, cols: number) {
  const slice = (rows + cols) * HIPBLASLT_DEPTH_U * 2;
  // gfx950 keeps both prefetched slices in LDS (direct-to-LDS loads: DTLA1/DTLB1 and 133,120 B
  // of LDS for MT256x256x64 in the same kernel's metadata); gfx942's 64 KiB holds one slice
  // of the largest tiles, the second prefetch waits in VGPRs (Tensile's 1LDSBuffer).
  const ldsSlices = arch === 'gfx950' ? HIPBLASLT_PREFETCH_GLOBAL : Math.max(1, Math.min(HIPBLASLT_PREFETCH_GLOBAL, Math.floor(cu.sharedBytes / slice)));
  // fp32 accumulators (AGPRs) + the prefetched slice's registers where it is not in LDS + ≈64
  // for addresses and fragments. UNC: no per-kernel register report except the 8192³ one
  // (248 VGPRs beside 256 accumulator AGPRs on gfx950 ≈ this count's 448 + slack).
  const acc = (rows * cols) / HIPBLASLT_THREADS;
  const staged = ((HIPBLASLT_PREFETCH_GLOBAL - (arch === 'gfx950' ? HIPBLASLT_PREFETCH_GLOBAL : ldsSlices) + 1) * slice) / (HIPBLASLT_THREADS * 4);
  return { threads: HIPBLASLT_THREADS, registersPerThread: Math.min(512, Math.ceil(acc + staged + 64)), sharedBytes: ldsSlices * slice };
}

/**
 * The pipeline of a hipBLASLt tile on one CU: each resident workgroup keeps its two prefetched
 * K-slices of A and B in flight (Little's law bound), and its software pipeline (two slices
 * ahead, ScheduleIterAlg 3 interleaving loads with MFMAs) hides memory behind the MFMAs as long
 * as those bytes cover the latency — so no further exposed stall is charged (overlap ∞); the
 * measured efficiency already holds the main loop's residual bubbles.
 */
export function hipblasltPipeline(spec: CdnaLibrarySpec, rows: number, cols: number, resident: number): CdnaTilePipeline {
  const occ = occupancy(spec.cu, hipblasltResources(spec.arch, spec.cu, rows, cols));
  const r = Math.max(1, Math.min(occ.blocks, resident));
  return {
    inFlightBytes: r * HIPBLASLT_PREFETCH_GLOBAL * (rows + cols) * HIPBLASLT_DEPTH_U * 2,
    overlap: Infinity,
    residentTiles: r,
    ...(spec.mfmaEfficiency !== undefined ? { mfmaEfficiency: spec.mfmaEfficiency } : {}),
  };
}

const cuCount = (t: Topology) => t.partitions.computeUnits.reduce((a, b) => a + b, 0);

/** The selection objective: the library's estimate of one candidate's time, ns. */
export function hipblasltEstimateNs(spec: CdnaLibrarySpec, s: GemmShape, rows: number, cols: number, splitK: number): number {
  const t = spec.topology;
  const cus = cuCount(t);
  const xcds = t.partitions.computeUnits.length;
  const rowTiles = Math.ceil(s.m / rows);
  const wgs = rowTiles * Math.ceil(s.n / cols) * splitK;
  const k = s.k / splitK;
  const tilesPerCu = Math.ceil(wgs / cus);
  const pipe = hipblasltPipeline(spec, rows, cols, tilesPerCu);
  const eff = spec.mfmaEfficiency ?? spec.defaultMatrixEfficiency;
  // Every tile multiplies its whole (padded) rows × cols block; W8A8 at the FP8 MFMA rate, on FP8 activations.
  const computeNs = ((2 * rows * cols * k) / (t.computeUnit.matrixFlopsPerNs.bf16 * eff)) * (s.fp8 ? cdnaFp8FlopsScale(t) : 1);
  const actBytes = s.fp8 ? 1 : 2;
  const act = rows * k * actBytes;
  const weight = cols * k * s.weightBytes;
  // Weights come from HBM unless row tiles of the same XCD share them; activations hit the L2.
  const weightLatency = rowTiles > xcds ? t.memory.l2.latencyNs : t.memory.hbm.latencyNs;
  const latencyNs = ((act * t.memory.l2.latencyNs + weight * weightLatency) * pipe.residentTiles!) / pipe.inFlightBytes;
  const memNs = Math.max((act + weight) / t.computeUnit.maxBandwidthBytesPerNs, latencyNs);
  const cuNs = tilesPerCu * (Math.max(computeNs, memNs) + spec.tileOverheadNs / pipe.residentTiles!);
  // Per-XCD L2: the dispatcher deals workgroups round-robin over the XCDs, so each XCD's L2
  // serves 1/xcds of all tiles' operand reads; each weight panel is fetched from HBM at least once.
  const l2Ns = ((wgs / xcds) * (act + weight)) / t.memory.l2.bandwidthBytesPerNs;
  const unique = s.n * s.k * s.weightBytes + s.m * s.k * actBytes;
  // Fabric (MALL/HBM) reads per XCD. Tiles go out column panel by column panel (batch rows
  // inner) and round-robin over the XCDs, so each XCD reads every weight panel once and its
  // own share of the activation panels — once in all if that share fits its 4 MB L2 beside a
  // weight panel, else again for every column panel.
  const colTiles = Math.ceil(s.n / cols);
  const rowsPerXcd = Math.ceil(rowTiles / xcds);
  const actShare = rowsPerXcd * rows * s.k * actBytes;
  const actReads = actShare + cols * s.k * s.weightBytes <= t.memory.l2.capacityBytes ? actShare : colTiles * actShare;
  const fabric = xcds * (colTiles * Math.min(1, rowTiles / xcds) * cols * s.k * s.weightBytes + actReads);
  const llc = t.memory.llc?.bandwidthBytesPerNs ?? t.memory.hbm.achievableBandwidthBytesPerNs;
  const hbmNs = Math.max(unique / t.memory.hbm.achievableBandwidthBytesPerNs, fabric / llc);
  // Stream-K / global split-U partials (fp32) are written and read back once each.
  const fixupNs = splitK > 1 ? (2 * s.m * s.n * 4 * splitK) / t.memory.hbm.achievableBandwidthBytesPerNs : 0;
  return Math.max(cuNs, l2Ns, hbmNs) + fixupNs;
}

/**
 * vLLM's wvSplitK (`wvSplitKQ` for per-tensor FP8) for 1–4 batch rows, as its host code
 * launches it (./wvsplitk.ts): one workgroup per CU and round, each covering waves × YTILE
 * output columns over all of K, so the columns spread over (nearly) every CU, the K split
 * stays inside each wave (no partial sums, no second kernel) and a workgroup's later rounds
 * queue behind its first. It loads exactly the batch rows there are (the activation goes to
 * LDS once per workgroup).
 */
function wvSplitKKernel(spec: CdnaLibrarySpec, s: GemmShape, name: 'wvSplitK' | 'wvSplitKQ'): GemmKernel {
  const launch = wvSplitKLaunch(s.n, s.k, s.m, cuCount(spec.topology), name === 'wvSplitKQ', spec.cu.sharedBytes);
  return {
    name,
    tileRows: Math.min(64, Math.max(8, 2 ** Math.ceil(Math.log2(Math.max(1, s.m))))),
    tileCols: launch.colsPerRound,
    splitK: 1,
    maskedRows: true,
    pipeline: wvSplitKPipeline(spec.cu, launch),
  };
}

/**
 * Packed sub-byte weights (no hipBLASLt or wvSplitK kernel reads them): ops' default skinny
 * decomposition, 8–64-row × 64-column tiles, K split within one wave of the device (at whole
 * 64-deep tiles of their layout and whole groups: the decomposition snaps the boundaries),
 * the vendor pipeline [UNC].
 */
function dequantGemmKernel(spec: CdnaLibrarySpec, s: GemmShape): GemmKernel {
  const cus = cuCount(spec.topology);
  const rows = Math.min(64, Math.max(8, 2 ** Math.ceil(Math.log2(Math.max(1, s.m)))));
  const grid = Math.ceil(s.m / rows) * Math.ceil(s.n / 64);
  const splitK = grid < cus ? Math.max(1, Math.min(Math.floor(s.k / 256), Math.floor(cus / grid))) : 1;
  return { name: 'dequant_gemm', tileRows: rows, tileCols: 64, splitK, pipeline: vendorPipeline(spec.cu) };
}

/**
 * DS (AMD CDNA3 and CDNA4 datasheets, S2 and S28 of the hardware notes): the dense FP8 MFMA
 * rate is twice the bf16 one on both (4096 and 8192 FLOP/clk/CU), so an FP8 GEMM's tile
 * FLOPs count this fraction at the cost model's (bf16) rate. UNC: hipBLASLt's FP8 kernels
 * are taken to reach the same fraction of that peak as its bf16 ones; no FP8 GEMM
 * measurement on either part was found.
 */
export function cdnaFp8FlopsScale(t: Topology): number {
  return t.computeUnit.matrixFlopsPerNs.bf16 / (t.computeUnit.matrixFlopsPerNs.fp8 ?? t.computeUnit.matrixFlopsPerNs.bf16);
}

/**
 * The FP8 encodings a CDNA part's MFMAs take. DS: gfx942 (CDNA3) runs the FNUZ pair
 * (v_mfma_f32_*_fp8_fp8 / bf8: e4m3fnuz, e5m2fnuz; vLLM's `is_fp8_fnuz()` is true on gfx94x
 * only, and it converts an OCP e4m3 checkpoint to e4m3fnuz at load); gfx950 (CDNA4) runs the
 * OCP pair (e4m3, e5m2), which its V_MFMA_F32_*_F8F6F4 instructions take.
 */
export function cdnaFp8Refusal(arch: CdnaLibrarySpec['arch'], fp8: GemmFp8): string | null {
  const fnuz = arch === 'gfx942';
  const ok = (t: string) => t.endsWith('fnuz') === fnuz;
  if (ok(fp8.weights) && ok(fp8.activations)) return null;
  return fnuz
    ? "CDNA3's (gfx942) FP8 MFMAs take the FNUZ encodings: use f8e4m3fnuz (vLLM converts an OCP e4m3 checkpoint to it at load)"
    : "CDNA4's (gfx950) FP8 MFMAs take the OCP encodings (f8e4m3, f8e5m2), not FNUZ";
}

/**
 * W8A8 FP8 as vLLM on ROCm runs it (DS vllm/model_executor/layers/quantization/…
 * `rocm_per_tensor_float_w8a8_scaled_mm`): per-tensor scales at 1–4 rows go to its skinny
 * FP8 GEMV `ops.wvSplitKQ` (wvSplitK's persistent decomposition with its own YTILE table, on
 * one-byte weights: ./wvsplitk.ts), everything else to `torch._scaled_mm`, i.e. hipBLASLt's FP8
 * GEMM, chosen as the bf16 one with FP8 operands and the FP8 MFMA rate. UNC: the tile menu
 * and depth in bytes are the bf16 ones (an FP8 DepthU of 128 moves the same bytes).
 */
function selectCdnaFp8Gemm(spec: CdnaLibrarySpec, s: GemmShape): GemmKernel {
  const scale = cdnaFp8FlopsScale(spec.topology);
  const k = s.fp8!.scales === 'tensor' && s.m <= WVSPLITK_MAX_ROWS ? wvSplitKKernel(spec, s, 'wvSplitKQ') : selectHipblaslt(spec, s);
  return { ...k, matrixFlopsScale: scale };
}

/** The GEMM hipBLASLt (or, for 1–4 rows, vLLM's wvSplitK) runs for `s`. */
export function selectCdnaGemm(spec: CdnaLibrarySpec, s: GemmShape): GemmKernel {
  if (s.fp8) return selectCdnaFp8Gemm(spec, s);
  if (s.weightBytes < 1) return dequantGemmKernel(spec, s);
  if (s.m <= WVSPLITK_MAX_ROWS) return wvSplitKKernel(spec, s, 'wvSplitK');
  return selectHipblaslt(spec, s);
}

/** hipBLASLt's tile for `s`: the candidate its objective ranks fastest. */
function selectHipblaslt(spec: CdnaLibrarySpec, s: GemmShape): GemmKernel {
  const cus = cuCount(spec.topology);
  const maxRows = Math.max(MFMA_ROWS, 2 ** Math.ceil(Math.log2(Math.max(1, s.m))));
  let best: { rows: number; cols: number; splitK: number; ns: number; wgs: number } | null = null;
  for (const rows of HIPBLASLT_TILE_SIDES) {
    if (rows > maxRows) continue;
    for (const cols of HIPBLASLT_TILE_SIDES) {
      if (occupancy(spec.cu, hipblasltResources(spec.arch, spec.cu, rows, cols)).blocks < 1) continue;
      const tiles = Math.ceil(s.m / rows) * Math.ceil(s.n / cols);
      for (let splitK = 1; splitK <= 8; splitK *= 2) {
        if (splitK > 1 && s.k % (splitK * 256) !== 0) continue;
        // Stream-K (SK3 in the gfx950 kernel names) and global split-U spread K only where
        // the tiles leave CUs idle in their last wave.
        if (splitK > 1 && (tiles % cus === 0 || tiles >= 2 * cus)) continue;
        const ns = hipblasltEstimateNs(spec, s, rows, cols, splitK);
        const wgs = tiles * splitK;
        // Within 1%: fewer workgroups (less re-reading), then no split (no fixup).
        if (!best || ns < best.ns * 0.99 || (ns <= best.ns * 1.01 && (wgs < best.wgs || (wgs === best.wgs && splitK < best.splitK)))) {
          best = { rows, cols, splitK, ns, wgs };
        }
      }
    }
  }
  const b = best!;
  const tilesPerCu = Math.ceil(b.wgs / cus);
  // FP8 MFMAs take twice the K per instruction (16x16x32 fp8 on gfx942, 16x16x128 f8f6f4 on gfx950) and K-slices of twice the elements.
  const mi = s.fp8 ? (spec.arch === 'gfx950' ? 'MI16x16x128' : 'MI16x16x32') : spec.arch === 'gfx950' ? 'MI16x16x32' : 'MI16x16x16';
  const types = s.fp8 ? 'F8F8S' : 'BBS';
  const depth = s.fp8 ? 2 * HIPBLASLT_DEPTH_U : HIPBLASLT_DEPTH_U;
  return {
    name: `Cijk_Alik_Bljk_${types}_BH_MT${b.rows}x${b.cols}x${depth}_${mi}_PGR2${b.splitK > 1 ? `_SK${b.splitK}` : ''}`,
    tileRows: b.rows,
    tileCols: b.cols,
    splitK: b.splitK,
    pipeline: hipblasltPipeline(spec, b.rows, b.cols, tilesPerCu),
  };
}

/**
 * DS vLLM's ROCm paged attention (`ops.paged_attention_rocm`, csrc/rocm/attention.cu, the
 * decode path of its ROCm attention backends): workgroups of 256 threads per (sequence, KV
 * head, 256-token partition) — `PARTITION_SIZE = 256` — and a reduce kernel
 * (`paged_attention_ll4mi_reduce_kernel`) that merges the partitions when a sequence is longer
 * than one. UNC: which ROCm attention backend the FLEET paper's vLLM ran is not stated.
 */
export const PAGED_ATTENTION_PARTITION = 256;

/**
 * Decode attention as one workgroup per (sequence, KV head) streaming its partitions in turn
 * (splits = 1). UNC, a known gap: the partitions and the reduce kernel are not split out,
 * because ops' functional executor cannot yet run a split's fp32 workspace (it checks every
 * write against an op's output), and a library must keep `fleet verify` passing. This
 * undercounts the kernel's parallelism where sequences × KV heads leave CUs idle and omits
 * the reduce launch.
 */
export function selectCdnaDecodeAttention(spec: CdnaLibrarySpec, _s: DecodeAttentionShape): DecodeAttentionKernel {
  // UNC: no kernel-specific figure for its loads; the vendor kernels' pipeline (cdna/occupancy.ts).
  return { name: 'paged_attention_ll4mi_QKV_mfma16_kernel', splits: 1, pipeline: vendorPipeline(spec.cu) };
}

/**
 * Vector work per QKᵀ score in FLOP-equivalents at the packed-FP32 FMA rate the topology's
 * vector peak counts (256 FLOP/clk/CU = 128 FMA lanes with v_pk_fma_f32): v_exp_f32 is a
 * quarter-rate transcendental (LLVM AMDGPU SISchedule.td: "F16 or F32 transcendental
 * instructions (these are quarter rate)"), 16 lanes per SIMD every 4 clocks → 16 per CU per
 * clock against 128 FMAs: 8 lane-cycles = 16 FLOP; the running max, scale-and-subtract, row sum
 * and bf16 conversion are 4 unpacked VALU ops at half the packed rate: 4 × 2 × 2 = 16.
 * UNC: the count of non-exp operations; CDNA4 keeps CDNA3's transcendental rate here (the ISA
 * guide gives no per-instruction rate).
 */
export const CDNA_SOFTMAX_FLOPS_PER_SCORE = (128 / 16) * 2 + 4 * 2 * 2;

/**
 * DS Composable Kernel's FlashAttention forward as aiter / PyTorch build it for d = 128 bf16:
 * `fmha_fwd_d128_bf16_batch_b128x128x32x128x32x128_r4x1x1_…_qr_async_vr_…` — 128 query rows
 * (bm0) × 128-token K/V blocks (bn0), 4 waves along the rows, Q kept in registers, K copied
 * asynchronously into LDS one block ahead (NumPrefetchK = 1) and V likewise. The grid is one
 * workgroup per (query block, head, batch) in launch order, no persistent scheduler. Softmax
 * runs on the same waves as the MFMAs (no warp specialisation), so the two add up.
 */
export function selectCdnaPrefillAttention(spec: CdnaLibrarySpec, s: PrefillAttentionShape): PrefillAttentionKernel {
  const kv = 128 * s.headDim * 2;
  // K and V blocks of the next step in flight; UNC: one resident workgroup per CU at d = 128.
  const occ = occupancy(spec.cu, { threads: 256, registersPerThread: 256, sharedBytes: Math.min(spec.cu.sharedBytes, 2 * kv) });
  return {
    name: 'fmha_fwd_d128_bf16_batch_b128x128x32x128x32x128_r4x1x1_qr_async_vr_mask',
    queryRows: 128,
    kvCols: 128,
    order: 'in-order',
    softmaxFlopsPerScore: CDNA_SOFTMAX_FLOPS_PER_SCORE,
    pipeline: { inFlightBytes: 2 * kv * Math.max(1, occ.blocks), overlap: 2 * Math.max(1, occ.wavesPerSimd) },
  };
}

/** The library model of one CDNA part. */
export function cdnaKernelLibrary(spec: CdnaLibrarySpec): KernelLibrary {
  return {
    name: spec.name,
    gemm: (s) => selectCdnaGemm(spec, s),
    decodeAttention: (s) => selectCdnaDecodeAttention(spec, s),
    prefillAttention: (s) => selectCdnaPrefillAttention(spec, s),
    fp8Refusal: (fp8) => cdnaFp8Refusal(spec.arch, fp8),
  };
}
