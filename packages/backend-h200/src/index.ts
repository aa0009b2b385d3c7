/**
 * @fleet/backend-h200 — NVIDIA H200 SXM for Fleet: the H100's GH100 die with 141 GB of HBM3e
 * at 4.8 TB/s, on an HGX H200 board.
 */
import { H100_CALIBRATION, hopperBackend, tuning } from '@fleet/family-hopper';
import { node } from './node.js';
import { topology } from './topology.js';

export { topology, H200_HBM_BYTES, H200_HBM_PEAK_BYTES_PER_NS, H200_HBM_ACHIEVABLE_BYTES_PER_NS, H200_HBM_LOADED_LATENCY, H200_L2_BYTES } from './topology.js';
export { node, hgxH200 } from './node.js';

/**
 * No kernel, cluster or launch measurement exists for the H200, so its kernels are priced with
 * the measurements taken on an H100 SXM5 (same GH100 die, clocks and software stack):
 * `H100_CALIBRATION`, named here so the borrowing is explicit. Its own measurements (HBM
 * bandwidth and loaded latency, L2 size) are in its topology; the family carries the GEMMs'
 * DRAM in-flight to that memory (`kernelLibraryOn`).
 */
export default hopperBackend({ name: 'h200', topology, tuning, node, calibration: H100_CALIBRATION });
