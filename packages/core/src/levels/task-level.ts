/**
 * The four task levels of Fleet's execution model. Each names the memory scope a task
 * coordinates through; a backend maps them onto its hardware (see `LevelMapping`).
 *
 * - `wavefront`: one wavefront/warp — registers, LDS.
 * - `cu`: one workgroup on one CU/SM — LDS, L2.
 * - `chiplet`: all workers of one partition (an XCD on CDNA, a thread-block cluster on Hopper).
 * - `device`: one chiplet-task per partition, barrier semantics.
 */
export const TASK_LEVELS = ['wavefront', 'cu', 'chiplet', 'device'] as const;
export type TaskLevel = (typeof TASK_LEVELS)[number];

export function isTaskLevel(x: unknown): x is TaskLevel {
  return typeof x === 'string' && (TASK_LEVELS as readonly string[]).includes(x);
}
