/** How an sm80 device runs the policies' runtimes: MPK's layout and PyTorch's kernels; no clusters. */
import type { BackendTuning } from '@fleet/core';
import { PYTORCH_KERNELS } from '@fleet/family-hopper';
import type { Sm80DeviceSpec } from './device-spec.js';

export function sm80Tuning(spec: Sm80DeviceSpec): BackendTuning {
  return {
    persistent: { workersPerPartition: spec.mirage.workersPerPartition, globalSchedulers: spec.mirage.globalSchedulers },
    // PyTorch's kernel granularity is the framework's (measured under PyTorch 2.11 on an H100), the same on these parts.
    kernels: PYTORCH_KERNELS,
  };
}
