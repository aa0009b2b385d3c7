import { describe, expect, it } from 'vitest';
import { flashDecodeSplits, kernelLibrary, numSplitsHeuristic, SDPA_GROUPED_ROWS_LIBRARY, selectFlashDecode } from '../src/index.js';

const shape = (batch: number, heads: number, kvHeads: number, kvLen: number) => ({ batch, heads, kvHeads, kvLen, headDim: 128 });

describe('FlashAttention-2 split-KV decode', () => {
  it('reproduces the split counts of the grids measured on an H100 (bench/results/h100/sweep.json)', () => {
    // [batch, heads, kvHeads, kvLen, splits in the measured grid]
    const measured: [number, number, number, number, number][] = [
      [1, 32, 8, 1024, 8],
      [1, 32, 8, 8192, 32],
      [1, 32, 8, 32768, 29],
      [1, 32, 8, 131072, 28],
      [2, 32, 8, 16384, 15],
      [2, 32, 8, 32768, 14],
      [4, 32, 8, 4096, 7],
      [16, 32, 8, 8192, 2],
      [32, 32, 8, 8192, 1],
      [1, 32, 4, 8192, 64],
      [1, 32, 4, 65536, 57],
    ];
    for (const [b, h, kv, l, s] of measured) expect(flashDecodeSplits(shape(b, h, kv, l)), `${b} ${h}/${kv} ${l}`).toBe(s);
  });

  it('skips split counts that leave the blocks per split unchanged, and never splits a full GPU', () => {
    // 64 blocks: 23–31 splits give 3 blocks per split like 22 does, so the first eligible count within 85% of the best is 32
    expect(numSplitsHeuristic(8, 264, 64)).toBe(32);
    expect(numSplitsHeuristic(212, 264, 1024)).toBe(1);
  });

  it('is the default library decode attention; the grouped-rows library keeps cuDNN unsplit', () => {
    const s = shape(1, 32, 8, 32768);
    expect(kernelLibrary.decodeAttention(s).splits).toBe(29);
    expect(selectFlashDecode(s).name).toContain('splitkv');
    expect(SDPA_GROUPED_ROWS_LIBRARY.decodeAttention(s).splits).toBe(1);
    expect(selectFlashDecode(shape(64, 32, 8, 4096)).name).toContain('flash_fwd_kernel');
  });
});
