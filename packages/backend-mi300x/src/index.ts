/**
 * @fleet/backend-mi300x — AMD Instinct MI300X (CDNA3) for Fleet: its topology, node,
 * calibrated cost parameters, library instance and runtime tuning, bound by @fleet/family-cdna.
 */
import { cdnaBackend } from '@fleet/family-cdna';
import { kernelLibrary } from './mi300x-library.js';
import { params } from './cost-params.js';
import { tuning } from './mi300x-tuning.js';
import { topology } from './topology.js';
import { node } from './node.js';

export { topology, MI300X_CLOCK_GHZ } from './topology.js';
export { params } from './cost-params.js';
export { tuning, WORKERS_PER_XCD } from './mi300x-tuning.js';
export { kernelLibrary, MI300X_LIBRARY_SPEC } from './mi300x-library.js';
export { node, oamMi300x, XGMI_MI300X_LINK_GBPS_PER_DIRECTION } from './node.js';

export default cdnaBackend({ name: 'mi300x', topology, params, kernelLibrary, tuning, node });
