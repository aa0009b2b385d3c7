/**
 * @fleet/backend-l40s — NVIDIA L40S (Ada Lovelace) for Fleet, from its datasheet
 * (@fleet/family-ampere builds it). No kernel on it is measured: its numbers are predictions.
 * A PCIe card without NVLink: no node is modelled, so tensor parallelism is not offered.
 */
import { ampereBackend, sm80Topology } from '@fleet/family-ampere';
import { L40S } from './spec.js';

export { L40S } from './spec.js';
export const topology = sm80Topology(L40S);

export default ampereBackend(L40S);
