/**
 * vLLM's skinny GEMMs on CDNA, `wvSplitK` (bf16/fp16) and `wvSplitKQ` (FP8), as their host
 * code launches them (DS vllm-project/vllm csrc/rocm/skinny_gemms.cu): a persistent grid of
 * one workgroup per CU (the kernel reserves the whole LDS for the activation, so no second
 * workgroup fits), 16 waves of 64 lanes per workgroup. Each wave owns YTILE output columns
 * (weight rows) and streams all of K for them, its 64 lanes splitting K (the "split-K" of the
 * name is within the wave, reduced by DPP; there is no second kernel). The workgroups walk the
 * columns in rounds of CUs × waves × YTILE, and the host trims the waves per workgroup
 * (`mindiv`) to the fewest that keep the number of whole rounds, so the columns spread over
 * (nearly) every CU at a granularity of YTILE columns per wave.
 */
import type { ComputeResources, TilePipeline } from '@fleet/core';

/** DS `dim3 block(64, 16)`: waves per workgroup before `mindiv` trims them. */
export const WVSPLITK_WAVES = 16;

/**
 * DS bytes one lane loads per weight row and unrolled K-step: `loadnt((scalar8*)…)` of A_CHUNK
 * = 8 bf16 (wvSplitK) or 16 FP8 values (wvSplitKQ), 16 B either way.
 */
export const WVSPLITK_LANE_LOAD_BYTES = 16;

/** How one wvSplitK launch covers an N-column weight. */
export interface WvSplitKLaunch {
  /** Output columns per wave per round. */
  ytile: number;
  /** K-steps (of 64 lanes × one load) each wave issues before it multiplies. */
  unroll: number;
  /** Active waves per workgroup (`mindiv`). */
  waves: number;
  /** Output columns one workgroup covers per round: waves × YTILE. */
  colsPerRound: number;
}

/**
 * DS `mindiv(N, div1, div2)`: the fewest waves per workgroup (down to div2 − 12) for which the
 * whole rounds of div1 × waves columns stay as many as with div2 waves.
 */
export function wvSplitKMindiv(n: number, div1: number, div2: number): number {
  const rounds = (waves: number) => Math.floor(n / (div1 * waves));
  for (let i = 12; i > 0; i--) if (rounds(div2 - i) === rounds(div2)) return div2 - i;
  return div2;
}

/**
 * The launch vLLM's host code picks for `rows` batch rows of an n × k weight on `cus` CUs.
 * wvSplitK: YTILE from the columns per wave that one round of 16 waves on every CU leaves
 * (`YT = ceil(N / (CUs × 16))`: 2 with 2 K-steps unrolled, 3 or 4 with one). wvSplitKQ: YTILE
 * 2 (2 unrolled) for 1–2 rows; for 3–4 rows 4 where the activation fits the LDS and N divides
 * by 4 (`_sml_`), else 7 (one unrolled).
 */
export function wvSplitKLaunch(n: number, k: number, rows: number, cus: number, fp8: boolean, ldsBytes: number): WvSplitKLaunch {
  let ytile: number;
  let unroll: number;
  if (fp8) {
    if (rows <= 2) [ytile, unroll] = [2, 2];
    else [ytile, unroll] = [k * rows <= ldsBytes && n % 4 === 0 ? 4 : 7, 1];
  } else {
    const yt = Math.ceil(n / (cus * WVSPLITK_WAVES));
    [ytile, unroll] = yt <= 2 ? [2, 2] : yt <= 3 ? [3, 1] : [4, 1];
  }
  const waves = wvSplitKMindiv(n, cus * ytile, WVSPLITK_WAVES);
  return { ytile, unroll, waves, colsPerRound: waves * ytile };
}

/**
 * A wvSplitK workgroup's pipeline on its CU. Every wave issues its YTILE × UNRL weight loads
 * (64 lanes × 16 B each) back to back and waits for them before its dot products, so the CU
 * keeps waves × YTILE × UNRL KiB in flight (Little's law); its waves, several per SIMD, hide
 * one another's multiplies (one stage each: no prefetch across K-steps). One workgroup per CU.
 */
export function wvSplitKPipeline(cu: ComputeResources, launch: WvSplitKLaunch): TilePipeline {
  return {
    inFlightBytes: launch.waves * launch.ytile * launch.unroll * cu.waveSize * WVSPLITK_LANE_LOAD_BYTES,
    overlap: Math.ceil(launch.waves / cu.simds),
    residentTiles: 1,
  };
}
