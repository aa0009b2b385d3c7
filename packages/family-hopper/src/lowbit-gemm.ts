/**
 * Low-bit GEMMs in the sm80 programming model (mma.sync + cp.async), which Ampere, Ada and
 * Hopper all run: the kernels a serving stack can pick for weights of 1 to 8 bits.
 *
 * - **Tilus** (Ding et al., ASPLOS'25): weights pre-laid-out in global memory tile by tile so
 *   a cp.async stage lands in shared memory as the registers want it; the register tile is
 *   reinterpreted as the low-bit type at no cost and cast with a few PRMT/LOP3 instructions
 *   and one half2 FMA (scale and zero point folded into it); split-K for small M; tiles
 *   chosen by an autotuner (here: every feasible configuration priced by the cost model
 *   below, the cheapest taken). For prefill (large M) the weights may instead be expanded to
 *   fp16 by a dequantization kernel and multiplied by the device's dense GEMM (Tilus §8.4).
 * - **Triton** (the W4A16 split-K kernel of Hoque et al., arXiv 2402.00025, as Tilus benchmarks
 *   it): cp.async-pipelined loads of row-major packed codes, per-element shift/mask and an
 *   integer-to-half conversion, then the layout conversion the dot needs through shared memory
 *   (Tilus Fig. 1a: a store and a load of every dequantized element and a barrier).
 *
 * Every cost is a mechanism over the device's own numbers: bytes at the DRAM's achievable
 * bandwidth and, per CTA, at its bytes in flight (Little's law); dequantization instructions
 * per element at the SM's integer, half2, conversion and shared-memory rates (CUDA C
 * programming guide, arithmetic instruction throughput); mma.sync time at the device's rate;
 * the pipeline's fill. No parameter is set from a Tilus figure; they are what the kernels are
 * checked against (`fleet validate --suite tilus`).
 */
import { occupancy, type ComputeResources, type GemmKernel, type GemmQuant, type GemmShape, type TilePipeline } from '@fleet/core';

/** What an sm80-style kernel sees of a device. Rates are per SM. */
export interface Sm80Device {
  name: string;
  sms: number;
  clockGhz: number;
  /** Occupancy limits of one SM. */
  sm: ComputeResources;
  /** Largest dynamic shared memory one CTA may take, bytes. */
  maxSharedPerCta: number;
  /** Achievable DRAM read bandwidth, bytes/ns. */
  dramBytesPerNs: number;
  /** DRAM latency a streaming CTA waits, ns. */
  dramLatencyNs: number;
  l2BytesPerNs: number;
  l2LatencyNs: number;
  /** Bytes per ns one SM can take in from the L2 (its load path). */
  smBytesPerNs: number;
  /** fp16 mma.sync (fp32 accumulate) FLOP/ns one SM sustains. */
  mmaSyncFlopsPerNs: number;
  /** The device's fastest dense fp16/bf16 GEMM (wgmma on Hopper, mma.sync elsewhere), FLOP/ns per SM, as its cost model charges it. */
  denseMatrixFlopsPerNs: number;
  /** Instructions per clock per SM: 32-bit integer/logic (LOP3, PRMT, shift), half2 FMA, type conversions (cvt). */
  intOpsPerClk: number;
  half2OpsPerClk: number;
  cvtPerClk: number;
  /** Shared-memory bandwidth per SM, bytes/clock. */
  sharedBytesPerClk: number;
  /** The cost model's vector rate per SM (FLOP-equivalents/ns): kernel work is expressed in its units. */
  vectorFlopsPerNs: number;
  /** Per-tile prologue/epilogue the memory system does not charge, ns. */
  tileOverheadNs: number;
  /** Gap between dependent kernels (a graph node), ns. */
  kernelGapNs: number;
  /** Bytes an SM running an elementwise kernel keeps in flight (the dequantization kernel). */
  elementwiseInFlightBytes: number;
}

/** The low-bit kernels a library can run; `tilus` is the default choice. */
export type LowBitKernelFamily = 'tilus' | 'triton';

/** One tile configuration of an sm80 GEMM. */
export interface Sm80Config {
  /** 4 or 8 warps. */
  threads: number;
  /** Batch rows, weight columns and K per stage. */
  bm: number;
  bn: number;
  bk: number;
  /** cp.async stages in the shared-memory ring. */
  stages: number;
  splitK: number;
}

const THREADS = [128, 256];
/** mma.m16n8k16: the batch rows are the instruction's 16-row operand. */
const MMA_ROWS = 16;
/** DS (CUDA C programming guide): at most 255 registers per thread; ~64 of them hold addresses, fragments and loop state (UNC). */
const MAX_REGISTERS = 255;
const BASE_REGISTERS = 64;

const BM = [16, 32, 64, 128];
const BN = [32, 64, 128, 256];
const BK = [32, 64, 128];
const STAGES = [2, 3, 4, 5];
const SPLIT_K = [1, 2, 4, 8, 16];

/** The default group parameters of a weight passed by size alone (`weightBytes < 1`, no `quant`): 4-bit, group 128. */
export function quantOf(s: GemmShape): GemmQuant | null {
  if (s.quant) return s.quant;
  if (s.weightBytes >= 1) return null;
  return { bits: Math.round(s.weightBytes * 8), kind: 'uint', group: 128, zeroPoint: false };
}

/**
 * Instructions per weight element of a kernel family's dequantization, per SM: integer/logic,
 * half2 and conversion instructions, and shared-memory bytes.
 *
 * Tilus (register reinterpretation + vectorised cast, §6.2): two elements per half2 register.
 * An integer pair is placed into the two halves' mantissas with one LOP3 (magic-number
 * exponent) and one shift to the next field; codes that straddle 32-bit words (3, 5, 6, 7
 * bits) take one more funnel shift per pair; 8-bit codes one PRMT per pair. One half2 FMA per
 * pair subtracts the magic number and applies the group's scale (and zero point, folded into
 * the constant). Floats: LOP3 and shift place sign, exponent and mantissa, one half2 multiply
 * rebias × scale. Shared memory is read once per code byte.
 *
 * Triton (Fig. 1a): codes are unpacked one element at a time (shift, mask), converted with
 * cvt (int32 → f16; floats: sign/exponent/mantissa assembled with four integer operations and
 * no cvt), zero point and scale applied as two half operations; then every dequantized fp16
 * element is stored to and loaded from shared memory for the layout the dot needs.
 */
export function dequantInstructions(family: LowBitKernelFamily, q: GemmQuant): { int: number; half2: number; cvt: number; sharedBytes: number } {
  const codeBytes = q.bits / 8;
  if (family === 'tilus') {
    const int = q.bits === 8 ? 0.5 : q.kind === 'float' ? 1 : 32 % q.bits === 0 ? 1 : 1.5;
    return { int, half2: 0.5, cvt: 0, sharedBytes: codeBytes };
  }
  const int = q.kind === 'float' ? 4 : 2;
  return { int, half2: (q.zeroPoint ? 2 : 1) * 1, cvt: q.kind === 'float' ? 0 : 1, sharedBytes: codeBytes + 2 * 2 };
}

/** SM clock cycles to dequantize one weight element (the busiest unit's share: they issue in parallel). */
export function dequantCycles(dev: Sm80Device, family: LowBitKernelFamily, q: GemmQuant): number {
  const i = dequantInstructions(family, q);
  return i.int / dev.intOpsPerClk + i.half2 / dev.half2OpsPerClk + i.cvt / dev.cvtPerClk + i.sharedBytes / dev.sharedBytesPerClk;
}

/** Bytes per weight element as stored: the code and its share of the group's scale (bf16) and zero point. */
function weightBytesPerElement(q: GemmQuant | null): number {
  if (!q) return 2;
  return q.bits / 8 + (2 + (q.zeroPoint ? q.bits / 8 : 0)) / q.group;
}

interface Resources {
  stageBytes: number;
  sharedBytes: number;
  registers: number;
  ctasPerSm: number;
}

function resources(dev: Sm80Device, family: LowBitKernelFamily | 'dense', q: GemmQuant | null, c: Sm80Config): Resources | null {
  const stageBytes = c.bm * c.bk * 2 + c.bk * c.bn * weightBytesPerElement(q);
  // Triton's layout conversion stages one dequantized fp16 tile in shared memory.
  const sharedBytes = c.stages * stageBytes + (family === 'triton' ? c.bk * c.bn * 2 : 0);
  if (sharedBytes > dev.maxSharedPerCta) return null;
  const registers = BASE_REGISTERS + (c.bm * c.bn) / c.threads;
  if (registers > MAX_REGISTERS) return null;
  const ctasPerSm = occupancy(dev.sm, { threads: c.threads, registersPerThread: Math.ceil(registers), sharedBytes }).blocks;
  return ctasPerSm > 0 ? { stageBytes, sharedBytes, registers, ctasPerSm } : null;
}

/** CTAs an SM holds at once: its occupancy, or fewer when the grid has fewer per SM. */
function resident(dev: Sm80Device, s: GemmShape, c: Sm80Config, r: Resources): number {
  const ctas = Math.ceil(s.m / c.bm) * Math.ceil(s.n / c.bn) * c.splitK;
  return Math.max(1, Math.min(r.ctasPerSm, Math.ceil(ctas / dev.sms)));
}

/** Every tile configuration the autotuner tries for this shape: tiles no taller than the batch needs, split-K in whole stages and groups. */
export function sm80Configs(s: GemmShape, q: GemmQuant | null): Sm80Config[] {
  const rowsNeeded = Math.max(MMA_ROWS, 2 ** Math.ceil(Math.log2(Math.max(1, s.m))));
  const out: Sm80Config[] = [];
  for (const bm of BM) {
    if (bm > rowsNeeded) continue;
    for (const bn of BN)
      for (const bk of BK) {
        // A stage holds whole groups, or a group whole stages (one scale per column per stage or per group).
        if (q && q.group % bk !== 0 && bk % q.group !== 0) continue;
        const unit = q ? Math.max(bk, q.group) : bk;
        for (const stages of STAGES)
          for (const splitK of SPLIT_K) {
            if (splitK > 1 && s.k % (splitK * unit) !== 0) continue;
            // 8 warps only for tiles with at least one 16 × 32 warp tile each.
            for (const threads of THREADS) if (threads === 128 || bm * bn >= 8 * 16 * 32) out.push({ threads, bm, bn, bk, stages, splitK });
          }
      }
  }
  return out;
}

/**
 * The cost model's estimate of one configuration, ns (the autotuner's objective), or null if
 * it does not fit the SM. Each SM runs its share of the CTAs: a tile streams its weight tile
 * from DRAM and its activation rows from L2 at the bytes the SM's cp.async rings keep in
 * flight; mma.sync and the dequantization share the SM (Tilus interleaves them on separate
 * pipes; Triton's conversion barrier puts them one after the other). The device's DRAM and L2
 * bound the whole grid; split-K adds the partial sums' reduction; the first stage's fill is
 * paid once.
 */
export function sm80EstimateNs(dev: Sm80Device, s: GemmShape, q: GemmQuant | null, family: LowBitKernelFamily | 'dense', c: Sm80Config): number | null {
  const r = resources(dev, family, q, c);
  if (!r) return null;
  const rowTiles = Math.ceil(s.m / c.bm);
  const ctas = rowTiles * Math.ceil(s.n / c.bn) * c.splitK;
  const kLen = s.k / c.splitK;
  const perEl = weightBytesPerElement(q);
  const dram = c.bn * kLen * perEl;
  const act = Math.min(c.bm, s.m) * kLen * 2;
  // The SM's resident CTAs share its bytes in flight and its pipes; as the simulation runs
  // them, its tiles take turns at the whole SM's rates, so an SM with one tile more than the
  // others finishes last.
  const inFlight = (c.stages - 1) * r.stageBytes * resident(dev, s, c, r);
  const memNs = Math.max((dram * dev.dramLatencyNs + act * dev.l2LatencyNs) / inFlight, (dram + act) / dev.smBytesPerNs);
  const mmaNs = (2 * Math.max(c.bm, MMA_ROWS) * c.bn * kLen) / (family === 'dense' ? dev.denseMatrixFlopsPerNs : dev.mmaSyncFlopsPerNs);
  const aluNs = q && family !== 'dense' ? (c.bn * kLen * dequantCycles(dev, family, q)) / dev.clockGhz : 0;
  const computeNs = family === 'triton' ? mmaNs + aluNs : Math.max(mmaNs, aluNs);
  const smNs = Math.ceil(ctas / dev.sms) * Math.max(memNs, computeNs);
  const dramNs = (s.n * s.k * perEl + s.m * s.k * 2 + s.m * s.n * 2) / dev.dramBytesPerNs;
  const l2Ns = (ctas * (dram + act)) / dev.l2BytesPerNs;
  // Split-K: each CTA adds its fp32 partial tile into the output in turn (a semaphore per tile).
  const reduceNs = c.splitK > 1 ? (2 * s.m * s.n * 4 * c.splitK) / dev.l2BytesPerNs + c.splitK * dev.l2LatencyNs : 0;
  return Math.max(smNs, dramNs, l2Ns) + dev.dramLatencyNs + dev.tileOverheadNs + reduceNs;
}

/** The autotuner: every feasible configuration priced, the cheapest kept (within 1%, the larger tile: fewer CTAs re-reading the operands). */
export function searchSm80(
  dev: Sm80Device,
  s: GemmShape,
  q: GemmQuant | null,
  family: LowBitKernelFamily | 'dense',
): { config: Sm80Config; ns: number; tried: number } {
  let best: { config: Sm80Config; ns: number } | null = null;
  let tried = 0;
  for (const c of sm80Configs(s, q)) {
    const ns = sm80EstimateNs(dev, s, q, family, c);
    if (ns === null) continue;
    tried++;
    const bigger = best !== null && c.bm * c.bn > best.config.bm * best.config.bn;
    if (!best || ns < best.ns * 0.99 || (ns <= best.ns * 1.01 && bigger)) best = { config: c, ns };
  }
  if (!best) throw new RangeError(`no ${family} tile configuration fits ${dev.name}'s SM for M=${s.m} N=${s.n} K=${s.k}`);
  return { ...best, tried };
}

/** The GEMM kernel of a configuration, as the simulation runs it. */
export function sm80Kernel(dev: Sm80Device, s: GemmShape, q: GemmQuant | null, family: LowBitKernelFamily | 'dense', c: Sm80Config): GemmKernel {
  const r = resources(dev, family, q, c);
  if (!r) throw new RangeError(`tile ${c.bm}×${c.bn}×${c.bk} × ${c.stages} stages does not fit ${dev.name}'s SM`);
  const onSm = resident(dev, s, c, r);
  const pipeline: TilePipeline = {
    inFlightBytes: (c.stages - 1) * r.stageBytes * onSm,
    overlap: c.stages,
    residentTiles: onSm,
    ...(family === 'tilus' ? { vectorUnderMatrix: true } : {}),
  };
  const prefix =
    family === 'dense' ? 'cutlass_80_tensorop_f16_s16816gemm' : family === 'tilus' ? `tilus_matmul_f16x${typeName(q!)}` : `triton_splitk_w${q!.bits}a16`;
  return {
    name: `${prefix}_${c.bm}x${c.bn}x${c.bk}_${c.stages}stage_${c.threads / 32}warp${c.splitK > 1 ? `_splitk${c.splitK}` : ''}`,
    tileRows: Math.max(c.bm, MMA_ROWS),
    tileCols: c.bn,
    splitK: c.splitK,
    maskedRows: true,
    pipeline,
    ...(q && family !== 'dense' ? { dequantFlopsPerElement: (dequantCycles(dev, family, q) / dev.clockGhz) * dev.vectorFlopsPerNs } : {}),
    ...(family !== 'dense' && dev.mmaSyncFlopsPerNs !== dev.denseMatrixFlopsPerNs
      ? { matrixFlopsScale: dev.denseMatrixFlopsPerNs / dev.mmaSyncFlopsPerNs }
      : {}),
  };
}

function typeName(q: GemmQuant): string {
  return `${q.kind === 'float' ? 'f' : q.kind === 'int' ? 'i' : 'u'}${q.bits}${q.zeroPoint ? 'z' : ''}`;
}

/**
 * Dequantize-then-GEMM for large M (Tilus's prefill path): one elementwise kernel reads the
 * codes and group parameters and writes fp16 weights (Tilus's vectorised cast per element,
 * plus the store), then the device's dense GEMM runs on them. Its estimate: the expansion at
 * the DRAM's bandwidth or the SMs' cast rate, a kernel gap, and the dense GEMM's.
 */
export function dequantThenGemmNs(dev: Sm80Device, s: GemmShape, q: GemmQuant, denseNs: number): number {
  const elements = s.n * s.k;
  const bytes = elements * (weightBytesPerElement(q) + 2);
  const castNs = (elements * dequantCycles(dev, 'tilus', q)) / (dev.sms * dev.clockGhz);
  return Math.max(bytes / dev.dramBytesPerNs, castNs) + dev.dramLatencyNs + dev.kernelGapNs + denseNs;
}

/** The dense GEMM a dequantize-then-GEMM runs, told it must first expand the weights. */
export function withPredequantize(dev: Sm80Device, dense: GemmKernel, q: GemmQuant): GemmKernel {
  return {
    ...dense,
    name: `tilus_dequant_${typeName(q)}_to_f16 + ${dense.name}`,
    predequantize: {
      name: `tilus_dequant_${typeName(q)}_to_f16`,
      dequantFlopsPerElement: (dequantCycles(dev, 'tilus', q) / dev.clockGhz) * dev.vectorFlopsPerNs,
      pipeline: { inFlightBytes: dev.elementwiseInFlightBytes, overlap: 4 },
    },
  };
}

/** What a low-bit selection compares against: the device's dense GEMM for the same shape and its estimate. */
export interface DenseGemm {
  kernel(s: GemmShape): GemmKernel;
  estimateNs(s: GemmShape): number;
}

/**
 * The low-bit GEMM a library runs for a quantized weight under a kernel family: the
 * autotuned fused kernel, or (Tilus, where the estimate says so) dequantize-then-GEMM.
 */
export function selectLowBitGemm(dev: Sm80Device, s: GemmShape, family: LowBitKernelFamily, dense: DenseGemm): GemmKernel {
  const q = quantOf(s);
  if (!q) return dense.kernel(s);
  const fused = searchSm80(dev, s, q, family);
  if (family === 'tilus') {
    const denseShape: GemmShape = { m: s.m, n: s.n, k: s.k, weightBytes: 2 };
    if (dequantThenGemmNs(dev, s, q, dense.estimateNs(denseShape)) < fused.ns) return withPredequantize(dev, dense.kernel(denseShape), q);
  }
  return sm80Kernel(dev, s, q, family, fused.config);
}

/** The dense fp16 GEMM of an sm80 device (CUTLASS/cuBLAS sm80 kernels: mma.sync tiles over a cp.async ring), autotuned the same way. */
export function sm80DenseGemm(dev: Sm80Device): DenseGemm {
  return {
    kernel: (s) => sm80Kernel(dev, s, null, 'dense', searchSm80(dev, s, null, 'dense').config),
    estimateNs: (s) => searchSm80(dev, s, null, 'dense').ns,
  };
}
