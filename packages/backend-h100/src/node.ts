/**
 * The H100's node: an HGX H100 8-GPU baseboard on the HGX NVLink 4 / NVSwitch fabric, with
 * NCCL's Hopper constants (both from @fleet/family-hopper).
 */
import type { NodeSpec, NodeTopology } from '@fleet/core';
import { HGX_NVLINK4_INTERCONNECT, HGX_NVLINK4_SOURCES, ncclHopper } from '@fleet/family-hopper';

/** HGX H100 8-GPU: every GPU reaches every other through four NVSwitch chips with all 18 of its links. */
export const hgxH100: NodeTopology = {
  name: 'hgx-h100-8',
  description: 'NVIDIA HGX H100 8-GPU: 8 × H100 SXM5, NVLink 4 through NVSwitch (18 links × 25 GB/s per direction per GPU)',
  device: 'h100',
  devices: 8,
  interconnect: HGX_NVLINK4_INTERCONNECT,
  sources: {
    '/devices': 'DS NVIDIA HGX H100 datasheet: 8 GPUs per baseboard',
    ...HGX_NVLINK4_SOURCES,
  },
};

export const node: NodeSpec = { topology: hgxH100, library: ncclHopper };
