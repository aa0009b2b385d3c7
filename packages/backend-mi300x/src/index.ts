/**
 * @fleet/backend-mi300x — AMD Instinct MI300X (CDNA3) for Fleet, plus the reusable CDNA
 * pieces (coherence scopes, task-level mapping, policies, runtime costs) other CDNA
 * backends build on.
 */
import { API_VERSION, defineBackend } from '@fleet/core';
import { module } from './module.js';

export { topology, MI300X_CLOCK_GHZ } from './topology.js';
export { params } from './cost-params.js';
export { tuning, WORKERS_PER_XCD } from './policies.js';
export { module } from './module.js';
export { kernelLibrary, MI300X_LIBRARY_SPEC } from './kernel-library.js';
export { node, oamMi300x, rcclCdna, XGMI_MI300X_LINK_GBPS_PER_DIRECTION } from './node.js';
export * from './cdna/index.js';

export default defineBackend({ name: 'mi300x', apiVersion: API_VERSION, module });
