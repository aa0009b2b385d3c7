/**
 * @fleet/backend-mi350 — AMD Instinct MI350X (CDNA4) for Fleet: its topology, node, calibrated
 * cost parameters, library instance and runtime tuning, bound by @fleet/family-cdna.
 */
import { cdnaBackend } from '@fleet/family-cdna';
import { kernelLibrary } from './mi350-library.js';
import { params } from './cost-params.js';
import { tuning } from './mi350-tuning.js';
import { topology } from './topology.js';
import { node } from './node.js';

export { topology, MI350X_CLOCK_GHZ } from './topology.js';
export { params } from './cost-params.js';
export { tuning, WORKERS_PER_XCD } from './mi350-tuning.js';
export { kernelLibrary, MI350_LIBRARY_SPEC, HIPBLASLT_MFMA_EFFICIENCY, HIPBLASLT_8192_TFLOPS } from './mi350-library.js';
export { node, oamMi350, XGMI_MI350_LINK_GBPS_PER_DIRECTION } from './node.js';

export default cdnaBackend({ name: 'mi350', topology, params, kernelLibrary, tuning, node });
