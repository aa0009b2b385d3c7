/**
 * Multi-device collectives as a cost model: the structure of NCCL's tuning model
 * (src/graph/tuning.cc: a latency and a bus bandwidth per algorithm × protocol, the fastest
 * one picked per message size) plus the one-shot/two-shot custom all-reduce that inference
 * engines use for small messages. The numbers (base and per-hop latencies, protocol
 * efficiencies, channel caps) are the library's and come from the backend
 * (`CollectiveLibrary`); the link bandwidth comes from the node (`NodeTopology`).
 *
 * Two models, as the library has two:
 * - its tuning model, which picks the algorithm and protocol (the smallest estimate wins):
 *   time = latency + bytes / algorithm bandwidth, with
 *   - ring:  latency = base + steps × hop; algorithm bw = bus bw × N / steps,
 *            steps = 2(N − 1) for all-reduce, N − 1 for all-gather and reduce-scatter;
 *   - tree (all-reduce only): latency = base + 2 (N − 1) × hop; algorithm bw = bus bw / 2;
 * - the run of the chosen one (`CollectiveRuntime`, when the library describes it): the
 *   channels the enqueue actually launches for this size (one fewer while the message is under
 *   channels × threads × the protocol's bytes-per-thread threshold), a ring channel moving at
 *   most its share of the bus bandwidth with all the communicator's channels running, plus, for
 *   Simple, the one slice a ring cannot overlap (Simple signals a whole slice at once, so the
 *   last step waits for a slice at the channel's rate); for LL and LL128 on a ring, where the
 *   library gives their rate, the loop's primitives one after another on the channel's block
 *   (2(N − 1) that send and the last receive, each over bytes / N of the channel's share); and
 *   a fixed extra per protocol where the library's latency constants miss it.
 * - one-shot: every device reads the N − 1 peer buffers and reduces (one barrier);
 * - two-shot: a reduce-scatter then an all-gather through peer memory (two barriers).
 */
import { inputError } from '../errors/fleet-error.js';
import { groupBytesPerNs, type NodeTopology } from './node-topology.js';

export type CollectiveOpName = 'all-reduce' | 'all-gather' | 'reduce-scatter';
export const COLLECTIVE_OPS: readonly CollectiveOpName[] = ['all-reduce', 'all-gather', 'reduce-scatter'];
export type CollectiveAlgorithm = 'ring' | 'tree' | 'one-shot' | 'two-shot' | 'none';
export type CollectiveProtocol = 'LL' | 'LL128' | 'Simple';
export const COLLECTIVE_PROTOCOLS: readonly CollectiveProtocol[] = ['LL', 'LL128', 'Simple'];

/** Per-protocol values, µs or factors. */
export type PerProtocol = Record<CollectiveProtocol, number>;

/**
 * How the library runs a collective once it has picked the algorithm and protocol: the
 * communicator's channels and the enqueue's rule for how many of them a message gets
 * (NCCL src/enqueue.cc topoGetAlgoInfo), and Simple's slice (src/include/collectives.h).
 */
export interface CollectiveRuntime {
  /** Channels of a communicator: the tuning graph's, duplicated once when the rings are connected. */
  channels: number;
  /** Threads per channel by protocol (the library's maximum). */
  threads: PerProtocol;
  /** Bytes per thread a message must bring for each channel it keeps (threadThresholds); ring LL's is this × ranks. */
  threadThresholdBytes: PerProtocol;
  /** Whether a lone channel then halves its threads while the message is still under (NCCL yes; RCCL keeps them). */
  halveThreads: boolean;
  /** Simple's chunk per rank and channel (step × chunkSteps) and its slice (step × sliceSteps), bytes. */
  simpleChunkBytes: number;
  simpleSliceBytes: number;
  /**
   * Ring LL and LL128 as their loop runs them (omitted: the tuning model's bandwidth): every
   * primitive of a ring loop — the N − 1 or 2(N − 1) that send and the last one that only
   * receives — walks its chunk at the protocol's rate, as one thread block runs a channel's
   * primitives one after another. The rate is the GPU's, data bytes per ns; `resident` while the
   * message fits `residentBytes` (the buffer stays in the L2 between calls), `streamed` beyond.
   */
  opRate?: Partial<Record<'LL' | 'LL128', { resident: number; streamed: number }>>;
  /** The largest message whose buffer `opRate` counts as staying in the L2, bytes. */
  residentBytes?: number;
  /** What a ring run costs beyond the tuning model's latency by protocol, µs (omitted: nothing). */
  ringExtraUs?: Partial<PerProtocol>;
}

/** A collective library's tuning constants (NCCL, RCCL…), with their sources. */
export interface CollectiveLibrary {
  name: string;
  /** Fixed cost of one collective call by algorithm and protocol, µs. */
  baseLatencyUs: { ring: PerProtocol; tree: PerProtocol };
  /** Cost of one step (hop) over the node's interconnect, µs. */
  hopLatencyUs: { ring: PerProtocol; tree: PerProtocol };
  /** Bytes/ns per link and direction the library's channels reach with Simple, as a fraction of the link's peak. */
  linkEfficiency: number;
  /** Channels (one CTA/workgroup each) the tuning model counts: the graph search's rings, before duplication. */
  channels: number;
  /** Protocols the library enables by default on this hardware. */
  protocols: readonly CollectiveProtocol[];
  /** LL: bus bandwidth × `llFactor`, at most `llMaxBusGBps` (half the payload is flags). */
  llFactor: number;
  llMaxBusGBps: number;
  /** LL128: bus bandwidth × `ll128Factor` (120 of 128 bytes carry data), at most channels × `ll128MaxPerChannelGBps`. */
  ll128Factor: number;
  ll128MaxPerChannelGBps: number;
  /** Tree all-reduce: bus bandwidth × `treeFactor`, at most channels × `treeMaxPerChannelGBps`; LL and LL128 scale it further. */
  treeFactor: number;
  treeMaxPerChannelGBps: number;
  treeLlFactor: number;
  treeLl128Factor: number;
  /**
   * The tree's medium-size correction by protocol, indexed by log2(bytes / 64); 1 beyond the
   * table. Omitted: no correction.
   */
  treeCorrection?: PerProtocolTable;
  /** How the chosen algorithm and protocol run; omitted, the tuning model's estimate is the time. */
  runtime?: CollectiveRuntime;
  /** The engine's custom all-reduce through peer memory (vLLM's one-shot/two-shot), if it has one. */
  custom?: { maxBytes: number; barrierUs: number; name: string };
  sources: Record<string, string>;
}

export type PerProtocolTable = Record<CollectiveProtocol, readonly number[]>;

/** A node and the collective library that runs on it: what a backend binds as `TOKENS.Node`. */
export interface NodeSpec {
  topology: NodeTopology;
  library: CollectiveLibrary;
}

export interface CollectiveCandidate {
  algorithm: CollectiveAlgorithm;
  protocol: CollectiveProtocol;
  /** What it takes to run, µs (the runtime model; the estimate where the library has none). */
  latencyUs: number;
  /** The library's own tuning-model estimate, by which it chooses, µs (the custom all-reduce: its time). */
  estimateUs: number;
  /** Channels it runs on (the custom all-reduce: 0, it uses the engine's own blocks). */
  channels: number;
}

export interface CollectiveCost {
  op: CollectiveOpName;
  /** Bytes of the message: the buffer each device reduces (all-reduce) or the gathered result (all-gather, reduce-scatter input). */
  bytes: number;
  devices: number;
  algorithm: CollectiveAlgorithm;
  protocol: CollectiveProtocol;
  library: string;
  /** The collective alone, µs (no kernel launch). */
  latencyUs: number;
  /** The library's tuning-model estimate for what it chose, µs. */
  estimateUs: number;
  /** Channels (CTAs) it runs on; threads per channel. */
  channels: number;
  threads: number;
  /** bytes / time, GB/s. */
  algBandwidthGBps: number;
  /** nccl-tests' bus bandwidth: algorithm bandwidth × 2(N−1)/N (all-reduce) or (N−1)/N. */
  busBandwidthGBps: number;
  /** Link bandwidth one device of the group can use, GB/s per direction. */
  linkBandwidthGBps: number;
  /** Every algorithm and protocol considered, in the order the library ranks them (its estimate, smallest first). */
  candidates: CollectiveCandidate[];
}

/** Largest message `fleet collective` and the graphs price: 1 TiB. */
/**
 * The node as a program that calls the collective library directly runs it (PyTorch's
 * `dist.all_reduce`, an engine started without its custom all-reduce): the library's
 * algorithms only, never the engine's one-shot/two-shot kernel.
 */
export function libraryCollectivesOnly(spec: NodeSpec): NodeSpec {
  return { ...spec, library: { ...spec.library, custom: undefined } };
}

export const MAX_COLLECTIVE_BYTES = 2 ** 40;

function busFactor(op: CollectiveOpName, n: number): number {
  return op === 'all-reduce' ? (2 * (n - 1)) / n : (n - 1) / n;
}

/** The tuning model's bus bandwidth (GB/s) and latency (µs) of one (algorithm, protocol), or null where it does not apply. */
function tuned(
  lib: CollectiveLibrary,
  op: CollectiveOpName,
  bytes: number,
  n: number,
  linkGBps: number,
  algorithm: 'ring' | 'tree',
  p: CollectiveProtocol,
): { busGBps: number; algGBps: number; latUs: number } | null {
  if (algorithm === 'tree' && op !== 'all-reduce') return null;
  const steps = op === 'all-reduce' ? 2 * (n - 1) : n - 1;
  let bus = linkGBps * lib.linkEfficiency;
  if (algorithm === 'ring') {
    if (p === 'LL') bus = Math.min(lib.llMaxBusGBps, bus * lib.llFactor);
    if (p === 'LL128') bus = Math.min(bus * lib.ll128Factor, lib.channels * lib.ll128MaxPerChannelGBps);
  } else {
    bus = Math.min(bus * lib.treeFactor, lib.channels * lib.treeMaxPerChannelGBps);
    if (p === 'LL') bus = Math.min(bus * lib.treeLlFactor, lib.llMaxBusGBps);
    if (p === 'LL128') bus = Math.min(bus * lib.treeLl128Factor, lib.channels * lib.ll128MaxPerChannelGBps * lib.treeLl128Factor);
    const table = lib.treeCorrection?.[p];
    const i = Math.floor(Math.log2(Math.max(1, bytes / 64)));
    if (table && i < table.length) bus *= table[i]!;
  }
  const alg = algorithm === 'ring' ? (bus * n) / steps : bus / 2;
  const lat = lib.baseLatencyUs[algorithm][p] + (algorithm === 'ring' ? steps : 2 * (n - 1)) * lib.hopLatencyUs[algorithm][p];
  return { busGBps: bus, algGBps: alg, latUs: lat };
}

/**
 * Channels and threads per channel the library launches for `bytes` (NCCL enqueue.cc
 * topoGetAlgoInfo): one channel fewer while the message is under channels × threads × the
 * protocol's threshold, then (where the library does) half the threads while it is still under.
 */
export function collectiveChannels(
  runtime: CollectiveRuntime,
  algorithm: 'ring' | 'tree',
  p: CollectiveProtocol,
  bytes: number,
  ranks: number,
): { channels: number; threads: number } {
  let nc = runtime.channels;
  let nt = runtime.threads[p];
  const threshold = runtime.threadThresholdBytes[p] * (algorithm === 'ring' && p === 'LL' ? ranks : 1);
  while (bytes < nc * nt * threshold && nc > 1) nc--;
  while (runtime.halveThreads && bytes < nc * nt * threshold && nt % 128 === 0) nt /= 2;
  return { channels: nc, threads: nt };
}

/** One (algorithm, protocol): the library's estimate and, where it describes its runtime, the run. */
function candidate(
  lib: CollectiveLibrary,
  op: CollectiveOpName,
  bytes: number,
  n: number,
  linkGBps: number,
  algorithm: 'ring' | 'tree',
  p: CollectiveProtocol,
): (CollectiveCandidate & { threads: number }) | null {
  const t = tuned(lib, op, bytes, n, linkGBps, algorithm, p);
  if (!t) return null;
  const estimateUs = t.latUs + bytes / (1000 * t.algGBps);
  const rt = lib.runtime;
  if (!rt) return { algorithm, protocol: p, latencyUs: estimateUs, estimateUs, channels: lib.channels, threads: 0 };
  const { channels, threads } = collectiveChannels(rt, algorithm, p, bytes, n);
  // All the communicator's channels together fill the links at the tuning model's bus bandwidth;
  // on a ring one channel (one thread block) moves its even share of that and no more: NCCL runs
  // two blocks per graph ring (connect.cc duplicates the channels) because one block does not
  // reach a ring's bandwidth. Fewer channels than the communicator's move proportionally less.
  // The tree keeps the graph's share (a channel up to a graph channel's bandwidth): its runs here
  // are latency-bound and show no per-channel limit.
  const full = Math.max(channels, algorithm === 'ring' ? rt.channels : lib.channels);
  const perChannelGBps = t.busGBps / full;
  const alg = (t.algGBps * channels) / full;
  const extraUs = algorithm === 'ring' ? (rt.ringExtraUs?.[p] ?? 0) : 0;
  const opRate = algorithm === 'ring' && p !== 'Simple' ? rt.opRate?.[p] : undefined;
  if (opRate) {
    // A loop's primitives each move one chunk of the channel's bytes / N, one after another on the
    // channel's block: 2(N − 1) sending steps for all-reduce, N − 1 for all-gather and
    // reduce-scatter, then one receive. A channel walks them at its share of the GPU's rate.
    const steps = op === 'all-reduce' ? 2 * (n - 1) : n - 1;
    const rate = bytes <= (rt.residentBytes ?? Infinity) ? opRate.resident : opRate.streamed;
    const channelOpBytes = ((steps + 1) * bytes) / (n * channels);
    return { algorithm, protocol: p, latencyUs: t.latUs + extraUs + channelOpBytes / ((1000 * rate) / full), estimateUs, channels, threads };
  }
  let fillUs = 0;
  if (p === 'Simple' && algorithm === 'ring') {
    // A channel's chunk per rank is its share of the message over the ranks, up to the chunk size;
    // its slices are the same fraction of it as the slice size is of the chunk size, but no
    // smaller than 1/32 of the slice size (NCCL prims_simple.h genericOp: sliceSize =
    // max(divUp(nelem, 16 × SlicePerChunk) × 16, sliceSize / 32)), and no larger than the chunk.
    const chunk = Math.min(rt.simpleChunkBytes, bytes / (channels * n));
    const slice = Math.min(chunk, Math.max((chunk * rt.simpleSliceBytes) / rt.simpleChunkBytes, rt.simpleSliceBytes / 32));
    fillUs = slice / (1000 * perChannelGBps);
  }
  return { algorithm, protocol: p, latencyUs: t.latUs + extraUs + bytes / (1000 * alg) + fillUs, estimateUs, channels, threads };
}

/** Which implementations a caller allows: a serving engine's custom all-reduce beside the library's, or the library alone. */
export interface CollectiveChoice {
  /** Consider the engine's custom all-reduce (`CollectiveLibrary.custom`) for small all-reduces; default true. */
  customAllReduce?: boolean;
}

/**
 * Cost of one collective over `devices` devices of `node` (a group of the node's devices),
 * the fastest of the library's algorithms and protocols — and of the engine's custom
 * all-reduce unless `choice.customAllReduce` is false. `library` names what runs: the custom
 * all-reduce is the engine's kernel, not the collective library's.
 */
export function collectiveCost(spec: NodeSpec, op: CollectiveOpName, bytes: number, devices: number, choice: CollectiveChoice = {}): CollectiveCost {
  if (!COLLECTIVE_OPS.includes(op)) throw inputError(`\`op\` must be one of ${COLLECTIVE_OPS.join(', ')} (got ${String(op)})`, 'op');
  if (!Number.isFinite(bytes) || bytes < 0 || bytes > MAX_COLLECTIVE_BYTES)
    throw inputError(`\`bytes\` must be a number in 0..${MAX_COLLECTIVE_BYTES} (got ${bytes})`, 'bytes');
  const node = spec.topology;
  if (!Number.isInteger(devices) || devices < 1 || devices > node.devices) {
    throw inputError(`\`devices\` must be an integer in 1..${node.devices} (the devices of node ${node.name}; got ${devices})`, 'devices');
  }
  const lib = spec.library;
  const linkGBps = groupBytesPerNs(node, devices);
  const base = { op, bytes, devices, library: lib.name, linkBandwidthGBps: linkGBps };
  if (devices === 1 || bytes === 0) {
    return {
      ...base,
      algorithm: 'none',
      protocol: 'Simple',
      latencyUs: 0,
      estimateUs: 0,
      channels: 0,
      threads: 0,
      algBandwidthGBps: Infinity,
      busBandwidthGBps: Infinity,
      candidates: [],
    };
  }
  const tunedCandidates: (CollectiveCandidate & { threads: number })[] = [];
  for (const algorithm of ['ring', 'tree'] as const) {
    for (const p of lib.protocols) {
      const c = candidate(lib, op, bytes, devices, linkGBps, algorithm, p);
      if (c) tunedCandidates.push(c);
    }
  }
  // The library picks by its own estimate; ties keep the order above (ring before tree, LL before Simple).
  tunedCandidates.sort((a, b) => a.estimateUs - b.estimateUs);
  let best: CollectiveCandidate & { threads: number } = tunedCandidates[0]!;
  const candidates: CollectiveCandidate[] = tunedCandidates.map(({ threads: _t, ...c }) => c);
  if (lib.custom && (choice.customAllReduce ?? true) && op === 'all-reduce' && bytes <= lib.custom.maxBytes) {
    // Peer loads at the links' rate: one-shot reads the N − 1 peer buffers whole; two-shot
    // reads (N − 1)/N of them twice (its reduce-scatter, then its all-gather).
    const rate = linkGBps * lib.linkEfficiency * 1000;
    const oneShot = lib.custom.barrierUs + ((devices - 1) * bytes) / rate;
    const twoShot = 2 * lib.custom.barrierUs + (2 * (devices - 1) * bytes) / devices / rate;
    const custom: (CollectiveCandidate & { threads: number })[] = [
      { algorithm: 'one-shot', protocol: 'Simple', latencyUs: oneShot, estimateUs: oneShot, channels: 0, threads: 0 },
      { algorithm: 'two-shot', protocol: 'Simple', latencyUs: twoShot, estimateUs: twoShot, channels: 0, threads: 0 },
    ];
    // The engine takes its own kernel where that runs faster than what the library would run.
    for (const c of custom) {
      candidates.push({ ...c });
      if (c.latencyUs < best.latencyUs) best = c;
    }
  }
  const alg = bytes / (best.latencyUs * 1000);
  const custom = best.algorithm === 'one-shot' || best.algorithm === 'two-shot';
  return {
    ...base,
    library: custom && lib.custom ? lib.custom.name : lib.name,
    algorithm: best.algorithm,
    protocol: best.protocol,
    latencyUs: best.latencyUs,
    estimateUs: best.estimateUs,
    channels: best.channels,
    threads: best.threads,
    algBandwidthGBps: alg,
    busBandwidthGBps: alg * busFactor(op, devices),
    candidates,
  };
}
