/**
 * RCCL on CDNA3 xGMI as ROCm/rccl (2024-10 snapshot) runs it on an 8-GPU MI300X platform: the
 * collective library of every CDNA node. Where RCCL departs from NCCL it says so below:
 * - the tuning model is a table chosen by the platform's topology model (rome_models.cc): the
 *   8-GPU full-xGMI-mesh platforms (rome_model_79/81/84) carry `tuning=5`;
 * - on AMD the bus bandwidth is the graph's times that model's per-protocol ratio, with none of
 *   NCCL's LL cap, LL128 0.92 or tree 0.92 and 1/3.8 refinements (tuning.cc, the HIP branch);
 * - LL128 is off by default except on gfx90a with a tuned table, and tree/Simple is skipped
 *   on gfx94 within one node: MI300X runs ring LL, tree LL or ring Simple;
 * - a channel keeps its 256 threads however small the message (enqueue.cc: no halving on AMD).
 * The MI350 (gfx950) postdates this snapshot and shares it (UNC).
 */
import type { CollectiveLibrary } from '@fleet/core';

/** RCCL's xGMI speed for gfx94 (topo.h `GFX94X_XGMI_WIDTH`), GB/s per link: what its channels reach. */
export const RCCL_GFX94_XGMI_GBPS = 48;
/** The MI300X's xGMI peak per link and direction (datasheet 128 GB/s bidirectional). */
const XGMI_PEAK_GBPS_PER_DIRECTION = 64;
/** Rings in RCCL's topology model of an 8-GPU full-mesh MI300X platform without NICs (rome_model_79's ringBase). */
export const RCCL_MI300X_GRAPH_CHANNELS = 28;

/** RCCL on CDNA3/CDNA4 xGMI (the "NVLINK" row of its tables stands for xGMI). */
export const rcclCdna: CollectiveLibrary = {
  name: 'rccl',
  baseLatencyUs: { ring: { LL: 12.0, LL128: 12.0, Simple: 17.0 }, tree: { LL: 12.0, LL128: 12.0, Simple: 17.0 } },
  hopLatencyUs: { ring: { LL: 0.8, LL128: 0, Simple: 2.1 }, tree: { LL: 0.9, LL128: 0, Simple: 2.3 } },
  linkEfficiency: RCCL_GFX94_XGMI_GBPS / XGMI_PEAK_GBPS_PER_DIRECTION,
  channels: RCCL_MI300X_GRAPH_CHANNELS,
  protocols: ['LL', 'Simple'],
  llFactor: 0.08,
  llMaxBusGBps: 1e5,
  ll128Factor: 1,
  ll128MaxPerChannelGBps: 1e5,
  treeFactor: 1,
  treeMaxPerChannelGBps: 1e5,
  treeLlFactor: 0.06,
  treeLl128Factor: 1,
  treeCorrection: {
    LL: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 1.0, 1.0, 0.6, 1.0, 0.9, 1.0, 1.0, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
    LL128: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    Simple: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.7, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.8],
  },
  runtime: {
    channels: 2 * RCCL_MI300X_GRAPH_CHANNELS,
    threads: { LL: 256, LL128: 256, Simple: 256 },
    threadThresholdBytes: { LL: 8, LL128: 8, Simple: 64 },
    halveThreads: false,
    simpleChunkBytes: (4 * (4 * 2 ** 20)) / 8,
    simpleSliceBytes: (2 * (4 * 2 ** 20)) / 8,
  },
  custom: { name: 'vllm-custom-allreduce', maxBytes: 8 * 2 ** 20, barrierUs: 3 },
  sources: {
    '/baseLatencyUs': 'RCCL tuning.cc baseLat: Tree and Ring {12, 12, 17} µs (LL, LL128, Simple)',
    '/hopLatencyUs':
      'RCCL tuning.cc tuning_model_5 hwLat[NVLINK = xGMI]: Tree {0.9, 0, 2.3}, Ring {0.8, 0, 2.1} µs; rome_models.cc gives tuning=5 to the 8-GPU full-mesh platforms (UNC: a platform matching no model gets tuning_model_0)',
    '/linkEfficiency': 'RCCL topo.h GFX94X_XGMI_WIDTH 48 GB/s per xGMI link ÷ 64 GB/s MI300X peak per direction',
    '/channels': 'RCCL rome_models.cc rome_model_79 (8 MI300X, 7 xGMI links each, no NIC): 28 rings in ringBase; UNC for platforms with NICs (16 or 64)',
    '/protocols':
      'RCCL tuning.cc: LL128 on by default only on gfx90a with ll128Enabled (ENABLE_LL128 builds); tuning_model_5 bwRatio LL128 0 — MI300X runs LL and Simple',
    '/llFactor': 'RCCL tuning.cc tuning_model_5 bwRatio ring LL 0.08 (AMD branch: no llMaxBw cap, no × 0.5)',
    '/ll128Factor': 'unused: LL128 is off on gfx94 (1 stands for no ratio)',
    '/treeFactor': 'RCCL tuning.cc AMD branch: no tree × 0.92 and no per-channel cap (1, 1e5 stand for none); tree/Simple skipped on gfx94 in one node',
    '/treeLlFactor': 'RCCL tuning.cc tuning_model_5 bwRatio tree LL 0.06 (AMD branch: no × 1/3.8)',
    '/treeCorrection':
      'RCCL tuning.cc tuning_model_5 treeCorrectionFactor by log2(bytes/64), 27 entries (RCCL clamps to the last beyond; Fleet takes 1 beyond 2^32·64 B)',
    '/runtime/channels':
      'DER RCCL init.cc/connect.cc: MI300X with 8 ranks keeps nc = 2, so the 28 graph rings are duplicated once (56; cap 64 with intra-node rings)',
    '/runtime/threads': 'RCCL device.h: NCCL_MAX_NTHREADS 256 for LL, LL128 and Simple (one 256-thread workgroup per channel)',
    '/runtime/threadThresholdBytes':
      'RCCL comm.h: NCCL_LL_THREAD_THRESHOLD 8 (ring: × nRanks), NCCL_LL128_THREAD_THRESHOLD 8, NCCL_SIMPLE_THREAD_THRESHOLD 64 (as NCCL)',
    '/runtime/halveThreads': 'RCCL enqueue.cc: on AMD the thread count is not reduced for small messages',
    '/runtime/simpleChunkBytes': 'RCCL init.cc DEFAULT_BUFFSIZE 4 MiB / NCCL_STEPS 8 × ALLREDUCE_CHUNKSTEPS 4 = 2 MiB',
    '/runtime/simpleSliceBytes': 'RCCL: 512 KiB step × ALLREDUCE_SLICESTEPS 2 = 1 MiB',
    '/custom/maxBytes': 'vLLM custom all-reduce on ROCm, 8 MiB as on CUDA (UNC for ROCm builds)',
    '/custom/barrierUs': 'UNC: one flag round trip over xGMI before and after the peer reads',
  },
};
