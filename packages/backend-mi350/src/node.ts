/**
 * The MI350X's node: 8 OAM GPUs in a full xGMI mesh (7 links per GPU), with RCCL's CDNA
 * tuning constants (@fleet/family-cdna).
 */
import type { NodeSpec, NodeTopology } from '@fleet/core';
import { cdnaOamNode, rcclCdna } from '@fleet/family-cdna';

/** DS (hardware.md S26/S27): 7 external Infinity Fabric links of 153.6 GB/s each (both directions; 1075 GB/s aggregate): 76.8 per direction. */
export const XGMI_MI350_LINK_GBPS_PER_DIRECTION = 76.8;

export const oamMi350: NodeTopology = cdnaOamNode({
  name: 'oam-mi350-8',
  description: 'AMD Instinct MI350X platform: 8 OAM GPUs in a full xGMI mesh, 7 links per GPU (one per peer)',
  device: 'mi350',
  linkName: 'xGMI (Infinity Fabric 4)',
  linkBytesPerNsPerDirection: XGMI_MI350_LINK_GBPS_PER_DIRECTION,
  latencyNs: 1500,
  sources: {
    '/devices': 'DS AMD Instinct MI350 series platform: 8 OAM accelerators per baseboard',
    '/interconnect/kind': 'DS AMD: fully connected xGMI mesh, as on MI300X',
    '/interconnect/linksPerDevice': 'DS hardware.md S26/S27: 7 external Infinity Fabric links',
    '/interconnect/linkBytesPerNsPerDirection':
      'DS hardware.md S26/S27: 153.6 GB/s per link; UNC that this is the bidirectional figure (7 × 153.6 = 1075 GB/s, AMD’s aggregate), 76.8 per direction',
    '/interconnect/latencyNs': 'UNC: as MI300X, ≈1.5 µs; no measurement here',
  },
});

export const node: NodeSpec = { topology: oamMi350, library: rcclCdna };
