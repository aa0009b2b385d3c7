/** The H200's node: an HGX H200 8-GPU board, the HGX H100's NVLink 4 / NVSwitch fabric, with NCCL's Hopper constants. */
import type { NodeSpec, NodeTopology } from '@fleet/core';
import { hgxH100, ncclHopper } from '@fleet/backend-h100';

export const hgxH200: NodeTopology = {
  ...hgxH100,
  name: 'hgx-h200-8',
  description: 'NVIDIA HGX H200 8-GPU: 8 × H200 SXM, NVLink 4 through NVSwitch (18 links × 25 GB/s per direction per GPU)',
  device: 'h200',
  sources: { ...hgxH100.sources, '/devices': 'DS NVIDIA HGX H200 datasheet: 8 GPUs per baseboard, 900 GB/s NVLink per GPU (the HGX H100 fabric)' },
};

export const node: NodeSpec = { topology: hgxH200, library: ncclHopper };
