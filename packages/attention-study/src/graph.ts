/**
 * FlashAttention-2 as a core task graph, simulated by core's `simulateGraph`: the one place
 * where an L2 hit is decided (core's `MemorySystem`) also decides it for this study.
 *
 * - A task is a workgroup, listed in launch order; the mapping decides which logical
 *   workgroup (batch, head, row block) launch id i computes, and the hardware dispatcher
 *   puts launch id i on partition i mod X (CDNA) or on the next free unit (Hopper).
 * - A phase of a workgroup is one stepped tile: step j streams chunk j of its owner's K/V
 *   (or Q/dO) — one region row per chunk — with the chunk's FLOPs; the workgroup's own rows
 *   (read once) and its output are spread over the steps and land with the last.
 * - Occupancy: `workgroupsPerUnit` slots per compute unit share its compute; the tile
 *   pipeline keeps one step's tiles in flight per workgroup, and the unit's resident
 *   workgroups hide each other's stalls (`overlap` = occupancy).
 *
 * Set sampling (Kessler et al., 1994): a chunk of k steps is one step's bytes in the caches,
 * which are scaled to 1/k, and `trafficScale` carries the k × bytes to bandwidth and the
 * counters. Each owner is sampled at its own phase (chunks [0, k − r), then every k), so
 * sampled lookups are spread in time as sampled sets are spread over the address space.
 */
import type { Backend, KernelSpec, MemoryCounters, SimEvent, Task, TaskGraph, Tile, Topology } from '@fleet/core';
import { addCounters, simulateGraph, zeroCounters } from '@fleet/core';
import { stepBytes, type AttentionKernel } from './decomposition.js';
import { gridSize, groupSize, logicalCoords, mapWorkgroup, type AttentionMapping } from './mappings.js';

export interface AttentionGraphPlan {
  mapping: AttentionMapping;
  /** Workgroups resident per compute unit. */
  occupancy: number;
  /** One step in this many is looked up, in caches scaled by the same factor. */
  stepSample: number;
  /** Workgroups launched (in dispatch order); the rest of the grid is extrapolated. */
  prefix: number;
  /** Launch ids [steadyFrom, steadyTo) whose mean cost is extrapolated. */
  steadyFrom: number;
  steadyTo: number;
  /** Partitions simulated (round-robin dispatch only): the first n, with n/X of the memory side. */
  partitions: number;
}

export interface AttentionTotals {
  timeNs: number;
  l2HitBytes: number;
  l2MissBytes: number;
  llcHitBytes: number;
  llcMissBytes: number;
  hbmReadBytes: number;
  hbmWriteBytes: number;
}

export interface AttentionGraphResult extends AttentionTotals {
  workgroups: number;
  simulatedWorkgroups: number;
  /** Dispatch-order range whose mean cost was extrapolated, [from, to); empty when nothing was. */
  steadyWindow: [number, number];
  /** Engine events processed by core's simulation. */
  events: number;
}

/** A 32-bit integer mix (a deterministic hash): the sampling phase of an owner, or any per-id draw. */
export function mix32(x: number): number {
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d) & 0x7fffffff;
  x ^= x >>> 12;
  x = Math.imul(x, 0x297a2d39) & 0x7fffffff;
  x ^= x >>> 15;
  return x;
}

/** Chunks of a phase of `steps` steps sampled 1 in k at phase r: [0, k − r), then every k. */
export function chunkCount(steps: number, k: number, r: number): number {
  return r === 0 || steps <= k - r ? Math.ceil(steps / k) : 1 + Math.ceil((steps - (k - r)) / k);
}

/** Launch ids the plan simulates: the prefix, restricted to the simulated partitions. */
export function simulatedLaunchIds(plan: AttentionGraphPlan, X: number, roundRobin: boolean): number[] {
  const ids: number[] = [];
  for (let i = 0; i < plan.prefix; i++) if (!roundRobin || i % X < plan.partitions) ids.push(i);
  return ids;
}

/** The backend's topology with caches scaled to 1/k and the memory side to the simulated share. */
export function sampledTopology(t: Topology, k: number, share: number): Topology {
  const { l2, llc, hbm } = t.memory;
  return {
    ...t,
    memory: {
      ...t.memory,
      l2: { ...l2, capacityBytes: l2.capacityBytes / k },
      ...(llc ? { llc: { ...llc, capacityBytes: (llc.capacityBytes * share) / k, bandwidthBytesPerNs: llc.bandwidthBytesPerNs * share } } : {}),
      hbm: { ...hbm, achievableBandwidthBytesPerNs: hbm.achievableBandwidthBytesPerNs * share },
    },
  };
}

const KV_BUFFER = 0;
const ROWS_BUFFER = 1;

/**
 * The task graph of the simulated workgroups. Layers tag where a task falls: 0 before the
 * steady window, 1 inside it, 2 after (so core's per-layer counters give the steady state).
 */
export function attentionTaskGraph(kernel: AttentionKernel, plan: AttentionGraphPlan, X: number, roundRobin: boolean): TaskGraph {
  const g = kernel.grid;
  const k = plan.stepSample;
  const ids = simulatedLaunchIds(plan, X, roundRobin);
  // Owner → compact index in order of first use; each owner has a row per sampled chunk per phase.
  const slot = Math.max(...kernel.phases.map(stepBytes));
  const rowsPerOwner = kernel.phases.reduce((a, p) => a + Math.ceil(p.steps / k) + 1, 0);
  const phaseBase: number[] = [];
  let base = 0;
  for (const p of kernel.phases) {
    phaseBase.push(base);
    base += Math.ceil(p.steps / k) + 1;
  }
  const compact = new Map<number, number>();
  const ownerIndex = (key: number) => {
    let o = compact.get(key);
    if (o === undefined) compact.set(key, (o = compact.size));
    return o;
  };
  const onceBytes = kernel.phases.reduce((a, p) => a + p.onceReadBytes + p.writeBytes, 0);
  const wgRowBytes = Math.ceil(onceBytes / 128 + 2 * kernel.phases.length) * 128;
  const occupancy = plan.occupancy;
  const tasks: Task[] = ids.map((wid, n) => {
    const c = logicalCoords(mapWorkgroup(plan.mapping, wid, g, X), g);
    const q = c.batch * g.heads + c.head;
    const kv = c.batch * g.kvHeads + Math.floor(c.head / groupSize(g));
    let rowOffset = n * wgRowBytes;
    const tiles: Tile[] = kernel.phases.map((p, pi) => {
      const ownerKv = p.streams[0]!.owner === 'kv';
      const key = ownerKv ? 2 * kv + 1 : 2 * q;
      const owner = ownerIndex(key);
      const r = mix32(key) % k;
      const chunks = chunkCount(p.steps, k, r);
      const scale = p.steps / chunks;
      const bundle = stepBytes(p);
      // Own rows and output, scaled like the streamed bytes; whole lines, so they never share one.
      const once = Math.ceil(p.onceReadBytes / scale / 128) * 128;
      const out = Math.ceil(p.writeBytes / scale / 128) * 128;
      const reads = [
        {
          buffer: KV_BUFFER,
          offset: (owner * rowsPerOwner + phaseBase[pi]!) * slot,
          bytes: bundle,
          rows: chunks,
          strideBytes: slot,
          policy: 'default' as const,
        },
      ];
      if (once > 0) reads.push({ buffer: ROWS_BUFFER, offset: rowOffset, bytes: once, rows: 1, strideBytes: once, policy: 'default' });
      rowOffset += once;
      const writes = out > 0 ? [{ buffer: ROWS_BUFFER, offset: rowOffset, bytes: out, policy: 'default' as const }] : [];
      rowOffset += out;
      return {
        reads,
        writes,
        flops: p.steps * p.matrixFlopsPerStep,
        vectorFlops: p.steps * p.vectorFlopsPerStep,
        unit: 'matrix',
        steps: chunks,
        trafficScale: scale,
        // One step's tiles in flight per workgroup (FA2 stages K and V through LDS), in the
        // kernel's serial load groups (a step pays one latency per group); the unit's
        // resident workgroups hide each other's stalls.
        pipeline: { inFlightBytes: bundle / p.serialLoads, overlap: occupancy },
      };
    });
    const layer = wid < plan.steadyFrom ? 0 : wid < plan.steadyTo ? 1 : 2;
    return {
      id: n,
      name: `wg${wid}`,
      opId: 'attention',
      kind: 'attention',
      layer,
      level: 'cu',
      partition: roundRobin ? wid % X : null,
      tiles,
      waits: [],
      signal: null,
      kernel: 0,
    };
  });
  const kernelSpec: KernelSpec = { id: 0, name: `fa2-${kernel.pass}`, opIds: ['attention'], layer: 0, tasks: tasks.map((t) => t.id) };
  return {
    policy: `fa2-${kernel.pass}/${plan.mapping}`,
    style: 'kernel-per-op',
    buffers: [
      { id: KV_BUFFER, name: 'streamed K/V, Q/dO (sampled steps)', bytes: Math.max(1, compact.size * rowsPerOwner * slot), kind: 'kv-cache' },
      { id: ROWS_BUFFER, name: 'own rows and outputs', bytes: Math.max(1, ids.length * wgRowBytes), kind: 'activation' },
    ],
    tasks,
    events: [],
    kernels: [kernelSpec],
    layers: [0, 1, 2],
  };
}

/** Simulate the plan on core's runtime and extrapolate the steady state to the whole grid. */
export function runAttentionGraph(backend: Backend, kernel: AttentionKernel, plan: AttentionGraphPlan): AttentionGraphResult {
  const X = backend.topology.partitions.computeUnits.length;
  const roundRobin = backend.costModel.hardwareDispatch === 'round-robin-partition';
  const simulated = roundRobin ? Math.min(X, Math.max(1, plan.partitions)) : X;
  const p = { ...plan, partitions: simulated };
  const share = simulated / X;
  const graph = attentionTaskGraph(kernel, p, X, roundRobin);
  const sampled: Backend = { ...backend, topology: sampledTopology(backend.topology, plan.stepSample, share) };
  const ids = simulatedLaunchIds(p, X, roundRobin);
  const start = new Float64Array(ids.length);
  const end = new Float64Array(ids.length);
  const observe = (batch: readonly SimEvent[]) => {
    for (const e of batch) {
      if (e.type === 'task-start') start[e.task] = e.t;
      else if (e.type === 'task-end') end[e.task] = e.t;
    }
  };
  // Set sampling shrinks the caches k-fold: 4 KiB blocks keep enough sets in them.
  const r = simulateGraph(sampled, graph, { launchMode: 'eager', workgroupsPerUnit: plan.occupancy, observers: [observe], granularityBytes: 4096 });
  const scale = X / simulated;
  const all = zeroCounters();
  for (const c of r.counters) if (c) addCounters(all, c, scale);
  const G = gridSize(kernel.grid);
  let timeNs = r.timeNs;
  let window: [number, number] = [plan.prefix, plan.prefix];
  const slots = backend.topology.partitions.computeUnits.reduce((a, b) => a + b, 0) * plan.occupancy;
  if (plan.prefix < G) {
    const inWindow: number[] = [];
    ids.forEach((wid, n) => {
      if (wid >= plan.steadyFrom && wid < plan.steadyTo) inWindow.push(n);
    });
    const n = Math.max(1, inWindow.length);
    window = inWindow.length > 0 ? [ids[inWindow[0]!]!, ids[inWindow[inWindow.length - 1]!]! + 1] : window;
    // Slots stay full in the steady state: a workgroup costs its residency over the slots
    // (of the simulated partitions).
    let residency = 0;
    for (const i of inWindow) residency += end[i]! - start[i]!;
    const rest = G - plan.prefix;
    timeNs += (rest * residency) / n / slots;
    const steady = r.counters[2] ?? zeroCounters();
    addCounters(all, steady, rest / n);
  }
  return { ...totalsOf(all, timeNs), workgroups: G, simulatedWorkgroups: ids.length, steadyWindow: window, events: r.engineEvents };
}

function totalsOf(c: MemoryCounters, timeNs: number): AttentionTotals {
  return {
    timeNs,
    l2HitBytes: c.l2.hitBytes,
    l2MissBytes: c.l2.missBytes,
    llcHitBytes: c.llc.hitBytes,
    llcMissBytes: c.llc.missBytes,
    hbmReadBytes: c.hbmReadBytes,
    hbmWriteBytes: c.hbmWriteBytes,
  };
}
