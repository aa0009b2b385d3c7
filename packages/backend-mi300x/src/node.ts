/**
 * The MI300X's node and collective library: an 8-OAM platform whose GPUs form a full xGMI
 * mesh (7 links per GPU, one to each peer), with RCCL (its CDNA tuning constants come from
 * @fleet/family-cdna). In a full mesh a group of D GPUs reaches only the
 * D − 1 links to its members: tensor parallelism over 2 GPUs has one link, over 8 all 7.
 */
import type { NodeSpec, NodeTopology } from '@fleet/core';
import { cdnaOamNode, rcclCdna } from '@fleet/family-cdna';

/** DS AMD Instinct MI300X datasheet: 7 Infinity Fabric links, 128 GB/s peak per link (both directions: 64 per direction), 896 GB/s aggregate. */
export const XGMI_MI300X_LINK_GBPS_PER_DIRECTION = 64;

export const oamMi300x: NodeTopology = cdnaOamNode({
  name: 'oam-mi300x-8',
  description: 'AMD Instinct MI300X platform: 8 OAM GPUs in a full xGMI mesh, 7 links per GPU (one per peer)',
  device: 'mi300x',
  linkName: 'xGMI (Infinity Fabric)',
  linkBytesPerNsPerDirection: XGMI_MI300X_LINK_GBPS_PER_DIRECTION,
  latencyNs: 1500,
  sources: {
    '/devices': 'DS AMD Instinct MI300X platform: 8 OAM accelerators on one universal baseboard',
    '/interconnect/kind': 'DS AMD: fully connected xGMI mesh, each GPU with a direct link to every other',
    '/interconnect/linksPerDevice': 'DS AMD Instinct MI300X datasheet: 7 Infinity Fabric links',
    '/interconnect/linkBytesPerNsPerDirection':
      'DS AMD Instinct MI300X datasheet: 128 GB/s peak per link, bidirectional (896 GB/s over 7 links); 64 GB/s per direction (DER)',
    '/interconnect/latencyNs': 'UNC: ≈1.5 µs for a remote store plus signal over xGMI; no measurement here',
  },
});

export const node: NodeSpec = { topology: oamMi300x, library: rcclCdna };
