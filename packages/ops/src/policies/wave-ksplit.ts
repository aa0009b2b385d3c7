/**
 * FLEET M-tile with the wave-level K-split the FLEET paper proposes for large batches (§4.1,
 * §6.2: "K-split with wave-level reduction excels at bs > 32"; its megakernel lacks it).
 *
 * In FLEET's GEMM the four waves of a worker share one 16 × 64 tile's K loop: they stage each
 * K-chunk through LDS and meet at a barrier before the MFMAs, so at one wave per SIMD the CU
 * loads, then multiplies (the megakernel pipeline's overlap of 1). Split over K instead, each
 * wave runs its own quarter of the K loop into its own accumulators with no per-chunk
 * barrier; the waves drift out of phase, so while one SIMD multiplies the others' loads are in
 * flight: the CU's SIMDs are independent contexts (overlap × SIMDs per unit). Bytes in flight,
 * traffic and the fill waits stay those of one wave per SIMD. The partial tiles meet once per
 * tile through LDS ((SIMDs − 1) × 16 × 64 fp32 = 12 KiB written and read, ≈ 50 ns at CDNA4's
 * 256 B/clk), not charged beside the 300 ns per-tile overhead.
 */
import type { Backend, OpGraph, TaskGraph, TilePipeline } from '@fleet/core';
import type { CompileOptions } from '../compile/lowering.js';
import { fleetSchedule, megakernelPolicy, chipletTaskLowering, chipletIsPartition } from './megakernel.js';
import type { Schedule } from '../compile/schedule.js';
import type { Policy } from './policy.js';

/** The megakernel pipeline `base` with each of a unit's `simds` SIMDs running its own K range. */
export function waveKSplitPipeline(base: TilePipeline, simds: number): TilePipeline {
  return { ...base, overlap: base.overlap * simds };
}

const base = megakernelPolicy(
  'fleet-wave-ksplit',
  "persistent, chiplet-tasks, cooperative M-major tiling; each tile's K loop split over the worker's waves (one per SIMD), partial sums reduced in LDS",
  fleetSchedule('m-tile'),
  chipletTaskLowering,
  chipletIsPartition,
);

/** fleet-mtile's task graph with every linear tile on the wave-split pipeline. */
function compileWaveSplit(graph: OpGraph, backend: Backend, s: Schedule, opts: CompileOptions): TaskGraph {
  const g = base.compile(graph, backend, s, opts);
  const persistent = backend.costModel.pipelines?.persistent;
  if (!persistent) return g;
  const pipe = waveKSplitPipeline(persistent, backend.topology.computeUnit.simdsPerUnit);
  for (const t of g.tasks) {
    if (t.kind !== 'linear') continue;
    t.tiles = t.tiles.map((tile) => ({
      ...tile,
      pipeline: tile.pipeline ? waveKSplitPipeline(tile.pipeline, backend.topology.computeUnit.simdsPerUnit) : pipe,
    }));
  }
  return g;
}

/** FLEET M-tile with a wave-level K-split in its GEMM tiles; compare with `fleet-mtile`. */
export const FLEET_WAVE_KSPLIT: Policy = { ...base, compile: compileWaveSplit };
