/**
 * @fleet/backend-mi350 — AMD Instinct MI350X (CDNA4) for Fleet, built on the CDNA pieces of
 * `@fleet/backend-mi300x`.
 */
import { API_VERSION, defineBackend } from '@fleet/core';
import { module } from './module.js';

export { topology, MI350X_CLOCK_GHZ } from './topology.js';
export { params } from './cost-params.js';
export { tuning, WORKERS_PER_XCD } from './policies.js';
export { module } from './module.js';
export { kernelLibrary, MI350_LIBRARY_SPEC, HIPBLASLT_MFMA_EFFICIENCY, HIPBLASLT_8192_TFLOPS } from './kernel-library.js';
export { node, oamMi350, XGMI_MI350_LINK_GBPS_PER_DIRECTION } from './node.js';

export default defineBackend({ name: 'mi350', apiVersion: API_VERSION, module });
export { fleetPaper, FLEET_PAPER_SOURCE, type FleetPaperDataset, type FleetPolicy } from './validation/fleet-paper.js';
