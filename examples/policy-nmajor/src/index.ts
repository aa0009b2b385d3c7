/**
 * @fleet-examples/policy-nmajor — a scheduling policy written outside Fleet, against its
 * public API only: FLEET's chiplet-task megakernel with the linear tiles of each partition in
 * N-major order (consecutive workers take different weight columns, so no weight tile is
 * shared in flight: the contrast the FLEET paper draws with its cooperative M-major order).
 *
 * Installed next to `@fleet/cli`, `fleet compare --policies fleet-nmajor` runs it on every
 * backend whose topology allows chiplet-tasks, and `fleet report` gains a chart comparing the
 * traversals; no Fleet package changes.
 */
import type { ReportSection } from '@fleet/cli';
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
 * A report section: the L2 hit rate of every chiplet-task traversal in the comparison, by
 * batch — where sharing weight tiles in flight pays, and where it stops paying.
 */
export const TRAVERSAL_SECTION: ReportSection = {
  id: 'traversal-l2',
  title: 'L2 hit rate by chiplet-task traversal',
  caption:
    "FLEET's M-major and M-split orders against N-major, per backend and batch: the hit rate a traversal earns by sharing weight tiles among a partition's workers.",
  chart(rows) {
    const values = rows
      .filter((r) => r.status === 'ok' && /^fleet-/.test(r.policy) && r.l2HitRate !== undefined)
      .map((r) => ({ backend: r.backend, policy: r.policy, batch: r.batch, hit: r.l2HitRate }));
    if (values.length === 0) return null;
    return {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      data: { values },
      mark: 'bar',
      encoding: {
        column: { field: 'backend', type: 'nominal', title: null },
        x: { field: 'batch', type: 'ordinal', title: 'batch' },
        xOffset: { field: 'policy', type: 'nominal' },
        y: { field: 'hit', type: 'quantitative', title: 'L2 hit rate', axis: { format: '%' } },
        color: { field: 'policy', type: 'nominal', title: 'policy' },
      },
    };
  },
};

/**
 * `apiVersion` is the plugin API this package was written against — a literal, not core's
 * constant, so an incompatible Fleet refuses it. Keep it equal to `fleet.apiVersion` in package.json.
 */
export default defineExtension({
  name: 'policy-nmajor',
  apiVersion: '2.0',
  module: new ContainerModule(({ bind }) => {
    bind(TOKENS.Policy).toConstantValue(FLEET_NMAJOR);
    bind(TOKENS.ReportSection).toConstantValue(TRAVERSAL_SECTION);
  }),
});
