/** @fleet/backend-h100 — NVIDIA H100 SXM5 (Hopper) for Fleet: GPCs, clusters, partitioned L2. */
import { API_VERSION, defineBackend } from '@fleet/core';
import { module } from './module.js';

export { topology, H100_CLOCK_GHZ, H100_LATENCY_CYCLES } from './topology.js';
export { params } from './cost-params.js';
export { policies, MIRAGE_WORKERS_PER_GPC, MIRAGE_SCHEDULERS } from './policies.js';
export { module } from './module.js';

export default defineBackend({ name: 'h100', apiVersion: API_VERSION, module });
