/**
 * FlashAttention-2 as workgroup tasks with their data footprints: what each workgroup
 * reads once, what it streams step by step (and whose copy it is — a query head's or a KV
 * head's), what it writes, and its FLOPs per step. The simulator walks these; nothing here
 * is hardware-specific (the backend's cost model prices the FLOPs, its topology bounds the
 * occupancy).
 *
 * Non-causal, bf16 operands, fp32 accumulation, layout [batch, heads, seq, headDim].
 */
import type { Tile, Topology } from '@fleet/core';
import type { AttentionGrid } from './mappings.js';

export type AttentionPass = 'fwd' | 'bwd';

export interface AttentionShape {
  batch: number;
  heads: number;
  kvHeads: number;
  seq: number;
  headDim: number;
  pass: AttentionPass;
  /** Rows a workgroup owns (Q rows forward, K/V rows in the backward dK/dV phase). Default 128. */
  blockM?: number;
  /** Rows streamed per step. Default 64. */
  blockN?: number;
}

/** Block sizes of the study (Triton FA2 on MI300X: BLOCK_M 128, BLOCK_N 64). */
export const FA2_BLOCK_M = 128;
export const FA2_BLOCK_N = 64;
const BF16 = 2;
const FP32 = 4;
/**
 * Vector FLOPs of the online softmax per score element: scale, running max, subtract, exp,
 * row sum, rescale and the bf16 conversion of P. A kernel property (instruction count),
 * not a hardware one; the backward's dS = P ⊙ (dP − Δ) costs about the same.
 */
export const SOFTMAX_FLOPS_PER_SCORE = 8;

/** Data a workgroup streams: one tile of each tensor per step, keyed by its owner. */
export interface StreamedTensor {
  name: string;
  /** Whose copy: one per query head (`q`) or one per KV head (`kv`), per batch entry. */
  owner: 'q' | 'kv';
  bytesPerStep: number;
}

export interface KernelPhase {
  name: string;
  steps: number;
  streams: StreamedTensor[];
  matrixFlopsPerStep: number;
  vectorFlopsPerStep: number;
  /** Read once at the start of the phase (the workgroup's own rows: no other workgroup reads them). */
  onceReadBytes: number;
  /** Written once at the end of the phase. */
  writeBytes: number;
  /**
   * Load round trips a step waits for one after another: the streamed tensors split into
   * this many equal groups, each loaded only once the compute before it is done (no load
   * is issued ahead of the step that needs it).
   */
  serialLoads: number;
}

/** One workgroup's work, the same for every workgroup of the grid. */
export interface AttentionKernel {
  pass: AttentionPass;
  grid: AttentionGrid;
  blockM: number;
  blockN: number;
  headDim: number;
  phases: KernelPhase[];
  /** LDS (shared memory) a workgroup allocates, bytes: bounds occupancy. */
  ldsBytes: number;
  /** Registers a workgroup holds live, bytes: bounds occupancy. */
  registerBytes: number;
  /** The launch configuration: waves per workgroup and the waves per SIMD the kernel is compiled for (bounds occupancy). */
  launch: KernelLaunch;
}

/**
 * A kernel's launch configuration as AMD's Triton takes it: `num_warps` waves per workgroup,
 * and `waves_per_eu`, the waves per SIMD the compiler budgets registers for — the
 * occupancy the kernel is built to run at, whatever a register estimate says.
 */
export interface KernelLaunch {
  wavesPerWorkgroup: number;
  wavesPerSimd: number;
}

/**
 * AITER's Triton MHA configurations for MI300X (`aiter/ops/triton/configs/MI300X-MHA-DEFAULT.json`):
 * the forward's default (BLOCK_M 128, BLOCK_N 64) is `num_warps` 4, `waves_per_eu` 2 — two
 * workgroups per CU; the backward's one-kernel form is `num_warps` 4, `waves_per_eu` 1 (its
 * fused dK·dV·dQ form `num_warps` 8, `waves_per_eu` 2) — one workgroup per CU either way.
 * MI350X's file (`MI350X-MHA-DEFAULT.json`) says the same. On Hopper (no `waves_per_eu`)
 * the register estimate binds first (one CTA per SM for both passes).
 */
export const FA2_FORWARD_LAUNCH: KernelLaunch = { wavesPerWorkgroup: 4, wavesPerSimd: 2 };
export const FA2_BACKWARD_LAUNCH: KernelLaunch = { wavesPerWorkgroup: 4, wavesPerSimd: 1 };

function blocks(s: AttentionShape): { bm: number; bn: number } {
  return { bm: s.blockM ?? FA2_BLOCK_M, bn: s.blockN ?? FA2_BLOCK_N };
}

/**
 * What both FA2 passes share: their blocks, and the launch (one workgroup per batch, head and
 * BLOCK_M rows) with the tile sizes, in `AttentionKernel`'s field order; `steps` BLOCK_N tiles
 * cover the sequence.
 */
function kernelFrame(s: AttentionShape, pass: AttentionKernel['pass']) {
  const { bm, bn } = blocks(s);
  const d = s.headDim;
  const frame = {
    pass,
    grid: { batch: s.batch, heads: s.heads, kvHeads: s.kvHeads, blocks: Math.ceil(s.seq / bm) },
    blockM: bm,
    blockN: bn,
    headDim: d,
  };
  return { bm, bn, d, steps: Math.ceil(s.seq / bn), frame };
}

/**
 * FA2 forward: one workgroup per (batch, head, BLOCK_M query rows). It loads its Q block
 * once, streams every K and V tile of its KV head (BLOCK_N rows per step: S = QKᵀ, online
 * softmax, O += PV) and writes its O block and log-sum-exp.
 */
export function fa2Forward(s: AttentionShape): AttentionKernel {
  const { bm, bn, d, steps, frame } = kernelFrame(s, 'fwd');
  return {
    ...frame,
    phases: [
      {
        name: 'QKᵀ·softmax·PV',
        steps,
        streams: [
          { name: 'K', owner: 'kv', bytesPerStep: bn * d * BF16 },
          { name: 'V', owner: 'kv', bytesPerStep: bn * d * BF16 },
        ],
        // two matmuls of bm × bn × d, 2 FLOP per multiply-add
        matrixFlopsPerStep: 4 * bm * bn * d,
        vectorFlopsPerStep: SOFTMAX_FLOPS_PER_SCORE * bm * bn,
        onceReadBytes: bm * d * BF16,
        writeBytes: bm * d * BF16 + bm * FP32,
        // K is loaded, QKᵀ and the softmax computed, then V loaded (`PRELOAD_V` false), and
        // nothing is prefetched across steps (`num_stages` 1): AITER's MI300X forward default.
        serialLoads: 2,
      },
    ],
    // K and V tiles staged through LDS
    ldsBytes: 2 * bn * d * BF16,
    // Q (bf16), the O accumulator (fp32), S (fp32) and P (bf16)
    registerBytes: bm * d * BF16 + bm * d * FP32 + bm * bn * FP32 + bm * bn * BF16,
    launch: FA2_FORWARD_LAUNCH,
  };
}

/**
 * FA2 backward in the fused form of Triton's kernel (one launch, no atomics): workgroup n
 * first owns K/V rows [n·BLOCK_M, (n+1)·BLOCK_M) and streams Q, dO, LSE and Δ of its query
 * head (recompute S and P, dV += Pᵀ·dO, dP = dO·Vᵀ, dK += dSᵀ·Q), writes dK and dV; then it
 * owns Q rows of the same range and streams K and V of its KV head (recompute S, P, dP;
 * dQ += dS·K), writing dQ. GQA: the dK/dV phase runs per query head (partial sums reduced
 * afterwards, not modelled).
 */
export function fa2Backward(s: AttentionShape): AttentionKernel {
  const { bm, bn, d, steps, frame } = kernelFrame(s, 'bwd');
  return {
    ...frame,
    phases: [
      {
        name: 'dK·dV',
        steps,
        streams: [
          { name: 'Q', owner: 'q', bytesPerStep: bn * d * BF16 },
          { name: 'dO', owner: 'q', bytesPerStep: bn * d * BF16 },
          { name: 'LSE·Δ', owner: 'q', bytesPerStep: 2 * bn * FP32 },
        ],
        // S, dP, dV and dK: four matmuls of bm × bn × d
        matrixFlopsPerStep: 8 * bm * bn * d,
        vectorFlopsPerStep: SOFTMAX_FLOPS_PER_SCORE * bm * bn,
        onceReadBytes: 2 * bm * d * BF16,
        writeBytes: 2 * bm * d * BF16,
        serialLoads: 1,
      },
      {
        name: 'dQ',
        steps,
        streams: [
          { name: 'K', owner: 'kv', bytesPerStep: bn * d * BF16 },
          { name: 'V', owner: 'kv', bytesPerStep: bn * d * BF16 },
        ],
        // S, dP and dQ: three matmuls
        matrixFlopsPerStep: 6 * bm * bn * d,
        vectorFlopsPerStep: SOFTMAX_FLOPS_PER_SCORE * bm * bn,
        onceReadBytes: 2 * bm * d * BF16 + 2 * bm * FP32,
        writeBytes: bm * d * BF16,
        serialLoads: 1,
      },
    ],
    ldsBytes: 2 * bn * d * BF16,
    // the two fp32 accumulators (dK, dV), the owned K and V (bf16), S/P (fp32)
    registerBytes: 2 * bm * d * FP32 + 2 * bm * d * BF16 + bm * bn * FP32,
    launch: FA2_BACKWARD_LAUNCH,
  };
}

export function attentionKernel(s: AttentionShape): AttentionKernel {
  return s.pass === 'bwd' ? fa2Backward(s) : fa2Forward(s);
}

/**
 * Workgroups resident per compute unit: as many as its LDS and register file hold (both
 * from the backend's topology) and the kernel's launch allows (its waves per SIMD over the
 * unit's SIMDs), at least one.
 */
export function attentionOccupancy(k: AttentionKernel, t: Topology): number {
  const byLds = Math.floor(t.computeUnit.sharedMemoryBytes / k.ldsBytes);
  const byRegisters = Math.floor(t.computeUnit.registerFileBytes / k.registerBytes);
  const byLaunch = Math.floor((k.launch.wavesPerSimd * t.computeUnit.simdsPerUnit) / k.launch.wavesPerWorkgroup);
  return Math.max(1, Math.min(byLds, byRegisters, byLaunch));
}

/** Bytes a phase streams per step (all its tensors). */
export function stepBytes(p: KernelPhase): number {
  return p.streams.reduce((a, s) => a + s.bytesPerStep, 0);
}

/** Total FLOPs (matrix) of the whole grid. */
export function attentionFlops(k: AttentionKernel): number {
  const wgs = k.grid.batch * k.grid.heads * k.grid.blocks;
  return wgs * k.phases.reduce((a, p) => a + p.steps * p.matrixFlopsPerStep, 0);
}

/**
 * The step of a phase as core tiles (one on the matrix pipe, one on the vector ALU), so the
 * backend's cost model prices it. Regions are left empty: the simulator resolves the
 * streamed bytes itself.
 */
export function stepTiles(p: KernelPhase): { matrix: Tile; vector: Tile } {
  return {
    matrix: { reads: [], writes: [], flops: p.matrixFlopsPerStep, unit: 'matrix' },
    vector: { reads: [], writes: [], flops: p.vectorFlopsPerStep, unit: 'vector' },
  };
}
