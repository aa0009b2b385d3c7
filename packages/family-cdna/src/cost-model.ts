/**
 * Core's roofline cost model, plus two CDNA refinements:
 * - a library kernel's tiles may carry the MFMA issue efficiency their own main loop reaches
 *   (`CdnaTilePipeline.mfmaEfficiency`, from a published measurement of that kernel), which
 *   then replaces the backend's default matrix efficiency for those tiles only;
 * - a linear tile on a pipeline that stages its GEMM through LDS at one wave per SIMD (the
 *   megakernel's, `MegakernelPipeline.ldsStaging`) also pays that LDS round trip
 *   (./lds-staging.ts): nothing else runs on the SIMD while it waits.
 */
import { RooflineCostModel, type OpKind, type RooflineParams, type TaskLevel, type Tile, type TilePipeline, type Topology } from '@fleet/core';
import type { CdnaTilePipeline } from './cdna-libraries.js';
import { ldsStagingNs } from './lds-staging.js';
import type { MegakernelPipeline } from './occupancy.js';

/** Ops whose tiles are the megakernel's CK GEMM tile (attention stages its K/V its own way). */
const LDS_STAGED_OPS: ReadonlySet<OpKind> = new Set<OpKind>(['linear', 'grouped-linear']);

export class CdnaCostModel extends RooflineCostModel {
  private readonly matrixPeak: number;

  constructor(topology: Topology, params: RooflineParams) {
    super(topology, params);
    this.matrixPeak = topology.computeUnit.matrixFlopsPerNs.bf16;
  }

  override tileComputeNs(tile: Tile, op?: OpKind, _level?: TaskLevel, pipeline?: TilePipeline): number {
    const lds = (pipeline as MegakernelPipeline | undefined)?.ldsStaging;
    const staged = lds !== undefined && tile.unit === 'matrix' && op !== undefined && LDS_STAGED_OPS.has(op) ? ldsStagingNs(tile.flops, lds) : 0;
    return this.mfmaNs(tile) + staged;
  }

  private mfmaNs(tile: Tile): number {
    const eff = (tile.pipeline as CdnaTilePipeline | undefined)?.mfmaEfficiency;
    if (eff === undefined || tile.unit !== 'matrix') return super.tileComputeNs(tile);
    const main = tile.flops / (this.matrixPeak * eff);
    // The base model prices the vector part alone when the matrix FLOPs are zero.
    const vector = super.tileComputeNs({ ...tile, flops: 0 });
    return tile.pipeline?.vectorUnderMatrix ? Math.max(main, vector) : main + vector;
  }
}
