/**
 * Cost-model parameters of an sm80-model device. No kernel, launch or atomic measurement exists
 * for these parts: what the H100 measured of the software stack (launch gaps, per-tile
 * overhead, bytes an elementwise kernel keeps in flight) is taken over and named as such.
 */
import type { RooflineParams, Topology } from '@fleet/core';
import { BARRIER_NS, BYTES_IN_FLIGHT_PER_SM, GRAPH_GAP_NS, params as hopperParams, TILE_OVERHEAD_NS, VECTOR_EFFICIENCY } from '@fleet/family-hopper';

/**
 * UNC: the share of the dense mma.sync peak a large cuBLAS/CUTLASS sm80 GEMM issues. Not
 * measured here; taken as 0.8 (the H100's wgmma GEMM reached 0.79 of its peak in our sweep).
 */
export const SM80_MATRIX_EFFICIENCY = 0.8;

export function sm80Params(topology: Topology): RooflineParams {
  void topology;
  return {
    matrixEfficiency: SM80_MATRIX_EFFICIENCY,
    // UNC: as on the H100 (family-hopper cost-params).
    vectorEfficiency: VECTOR_EFFICIENCY,
    tileOverheadNs: { default: TILE_OVERHEAD_NS },
    // CAL on an H100, taken over (UNC here): MPK's dispatch and fetch, PyTorch's launch costs.
    dispatchNs: hopperParams.dispatchNs,
    fetchNs: hopperParams.fetchNs,
    launch: { eagerNs: hopperParams.launch.eagerNs, graphNodeNs: GRAPH_GAP_NS - BARRIER_NS },
    endOfKernel: { barrierNs: BARRIER_NS, writeBackL2: false },
    hardwareDispatch: 'greedy',
    pipelines: { kernel: { inFlightBytes: BYTES_IN_FLIGHT_PER_SM, overlap: 4 }, persistent: { inFlightBytes: BYTES_IN_FLIGHT_PER_SM, overlap: 4 } },
  };
}
