/**
 * @fleet-examples/policy-nmajor — a scheduling policy written outside Fleet, against its
 * public API only: FLEET's chiplet-task megakernel with the linear tiles of each partition in
 * N-major order (consecutive workers take different weight columns, so no weight tile is
 * shared in flight: the contrast the FLEET paper draws with its cooperative M-major order).
 *
 * Installed next to `@fleet/cli`, `fleet compare --policies fleet-nmajor` runs it on every
 * backend whose topology allows chiplet-tasks; no Fleet package changes.
 */
import { ContainerModule, defineExtension, TOKENS } from '@fleet/core';
import { chipletIsPartition, chipletTaskLowering, fleetSchedule, megakernelPolicy, type Policy } from '@fleet/ops';

/** The policy: FLEET's schedule and lowering with the N-major traversal; runs where FLEET runs. */
export const FLEET_NMAJOR: Policy = megakernelPolicy(
  'fleet-nmajor',
  "persistent, chiplet-tasks in N-major order (no weight tile shared in flight), FLEET's cache policies and counting",
  fleetSchedule('n-major'),
  chipletTaskLowering,
  chipletIsPartition,
);

/**
 * `apiVersion` is the plugin API this package was written against — a literal, not core's
 * constant, so an incompatible Fleet refuses it. Keep it equal to `fleet.apiVersion` in package.json.
 */
export default defineExtension({
  name: 'policy-nmajor',
  apiVersion: '2.0',
  module: new ContainerModule(({ bind }) => {
    bind(TOKENS.Policy).toConstantValue(FLEET_NMAJOR);
  }),
});
