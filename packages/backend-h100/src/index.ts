/**
 * @fleet/backend-h100 — NVIDIA H100 SXM5 (Hopper) for Fleet: the family's reference part, on an
 * HGX H100 board, priced with its own measurements (@fleet/family-hopper's `H100_CALIBRATION`).
 */
import { H100_CALIBRATION, hopperBackend, tuning } from '@fleet/family-hopper';
import { node } from './node.js';
import { topology } from './topology.js';

export { topology } from './topology.js';
export { node, hgxH100 } from './node.js';

export default hopperBackend({ name: 'h100', topology, tuning, node, calibration: H100_CALIBRATION });
