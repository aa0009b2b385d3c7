/** The H200's node: an HGX H200 8-GPU board on the HGX NVLink 4 / NVSwitch fabric, with NCCL's Hopper constants (both from @fleet/family-hopper). */
import type { NodeSpec, NodeTopology } from '@fleet/core';
import { HGX_NVLINK4_INTERCONNECT, HGX_NVLINK4_SOURCES, ncclHopper } from '@fleet/family-hopper';

export const hgxH200: NodeTopology = {
  name: 'hgx-h200-8',
  description: 'NVIDIA HGX H200 8-GPU: 8 × H200 SXM, NVLink 4 through NVSwitch (18 links × 25 GB/s per direction per GPU)',
  device: 'h200',
  devices: 8,
  interconnect: HGX_NVLINK4_INTERCONNECT,
  sources: {
    '/devices': 'DS NVIDIA HGX H200 datasheet: 8 GPUs per baseboard, 900 GB/s NVLink per GPU (the HGX H100 fabric)',
    ...HGX_NVLINK4_SOURCES,
  },
};

export const node: NodeSpec = { topology: hgxH200, library: ncclHopper };
