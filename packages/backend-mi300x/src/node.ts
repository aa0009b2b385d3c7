/**
 * The MI300X's node and collective library: an 8-OAM platform whose GPUs form a full xGMI
 * mesh (7 links per GPU, one to each peer), and RCCL's tuning constants (ROCm/rccl
 * src/graph/tuning.cc, 2024-10 snapshot). In a full mesh a group of D GPUs reaches only the
 * D − 1 links to its members: tensor parallelism over 2 GPUs has one link, over 8 all 7.
 */
import type { CollectiveLibrary, NodeSpec, NodeTopology } from '@fleet/core';

/** RCCL on CDNA3/CDNA4 xGMI (the "NVLINK" row of its tables stands for xGMI). */
export const rcclCdna: CollectiveLibrary = {
  name: 'rccl',
  baseLatencyUs: { ring: { LL: 12.0, LL128: 12.0, Simple: 17.0 }, tree: { LL: 12.0, LL128: 12.0, Simple: 17.0 } },
  hopLatencyUs: { ring: { LL: 0.8, LL128: 2.2, Simple: 3.6 }, tree: { LL: 0.8, LL128: 1.4, Simple: 2.5 } },
  linkEfficiency: 0.8,
  channels: 32,
  protocols: ['LL', 'LL128', 'Simple'],
  llFactor: 0.15,
  llMaxBusGBps: 1e5,
  ll128Factor: 0.41,
  ll128MaxPerChannelGBps: 1e5,
  treeFactor: 0.92,
  treeMaxPerChannelGBps: 1e5,
  treeLlFactor: 0.16,
  treeLl128Factor: 0.9,
  custom: { name: 'vllm-custom-allreduce', maxBytes: 8 * 2 ** 20, barrierUs: 3 },
  sources: {
    '/baseLatencyUs': 'RCCL tuning.cc baseLat: Tree and Ring {12, 12, 17} µs (LL, LL128, Simple)',
    '/hopLatencyUs': 'RCCL tuning.cc tuning_model_4 hwLat[xGMI]: Tree {0.8, 1.4, 2.5}, Ring {0.8, 2.2, 3.6} µs; UNC which tuning model the topology detection picks on MI300X/MI350 platforms',
    '/linkEfficiency': 'UNC: 80% of the xGMI peak per link assumed for RCCL Simple (no measurement here)',
    '/channels': 'UNC: 32 channels assumed; RCCL caps no per-channel rate on AMD (1e5 stands for none)',
    '/llFactor': 'RCCL tuning.cc tuning_model_4 bwRatio ring LL 0.15 (AMD path: no llMaxBw cap)',
    '/ll128Factor': 'RCCL tuning.cc tuning_model_4 bwRatio ring LL128 0.41',
    '/treeFactor': 'UNC: NCCL’s 0.92; RCCL skips tree/Simple on gfx94 single-node, tree LL ratio 0.16 (tuning_model_4)',
    '/custom/maxBytes': 'vLLM custom all-reduce on ROCm, 8 MiB as on CUDA (UNC for ROCm builds)',
    '/custom/barrierUs': 'UNC: one flag round trip over xGMI before and after the peer reads',
  },
};

/** DS AMD Instinct MI300X datasheet: 7 Infinity Fabric links, 128 GB/s peak per link (both directions: 64 per direction), 896 GB/s aggregate. */
export const XGMI_MI300X_LINK_GBPS_PER_DIRECTION = 64;

export const oamMi300x: NodeTopology = {
  name: 'oam-mi300x-8',
  description: 'AMD Instinct MI300X platform: 8 OAM GPUs in a full xGMI mesh, 7 links per GPU (one per peer)',
  device: 'mi300x',
  devices: 8,
  interconnect: { kind: 'full-mesh', name: 'xGMI (Infinity Fabric)', linksPerDevice: 7, linkBytesPerNsPerDirection: XGMI_MI300X_LINK_GBPS_PER_DIRECTION, latencyNs: 1500 },
  sources: {
    '/devices': 'DS AMD Instinct MI300X platform: 8 OAM accelerators on one universal baseboard',
    '/interconnect/kind': 'DS AMD: fully connected xGMI mesh, each GPU with a direct link to every other',
    '/interconnect/linksPerDevice': 'DS AMD Instinct MI300X datasheet: 7 Infinity Fabric links',
    '/interconnect/linkBytesPerNsPerDirection': 'DS AMD Instinct MI300X datasheet: 128 GB/s peak per link, bidirectional (896 GB/s over 7 links); 64 GB/s per direction (DER)',
    '/interconnect/latencyNs': 'UNC: ≈1.5 µs for a remote store plus signal over xGMI; no measurement here',
  },
};

export const node: NodeSpec = { topology: oamMi300x, library: rcclCdna };
