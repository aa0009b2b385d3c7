/**
 * Decode attention as FlashAttention-2 splits it (flash-decoding): the kernel a serving engine's
 * FlashAttention backend and PyTorch's SDPA (`q [B, Hq, 1, D]`, `enable_gqa`, FLASH backend)
 * run for one query token per head. When batch × KV heads cannot fill the GPU, the KV length is
 * split over several CTAs and a combine kernel merges their partial outputs.
 *
 * The split count is FlashAttention-2's own (`set_params_splitkv` and `num_splits_heuristic`,
 * csrc/flash_attn/flash_api.cpp, as PyTorch 2.11 ships it): for one query token and GQA the
 * group's query heads become the query rows of their KV head (`seqlenq_ngroups_swapped`), so the
 * work units are batch × KV heads × ⌈group / 64⌉, the KV blocks are 128 tokens (head dim ≤ 128),
 * and the heuristic takes the fewest splits whose wave efficiency over 2 × SMs slots is within
 * 85% of the best. MEAS ours (bench/device/sweep.py, section attn, 2026-11-25, H100): the grids
 * of all 186 flash points (batch 1–64 × KV 1K–128K × heads 32/8, 40/8, 64/8, 32/4) equal it.
 */
import type { DecodeAttentionKernel, DecodeAttentionShape } from '@fleet/core';
import { H100_SXM5 as topology } from './reference/topology.js';

const SMS = topology.partitions.computeUnits.reduce((a, b) => a + b, 0);

/** DS (flash_api.cpp): the split kernel's KV block, by head dim. */
export function flashKvBlock(headDim: number): number {
  return headDim <= 64 ? 256 : headDim <= 128 ? 128 : 64;
}

/**
 * DS (PyTorch 2.11 flash_fwd_launch_template.h, `run_mha_fwd_hdim*` on sm90, no dropout):
 * the unsplit `flash_fwd_kernel`'s query rows and K/V tokens per block (kBlockM, kBlockN).
 * Head dim 256 takes 64 × 64 on an H100 (228 KB per SM: two 96 KB CTAs fit); MEAS ours
 * (bench/results/h100-headdim): 48, 64 and 96 KB of shared memory at head dims 64, 128, 256.
 */
export function flashFwdBlocks(headDim: number): { queryRows: number; kvBlock: number } {
  if (headDim <= 64) return { queryRows: 128, kvBlock: 128 };
  if (headDim <= 128) return { queryRows: 128, kvBlock: 64 };
  if (headDim <= 160) return { queryRows: 128, kvBlock: 32 };
  if (headDim <= 224) return { queryRows: 128, kvBlock: 64 };
  return { queryRows: 64, kvBlock: 64 };
}

/** DS (flash_api.cpp): query rows per CTA of the split kernel (kBlockM). */
const FLASH_SPLIT_QUERY_ROWS = 64;
/** DS (flash_api.cpp): at most 128 splits. */
const FLASH_MAX_SPLITS = 128;
/** DS (flash_api.cpp): two CTAs of the split kernel fit an SM (80 KB of shared memory each; MEAS ours: 81920 B). */
export const FLASH_SPLIT_CTAS_PER_SM = 2;

/**
 * FlashAttention-2's `num_splits_heuristic`: with enough work units to fill 80% of the slots,
 * one split; otherwise the fewest eligible splits whose wave efficiency (waves / ⌈waves⌉) is at
 * least 85% of the best. A split count is eligible when it changes the blocks per split (11
 * splits of 64 blocks are 6 × 10 + 4, 12 would be 6 × 11 − 2: 11 anyway).
 */
export function numSplitsHeuristic(units: number, slots: number, kvBlocks: number, maxSplits = FLASH_MAX_SPLITS): number {
  if (units >= 0.8 * slots) return 1;
  const max = Math.min(maxSplits, slots, kvBlocks);
  const eligible = (s: number) => s === 1 || Math.ceil(kvBlocks / s) !== Math.ceil(kvBlocks / (s - 1));
  const eff: number[] = [];
  let best = 0;
  for (let s = 1; s <= max; s++) {
    const waves = (units * s) / slots;
    const e = eligible(s) ? waves / Math.ceil(waves) : 0;
    eff.push(e);
    best = Math.max(best, e);
  }
  for (let s = 1; s <= max; s++) if (eligible(s) && eff[s - 1]! >= 0.85 * best) return s;
  return 1;
}

/** FlashAttention-2's work units for one decode query token per head: (request, head, 64-row query block). */
function flashDecodeUnits(s: DecodeAttentionShape): number {
  const group = s.heads / s.kvHeads;
  // seqlenq_ngroups_swapped: a GQA group's queries become query rows of its KV head.
  const [rows, heads] = group > 1 ? [group, s.kvHeads] : [1, s.heads];
  return s.batch * heads * Math.ceil(rows / FLASH_SPLIT_QUERY_ROWS);
}

/** FlashAttention-2's split count for one decode query token per head, `sms` SMs. */
export function flashDecodeSplits(s: DecodeAttentionShape, sms = SMS): number {
  return numSplitsHeuristic(flashDecodeUnits(s), FLASH_SPLIT_CTAS_PER_SM * sms, Math.ceil(s.kvLen / flashKvBlock(s.headDim)));
}

/**
 * CAL ours (`GAPS.sdpa`, bench/device/gaps.py: gqa/flash, 32/8 heads, head dim 128, batch 1,
 * kernels profiled in a replayed graph): the split kernel's time outside its KV loop per CTA
 * (loading Q, the first K/V block before the pipeline fills, writing the fp32 partial output
 * and its log-sum-exp), set so the simulated kernel takes the measured 5.65 µs at KV 1024
 * (8 splits of one 128-token block, 64 CTAs). KV 8192 (32 splits, 256 CTAs, two an SM) is
 * predicted: 15.4 µs against 15.7.
 */
export const FLASH_SPLIT_TILE_FIXED_NS = 3614;
/**
 * CAL ours (the same runs): the combine kernel (`flash_fwd_splitkv_combine_kernel`, 4 query
 * rows per CTA) takes 4.46 µs at 8 splits and 9.18 µs at 32. It walks a row's splits one after
 * another (each partial output is rescaled by the running log-sum-exp), so each split adds a
 * dependent step beside its read. Its time per split outside the reads the simulation charges,
 * and per CTA outside them, set so the simulated combine takes the measured time at both.
 */
export const FLASH_COMBINE_NS_PER_SPLIT = 156;
export const FLASH_COMBINE_FIXED_NS = 2252;

/**
 * DER from CAL ours (same sweep, gqa/flash 32/8 heads, batch 32, KV 32768: one split, 256
 * CTAs of `flash_fwd_kernel`, 2 per SM): each SM streams its two CTAs' 2 × 16.8 MB of K/V in
 * the measured 1681 µs, 20 B/ns, a rate that stays the same at batch 64 (two waves): the
 * unsplit kernel's 64-token blocks are issue-limited, not latency-limited. The rate is one
 * K/V block per iteration, so it scales with the block's bytes (`flashFwdBlocks`); MEAS ours
 * (bench/results/h100-headdim, batch 32): head dim 64's 128-token blocks of the same bytes
 * stream at 2.3 TB/s like head dim 128's 2.5, head dim 256's twice-as-large blocks reach
 * the HBM's 3.1.
 */
export const FLASH_FWD_DRAM_BYTES_PER_NS = Math.round((2 * 32768 * 128 * 2 * 2) / (1681.236 * 1000));
/** The K block of the calibration kernel above (head dim 128: 64 tokens × 128 × 2 B). */
const FLASH_FWD_CALIBRATION_BLOCK_BYTES = 64 * 128 * 2;

/**
 * DS (flash-attention's `flash_fwd_hdim*` instantiations, which PyTorch bundles): the head dims
 * FlashAttention-2 is compiled for; a model's head dim runs in the next one up, its extra
 * columns masked. MEAS ours (bench/results/h100-headdim96): head dim 80 takes head dim 96's
 * time in both kernels (1353 against 1355 µs unsplit at batch 32, KV 32K).
 */
const FLASH_HEAD_DIMS = [32, 64, 96, 128, 160, 192, 224, 256];

/**
 * CAL ours (bench/results/h100-headdim96, batch 32, KV 4K and 32K, unsplit): below the
 * calibration block the unsplit kernel's stream rate falls only as bytes^0.25 — head dim 96's
 * 12 KB blocks stream at 0.93 of head dim 128's 16 KB rate (1355 µs for three quarters of the
 * bytes, where a rate proportional to the block would take 1692). Above it the rate stays
 * proportional (head dim 256's 32 KB blocks: the HBM's rate on an H100, and more on an H200).
 */
const FLASH_FWD_SMALL_BLOCK_RATE_EXPONENT = 0.25;

/** The unsplit kernel's DRAM rate per CTA for `block`-token K blocks at `headDim`, bytes/ns: its padded block sets the pace, its own bytes move. */
function flashFwdDramBytesPerNs(block: number, headDim: number): number {
  const kernelDim = FLASH_HEAD_DIMS.find((d) => d >= headDim) ?? headDim;
  const ratio = (block * kernelDim * 2) / FLASH_FWD_CALIBRATION_BLOCK_BYTES;
  const pace = ratio < 1 ? ratio ** FLASH_FWD_SMALL_BLOCK_RATE_EXPONENT : ratio;
  return FLASH_FWD_DRAM_BYTES_PER_NS * pace * (headDim / kernelDim);
}

/**
 * The kernel FlashAttention-2 runs: `flash_fwd_splitkv_kernel` + combine when it splits, else
 * `flash_fwd_kernel`; both stream 128-token K and V blocks through cp.async (sm80 code: no TMA,
 * no wgmma), 4 warps, two CTAs per SM.
 */
export function selectFlashDecode(s: DecodeAttentionShape): DecodeAttentionKernel {
  const splits = flashDecodeSplits(s);
  // Two CTAs share an SM only when the grid has more than one per SM: a small grid's CTAs each
  // have an SM to themselves and hide none of each other's latency or fixed time.
  const resident = Math.max(1, Math.min(FLASH_SPLIT_CTAS_PER_SM, Math.ceil((flashDecodeUnits(s) * splits) / SMS)));
  const fwd = flashFwdBlocks(s.headDim);
  const block = splits > 1 ? flashKvBlock(s.headDim) : fwd.kvBlock;
  const blockBytes = block * s.headDim * 2;
  return {
    name: splits > 1 ? `flash_fwd_splitkv_kernel<${s.headDim},64,${block},4>+combine` : `flash_fwd_kernel<${s.headDim},${fwd.queryRows},${block},4>`,
    splits,
    // One K and one V block in flight per CTA (cp.async, issued a block ahead of the math).
    pipeline: {
      inFlightBytes: 2 * blockBytes,
      overlap: 2,
      residentTiles: resident,
      ...(splits === 1 ? { dramBytesPerNs: flashFwdDramBytesPerNs(block, s.headDim) } : {}),
    },
    tileFixedNs: FLASH_SPLIT_TILE_FIXED_NS,
    combineNsPerSplit: FLASH_COMBINE_NS_PER_SPLIT,
    // DS (flash_fwd_launch_template.h, run_mha_fwd_splitkv_dispatch): the combine's kBlockM,
    // 4 query rows a CTA at head dims divisible by 128, 8 at 64, 16 otherwise (MEAS ours: grid
    // 8 for 32 query heads at batch 1, whatever the KV heads).
    combineRows: s.headDim % 128 === 0 ? 4 : s.headDim % 64 === 0 ? 8 : 16,
    combineFixedNs: FLASH_COMBINE_FIXED_NS,
    kvBlock: block,
  };
}
