/**
 * RCCL's tuning constants on CDNA3/CDNA4 xGMI (ROCm/rccl src/graph/tuning.cc, 2024-10
 * snapshot): the collective library of every CDNA node.
 */
import type { CollectiveLibrary } from '@fleet/core';

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
  runtime: {
    channels: 64,
    threads: { LL: 256, LL128: 256, Simple: 256 },
    threadThresholdBytes: { LL: 8, LL128: 8, Simple: 64 },
    simpleChunkBytes: (4 * (4 * 2 ** 20)) / 8,
    simpleSliceBytes: (2 * (4 * 2 ** 20)) / 8,
  },
  custom: { name: 'vllm-custom-allreduce', maxBytes: 8 * 2 ** 20, barrierUs: 3 },
  sources: {
    '/baseLatencyUs': 'RCCL tuning.cc baseLat: Tree and Ring {12, 12, 17} µs (LL, LL128, Simple)',
    '/hopLatencyUs':
      'RCCL tuning.cc tuning_model_4 hwLat[xGMI]: Tree {0.8, 1.4, 2.5}, Ring {0.8, 2.2, 3.6} µs; UNC which tuning model the topology detection picks on MI300X/MI350 platforms',
    '/linkEfficiency': 'UNC: 80% of the xGMI peak per link assumed for RCCL Simple (no measurement here)',
    '/channels': 'UNC: 32 channels assumed; RCCL caps no per-channel rate on AMD (1e5 stands for none)',
    '/llFactor': 'RCCL tuning.cc tuning_model_4 bwRatio ring LL 0.15 (AMD path: no llMaxBw cap)',
    '/ll128Factor': 'RCCL tuning.cc tuning_model_4 bwRatio ring LL128 0.41',
    '/treeFactor': 'UNC: NCCL’s 0.92; RCCL skips tree/Simple on gfx94 single-node, tree LL ratio 0.16 (tuning_model_4)',
    '/runtime/channels':
      'UNC: RCCL connect.cc duplicates the graph channels once, capped at 64 on gfx94 with intra-node rings (MAXCHANNELS 128); the 32 graph channels assumed above give 64',
    '/runtime/threads': 'RCCL device.h: NCCL_MAX_NTHREADS 256 for LL, LL128 and Simple (one 256-thread workgroup per channel)',
    '/runtime/threadThresholdBytes': 'RCCL comm.h: NCCL_LL_THREAD_THRESHOLD 8, NCCL_LL128_THREAD_THRESHOLD 8, NCCL_SIMPLE_THREAD_THRESHOLD 64 (as NCCL)',
    '/runtime/simpleChunkBytes': 'RCCL init.cc DEFAULT_BUFFSIZE 4 MiB / NCCL_STEPS 8 × ALLREDUCE_CHUNKSTEPS 4 = 2 MiB',
    '/runtime/simpleSliceBytes': 'RCCL: 512 KiB step × ALLREDUCE_SLICESTEPS 2 = 1 MiB',
    '/custom/maxBytes': 'vLLM custom all-reduce on ROCm, 8 MiB as on CUDA (UNC for ROCm builds)',
    '/custom/barrierUs': 'UNC: one flag round trip over xGMI before and after the peer reads',
  },
};
