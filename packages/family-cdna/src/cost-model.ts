/**
 * Core's roofline cost model, plus one CDNA refinement: a library kernel's tiles may carry the
 * MFMA issue efficiency their own main loop reaches (`CdnaTilePipeline.mfmaEfficiency`, from a
 * published measurement of that kernel), which then replaces the backend's default matrix
 * efficiency for those tiles only. Megakernel and default tiles keep the default.
 */
import { RooflineCostModel, type RooflineParams, type Tile, type Topology } from '@fleet/core';
import type { CdnaTilePipeline } from './cdna-libraries.js';

export class CdnaCostModel extends RooflineCostModel {
  private readonly matrixPeak: number;

  constructor(topology: Topology, params: RooflineParams) {
    super(topology, params);
    this.matrixPeak = topology.computeUnit.matrixFlopsPerNs.bf16;
  }

  override tileComputeNs(tile: Tile): number {
    const eff = (tile.pipeline as CdnaTilePipeline | undefined)?.mfmaEfficiency;
    if (eff === undefined || tile.unit !== 'matrix') return super.tileComputeNs(tile);
    const main = tile.flops / (this.matrixPeak * eff);
    // The base model prices the vector part alone when the matrix FLOPs are zero.
    const vector = super.tileComputeNs({ ...tile, flops: 0 });
    return tile.pipeline?.vectorUnderMatrix ? Math.max(main, vector) : main + vector;
  }
}
