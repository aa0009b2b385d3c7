/**
 * @fleet/family-ampere — what NVIDIA devices of the sm80 programming model without
 * thread-block clusters share in Fleet (Ampere A100, Ada L40S): mma.sync tensor cores fed by
 * cp.async, a device-wide L2, no DSMEM. A device package gives its datasheet spec
 * (`Sm80DeviceSpec`); `ampereBackend` builds the topology, cost model, tuning and kernel
 * library from it. The low-bit kernels (Tilus, Triton) are family-hopper's sm80 module; no
 * kernel on these parts has been measured, so every prediction on them is a prediction.
 */
export type { Sm80DeviceSpec } from './device-spec.js';
export { sm80Topology, SM80_LATENCY_CYCLES } from './topology.js';
export { sm80Params, SM80_MATRIX_EFFICIENCY } from './cost-params.js';
export { sm80KernelLibrary, sm80Device } from './ampere-libraries.js';
export { sm80Tuning } from './ampere-tuning.js';
export { ampereBackend, ampereModule } from './backend.js';
