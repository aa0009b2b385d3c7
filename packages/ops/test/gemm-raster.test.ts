import { describe, expect, it } from 'vitest';
import { addCounters, gemmRaster, gemmTileOrder, simulateGraph, zeroCounters, type Backend, type GemmKernel } from '@fleet/core';
import { KERNEL_PER_OP_GRAPH } from '../src/index.js';
import { mi350Backend, singleLinearGraph } from './helpers.js';

/** The MI350 backend with a library whose GEMM is one fixed 128 × 128 tile walked in `raster` order. */
function withRaster(raster: GemmKernel['raster'], swizzle?: number): Backend {
  const b = mi350Backend();
  const gemm = (): GemmKernel => ({
    name: 'tile128',
    tileRows: 128,
    tileCols: 128,
    splitK: 1,
    pipeline: { inFlightBytes: 64 * 1024, overlap: 2 },
    raster,
    swizzle,
  });
  return { ...b, kernelLibrary: { ...b.kernelLibrary!, gemm } };
}

function run(b: Backend, m: number, n: number, k: number) {
  const g = singleLinearGraph(m, n, k);
  const def = KERNEL_PER_OP_GRAPH;
  const tg = def.compile(g, b, def.schedule, { layers: [0], library: b.kernelLibrary, kernels: b.tuning.kernels });
  const sim = simulateGraph(b, tg, { launchMode: 'graph' });
  const counters = zeroCounters();
  for (const c of sim.counters) addCounters(counters, c);
  return { tg, timeNs: sim.timeNs, hbmReadBytes: counters.hbmReadBytes };
}

describe("a GEMM kernel's raster order", () => {
  it("CUTLASS's heuristic: along M with more column tiles than row tiles, else along N", () => {
    expect(gemmRaster({ raster: 'heuristic' }, 2, 48)).toBe('along-m');
    expect(gemmRaster({ raster: 'heuristic' }, 64, 32)).toBe('along-n');
    expect(gemmRaster({ raster: 'along-n' }, 2, 48)).toBe('along-n');
    expect(gemmRaster(undefined, 64, 32)).toBe('along-m');
  });

  it('along N, a wave of a tall GEMM shares its activation rows and reads far less from DRAM', () => {
    // 16384 × 4096 × 8192: 128 row tiles × 32 column tiles; activations 256 MB (the size of the
    // MI350's last-level cache), weights 64 MB.
    const alongM = run(withRaster('along-m'), 16384, 4096, 8192);
    const heuristic = run(withRaster('heuristic'), 16384, 4096, 8192);
    const firstRows = (r: typeof alongM) => r.tg.tasks.slice(0, 4).map((t) => t.tiles[0]!.reads[1]!.offset);
    // along M the first tiles are four row tiles of one column; along N one row tile's columns
    expect(new Set(firstRows(alongM)).size).toBe(4);
    expect(new Set(firstRows(heuristic)).size).toBe(1);
    expect(heuristic.hbmReadBytes).toBeLessThan(0.7 * alongM.hbmReadBytes);
    expect(heuristic.timeNs).toBeLessThanOrEqual(alongM.timeNs);
  });

  it('a swizzle walks bands of tiles across the raster, each tile once', () => {
    // Along N (more row tiles): bands of 2 row tiles, a band's two tiles at each column.
    expect(gemmTileOrder({ raster: 'along-n', swizzle: 2 }, 3, 2)).toEqual([
      [0, 0],
      [1, 0],
      [0, 1],
      [1, 1],
      [2, 0],
      [2, 1],
    ]);
    expect(gemmTileOrder({ raster: 'along-m', swizzle: 2 }, 2, 2)).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ]);
    // No swizzle: the plain raster.
    expect(gemmTileOrder({ raster: 'along-n' }, 2, 3)).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
      [1, 2],
    ]);
    const order = gemmTileOrder({ raster: 'heuristic', swizzle: 8 }, 37, 11);
    expect(new Set(order.map(([m, n]) => `${m},${n}`)).size).toBe(37 * 11);
  });

  it('with a weight larger than the cache, a band of row tiles streams it once, not once per row tile', () => {
    // 16384 × 16384 × 8192 on MI350, walked along N: 128 row tiles × 128 column tiles, a 268 MB
    // weight (more than the 256 MB last-level cache) swept once per row tile, or once per band.
    const plain = run(withRaster('along-n'), 16384, 16384, 8192);
    const banded = run(withRaster('along-n', 8), 16384, 16384, 8192);
    expect(banded.hbmReadBytes).toBeLessThan(0.6 * plain.hbmReadBytes);
  });
});
