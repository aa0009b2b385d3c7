import type { OpKind } from '../graph/op-graph.js';
import type { Tile } from '../graph/task-graph.js';
import type { CostModel, HardwareDispatch } from '../plugin/contract.js';
import type { TilePipeline } from '../compute/tile-pipeline.js';
import type { Topology } from '../topology/topology.js';

/**
 * Parameters of the first-order cost model; backends supply them with their provenance. The
 * runtime costs, dispatch and pipelines are `CostModel`'s own fields, passed through.
 */
export interface RooflineParams extends Pick<CostModel, 'dispatchNs' | 'fetchNs' | 'launch' | 'endOfKernel' | 'hardwareDispatch' | 'pipelines'> {
  /** Fraction of the per-CU matrix peak a GEMV/GEMM tile reaches, 0..1. */
  matrixEfficiency: number;
  /** Fraction of the per-CU vector peak an elementwise tile reaches, 0..1. */
  vectorEfficiency: number;
  /** Fixed per-tile cost (pipeline fill, epilogue), ns; `default` for kinds not listed. */
  tileOverheadNs: Partial<Record<OpKind, number>> & { default: number };
}

/**
 * A vendor-neutral tile cost model: a tile's compute time is its FLOPs (padded to the matrix
 * instruction by the decomposition) over the CU's matrix peak times the issue efficiency the
 * backend measured. Its memory time is not here — the simulated memory system supplies it,
 * bounded by the tile's pipeline (bytes in flight) — and the runtime overlaps the two as far
 * as the pipeline's contexts allow.
 */
export class RooflineCostModel implements CostModel {
  readonly dispatchNs: number;
  readonly fetchNs: number;
  readonly launch: { eagerNs: number; graphNodeNs: number; graphLaunchNs?: number };
  readonly endOfKernel: { barrierNs: number; writeBackL2: boolean };
  readonly hardwareDispatch: HardwareDispatch;
  readonly pipelines?: { persistent: TilePipeline; kernel: TilePipeline };
  private readonly matrixRate: number;
  private readonly vectorRate: number;

  constructor(
    topology: Topology,
    private readonly params: RooflineParams,
  ) {
    this.dispatchNs = params.dispatchNs;
    this.fetchNs = params.fetchNs;
    this.launch = params.launch;
    this.endOfKernel = params.endOfKernel;
    this.hardwareDispatch = params.hardwareDispatch;
    if (params.pipelines) this.pipelines = params.pipelines;
    this.matrixRate = topology.computeUnit.matrixFlopsPerNs.bf16 * params.matrixEfficiency;
    this.vectorRate = topology.computeUnit.vectorFlopsPerNs * params.vectorEfficiency;
  }

  tileComputeNs(tile: Tile): number {
    const main = tile.flops / (tile.unit === 'matrix' ? this.matrixRate : this.vectorRate);
    const vector = (tile.vectorFlops ?? 0) / this.vectorRate;
    return tile.pipeline?.vectorUnderMatrix ? Math.max(main, vector) : main + vector;
  }

  tileOverheadNs(op: OpKind): number {
    return this.params.tileOverheadNs[op] ?? this.params.tileOverheadNs.default;
  }
}
