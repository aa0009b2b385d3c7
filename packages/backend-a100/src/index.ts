/**
 * @fleet/backend-a100 — NVIDIA A100 SXM4 80 GB (Ampere) for Fleet, from its datasheet
 * (@fleet/family-ampere builds it). No kernel on it is measured: its numbers are predictions.
 */
import { ampereBackend, sm80Topology } from '@fleet/family-ampere';
import { A100_SXM4_80GB } from './spec.js';

export { A100_SXM4_80GB } from './spec.js';
export const topology = sm80Topology(A100_SXM4_80GB);

export default ampereBackend(A100_SXM4_80GB);
