/** @fleet-examples/backend-b200 — NVIDIA B200 (two dies) for Fleet, written against @fleet/core's public API only. */
import { defineBackend } from '@fleet/core';
import { module } from './module.js';

export { topology, B200_CLOCK_GHZ, B200_LATENCY_NS, SMS_PER_DIE } from './topology.js';
export { params } from './cost-params.js';
export { tuning, MIRAGE_WORKERS_PER_DIE, MIRAGE_SCHEDULERS, FLEET_WORKERS_PER_DIE } from './tuning.js';
export { module } from './module.js';

/**
 * `apiVersion` is the plugin API this package was written against — a literal, not core's
 * `API_VERSION`, so a Fleet too old (or a major too new) for it refuses it with a clear error.
 * Keep it equal to `fleet.apiVersion` in package.json.
 */
export default defineBackend({ name: 'b200', apiVersion: '2.0', module });
