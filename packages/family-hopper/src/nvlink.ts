/**
 * The fabric and collective library of an HGX Hopper board (H100, H200): NVLink 4 through
 * NVSwitch, and NCCL's tuning constants for Hopper on NVLink. The constants are facts read
 * from NVIDIA/nccl (v2.28.9, the version our two-H100 measurement ran): src/graph/tuning.cc,
 * topo.h, search.cc, connect.cc, enqueue.cc and include/{comm,device,collectives}.h; the custom
 * all-reduce is vLLM's (custom_all_reduce.py). The tuning model's constants are NCCL's; the
 * run's LL/LL128 rates and Simple's fixed extra are set by four rows of our two-H100 sweep
 * (NCCL_H100X2_CALIBRATION, labelled calibration in the h100-nccl suite); the rest of that
 * sweep and the two- and four-H200 sweeps (h200-nccl) validate them.
 */
import type { CollectiveLibrary, NodeTopology } from '@fleet/core';
import { GRAPH_GAP_NS, GRAPH_LAUNCH_NS } from './cost-params.js';

/** NVLink 4: 18 links per GPU, 25 GB/s per link and direction (450 GB/s per GPU per direction, 900 GB/s both ways). */
export const NVLINK4_LINKS = 18;
export const NVLINK4_LINK_GBPS = 25;
/** NCCL's per-link NVLink bandwidth for sm_90 (`SM90_NVLINK_BW` in topo.h), GB/s: what its channels reach. */
export const NCCL_SM90_NVLINK_GBPS = 20.6;

/**
 * The ring graph NCCL's search finds on an NVSwitch H100 (search.cc, sm90SpeedArrayIntra
 * {60, 50, 40, 30, 24, …} GB/s per channel against 18 × 20.6 = 370.8 GB/s of NVLink): 6
 * channels at 60 GB/s, which ncclTopoDupChannels turns into 12 at 30 (bwIntra ≥ 50); connect.cc
 * then duplicates the communicator's channels once more, to 24.
 */
export const NCCL_H100_GRAPH_CHANNELS = 12;
export const NCCL_H100_COMM_CHANNELS = 2 * NCCL_H100_GRAPH_CHANNELS;

/** One calibration row: a protocol forced with NCCL_PROTO, the message, the measured per-call time (µs, its share of the graph included). */
export interface NcclCalibrationRow {
  proto: 'LL' | 'LL128' | 'Simple';
  bytes: number;
  us: number;
}

/**
 * CAL ours: the rows of our two-H100 sweep (bench/device/nccl.py, bench/results/h100x2-nccl/nccl.json,
 * NCCL 2.28.9, all-reduce bf16 in one CUDA graph) that set the run's rates below; the h100-nccl
 * suite marks them calibration.
 */
export const NCCL_H100X2_CALIBRATION = {
  ll8MiB: { proto: 'LL', bytes: 8 * 2 ** 20, us: 72.117 },
  ll64MiB: { proto: 'LL', bytes: 64 * 2 ** 20, us: 604.979 },
  ll128x64MiB: { proto: 'LL128', bytes: 64 * 2 ** 20, us: 281.825 },
  simple8KiB: { proto: 'Simple', bytes: 8192, us: 21.574 },
} as const satisfies Record<string, NcclCalibrationRow>;

/** Calls in each graph bench/device/nccl.py replays (time per call = replay / calls). */
export const NCCL_SWEEP_GRAPH_CALLS = 20;
/**
 * What the graph adds to each call of the sweep beyond the collective kernel, µs: one kernel
 * boundary (GRAPH_GAP_NS) and a twentieth of the graph's own launch (GRAPH_LAUNCH_NS).
 */
const GRAPH_CALL_US = (GRAPH_GAP_NS + GRAPH_LAUNCH_NS / NCCL_SWEEP_GRAPH_CALLS) / 1000;
/** The H100's and H200's L2: 50 MB, as two halves; an SM's reads are replicated into its near half (reference topology). */
const HOPPER_L2_HALF_BYTES = 52428800 / 2;

/**
 * Ring LL/LL128 rate from one calibration row on two GPUs: the loop's three primitives (send,
 * receive-reduce-send, receive) each walk bytes / 2, i.e. 1.5 × bytes of primitive work, after the
 * tuning model's latency (base + 2 hops) and the call's share of the graph. Data bytes per ns.
 */
function twoGpuRingRate(row: NcclCalibrationRow, baseUs: number, hopUs: number): number {
  return (1.5 * row.bytes) / ((row.us - GRAPH_CALL_US - baseUs - 2 * hopUs) * 1000);
}

/** NCCL (Hopper, one node, NVLink): what its tuning model states and how it runs the choice. */
export const ncclHopper: CollectiveLibrary = {
  name: 'nccl',
  baseLatencyUs: { ring: { LL: 6.6, LL128: 14.0, Simple: 8.4 }, tree: { LL: 6.8, LL128: 14.0, Simple: 8.4 } },
  hopLatencyUs: { ring: { LL: 0.6, LL128: 1.9, Simple: 3.4 }, tree: { LL: 0.6, LL128: 1.25, Simple: 4.0 } },
  linkEfficiency: NCCL_SM90_NVLINK_GBPS / NVLINK4_LINK_GBPS,
  channels: NCCL_H100_GRAPH_CHANNELS,
  protocols: ['LL', 'LL128', 'Simple'],
  llFactor: 0.5,
  llMaxBusGBps: 141.0,
  ll128Factor: 0.92,
  ll128MaxPerChannelGBps: 36.7,
  treeFactor: 0.92,
  treeMaxPerChannelGBps: 38.7,
  treeLlFactor: 1 / 3.8,
  treeLl128Factor: 7 / 9,
  treeCorrection: {
    LL: [1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0],
    LL128: [1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9, 1.0, 1.0, 1.0],
    Simple: [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9, 0.9],
  },
  runtime: {
    channels: NCCL_H100_COMM_CHANNELS,
    threads: { LL: 512, LL128: 640, Simple: 512 },
    threadThresholdBytes: { LL: 8, LL128: 8, Simple: 64 },
    halveThreads: true,
    simpleChunkBytes: (4 * (4 * 2 ** 20)) / 8,
    simpleSliceBytes: (2 * (4 * 2 ** 20)) / 8,
    opRate: {
      LL: {
        resident: twoGpuRingRate(NCCL_H100X2_CALIBRATION.ll8MiB, 6.6, 0.6),
        streamed: twoGpuRingRate(NCCL_H100X2_CALIBRATION.ll64MiB, 6.6, 0.6),
      },
      LL128: {
        resident: twoGpuRingRate(NCCL_H100X2_CALIBRATION.ll128x64MiB, 14.0, 1.9),
        streamed: twoGpuRingRate(NCCL_H100X2_CALIBRATION.ll128x64MiB, 14.0, 1.9),
      },
    },
    residentBytes: HOPPER_L2_HALF_BYTES,
    // The 8 KiB Simple call less the model's own: its share of the graph, 8.4 + 2 × 3.4 µs, 8 KiB on one of the
    // 24 channels (370.8 / 24 GB/s) and its unoverlapped slice (the whole 4 KiB chunk: slices are
    // at least 1 MiB / 32).
    ringExtraUs: {
      Simple:
        NCCL_H100X2_CALIBRATION.simple8KiB.us -
        GRAPH_CALL_US -
        (8.4 + 2 * 3.4) -
        (8192 + 4096) / ((1000 * NVLINK4_LINKS * NCCL_SM90_NVLINK_GBPS) / NCCL_H100_COMM_CHANNELS),
    },
  },
  // vLLM's custom all-reduce: peer-memory one-shot/two-shot kernels for messages up to 8 MiB.
  custom: { name: 'vllm-custom-allreduce', maxBytes: 8 * 2 ** 20, barrierUs: 2 },
  sources: {
    '/baseLatencyUs': 'NCCL tuning.cc baseLatencies: Tree {6.8, 14.0, 8.4}, Ring {6.6, 14.0, 8.4} µs (LL, LL128, Simple)',
    '/hopLatencyUs': 'NCCL tuning.cc hwLatencies[NVLINK]: Tree {0.6, 1.25, 4.0}, Ring {0.6, 1.9, 3.4} µs',
    '/linkEfficiency': 'NCCL topo.h SM90_NVLINK_BW 20.6 GB/s per link ÷ 25 GB/s NVLink 4 peak per direction',
    '/channels':
      'DER NCCL search.cc on NVSwitch sm_90: 6 rings at 60 GB/s (6 × 60 ≤ 370.8), duplicated to 12 at 30 by ncclTopoDupChannels; only the LL128 and tree caps depend on it (neither binds)',
    '/runtime/channels':
      'DER NCCL connect.cc:452: the communicator duplicates the graph channels once (nChannels × 2), 24; NVLS off. A ring channel moves at most 1/24 of the bus bandwidth: search.cc:961–973 (ncclTopoDupChannels) already halves bwIntra per ring when it doubles them, and connect.cc doubles again (UNC why; read here as one block not filling a ring: the 128 KiB–2 MiB Simple rows, on 4–24 channels, move 32–87 KiB per channel at about this rate)',
    '/runtime/threads':
      'NCCL device.h: NCCL_LL_MAX_NTHREADS 512, NCCL_LL128_MAX_NTHREADS 640, NCCL_SIMPLE_MAX_NTHREADS 512 (tuning.cc: the maxima are the defaults)',
    '/runtime/threadThresholdBytes':
      'NCCL comm.h: NCCL_LL_THREAD_THRESHOLD 8 (ring: × nRanks, tuning.cc), NCCL_LL128_THREAD_THRESHOLD 8, NCCL_SIMPLE_THREAD_THRESHOLD 64',
    '/runtime/halveThreads': 'NCCL enqueue.cc topoGetAlgoInfo: nt /= 2 while nBytes < nc × nt × threshold and nt % 128 == 0',
    '/runtime/simpleChunkBytes': 'NCCL: DEFAULT_BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB step × ALLREDUCE_CHUNKSTEPS 4 = 2 MiB',
    '/runtime/simpleSliceBytes':
      'NCCL: 512 KiB step × ALLREDUCE_SLICESTEPS 2 = 1 MiB; prims_simple.h:193–194: a slice is half the chunk but at least 1 MiB / 32',
    '/runtime/opRate':
      'CAL ours (NCCL_H100X2_CALIBRATION, NCCL_PROTO=LL 8 MiB and 64 MiB, LL128 64 MiB on two H100s): LL 199 / 169, LL128 383 data bytes per ns over 24 channels. The structure is NCCL v2.28.9 device/all_reduce.h:47–81 (runRing: directSend, N − 2 × recvReduceSend, recvReduceCopySend, N − 2 × recvCopySend, directRecv, one after another on the channel’s block) and prims_ll.h:225–298 (LLGenericOp: every primitive, the last receive included, walks its chunk one 16-byte line of 8 data bytes per thread and trip, include/device.h:70). The four-GPU rows test the 2N − 1 count (7/4 vs 3/2 per byte; a link-bound model would give 3/2 vs 1): the rate implied by 2–8 MiB is 8.2–8.8 GB/s per channel at two and four GPUs alike, 6.8–7.6 at 32–64 MiB. LL128 has one point (resident = streamed)',
    '/runtime/residentBytes':
      'DER Hopper L2 52428800 B (DS), of which a GPU keeps what its SMs read in the near half (our L2 microbenchmark, reference topology): 25 MiB; UNC that the L2 is why LL runs slower from 32 MiB (the rows show 8 MiB resident, 32 MiB not)',
    '/runtime/ringExtraUs':
      'CAL ours (NCCL_H100X2_CALIBRATION.simple8KiB): a ring Simple call costs 4.4 µs more than NCCL’s 8.4 + 2 × 3.4 µs latency plus its data at any size; the other Simple rows and the four-GPU ones validate it (UNC what it is: the Simple primitives’ per-slice barriers and fences are the candidates)',
    '/llFactor': 'NCCL tuning.cc: ring LL bus bandwidth × 0.5, at most llMaxBws[Hopper][1 node] = 141 GB/s',
    '/ll128Factor': 'NCCL tuning.cc: ring LL128 × 0.92 (120 of 128 bytes), at most nChannels × perChMaxRingLL128Bws[Hopper] = 36.7 GB/s',
    '/treeFactor': 'NCCL tuning.cc: tree all-reduce × 0.92, at most nChannels × perChMaxTreeBws[Hopper][N1] = 38.7 GB/s; LL × 1/3.8, LL128 × 7/9 on one node',
    '/treeCorrection': 'NCCL tuning.cc treeCorrectionFactor (by log2(bytes/64))',
    '/custom/maxBytes': 'vLLM custom_all_reduce.py: max_size 8 MiB',
    '/custom/barrierUs': 'UNC: one flag round trip over NVLink before and after the peer reads (2 × the ~1 µs link latency)',
  },
};

/** HGX 8-GPU Hopper boards: every GPU reaches every other through four NVSwitch chips with all 18 of its links. */
export const HGX_NVLINK4_INTERCONNECT: NodeTopology['interconnect'] = {
  kind: 'switch',
  name: 'NVLink 4 / NVSwitch 3',
  linksPerDevice: NVLINK4_LINKS,
  linkBytesPerNsPerDirection: NVLINK4_LINK_GBPS,
  latencyNs: 1000,
};

/** Provenance of `HGX_NVLINK4_INTERCONNECT` (JSON pointers into a `NodeTopology`). */
export const HGX_NVLINK4_SOURCES: Record<string, string> = {
  '/interconnect/linksPerDevice': 'DS NVIDIA H100 datasheet/whitepaper: 18 NVLink 4 links per GPU',
  '/interconnect/linkBytesPerNsPerDirection': 'DS NVLink 4: 25 GB/s per link per direction (900 GB/s bidirectional per GPU)',
  '/interconnect/latencyNs': 'UNC: ≈1 µs for a device-initiated store plus signal to a peer over NVSwitch; no measurement here',
};
