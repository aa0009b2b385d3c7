// The machines the schedule tests of @fleet/ops compile for: functional runs check those
// same schedules with numbers, so they share one definition.
export { mi350Backend } from '../../ops/test/helpers.js';
export { hopperLike } from '../../ops/test/hopper-like.js';
