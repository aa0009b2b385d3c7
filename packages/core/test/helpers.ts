/**
 * Shared test helpers for core's engine, memory, runtime, simulation and plugin tests: a small
 * valid topology, a hand-built backend on it, an NCCL-like collective library and an 8-GPU
 * node, a seeded PRNG and error capture.
 */
import { expect } from 'vitest';
import { FleetError } from '../src/errors/fleet-error.js';
import { RooflineCostModel, type RooflineParams } from '../src/cost/roofline-cost-model.js';
import type { Backend } from '../src/plugin/contract.js';
import type { EventCounterSpec, Task, TaskGraph } from '../src/graph/task-graph.js';
import type { SimEvent } from '../src/protocol/events.js';
import type { NodeSpec } from '../src/node/collectives.js';
import type { NodeTopology } from '../src/node/node-topology.js';
import type { Topology } from '../src/topology/topology.js';
import { validateTopology } from '../src/topology/validate.js';

export const KiB = 1024;
export const MiB = 1024 * KiB;

export interface TestTopologyOptions {
  /** One device-wide L2 in two halves instead of one per partition. */
  sharedL2?: boolean;
  /** Leave the memory-side LLC out. */
  noLlc?: boolean;
  /** Compute units per partition (default [4, 4]). */
  computeUnits?: number[];
}

/**
 * A small device: 2 partitions × 4 CUs, a 64 KiB 4-way L2 per partition (128 B lines), a
 * 256 KiB 16-way memory-side LLC and HBM. Round numbers so expected times are easy by hand.
 */
export function testTopology(o: TestTopologyOptions = {}): Topology {
  const t: Topology = {
    name: 'test-gpu',
    description: 'a tiny two-partition test device',
    clockGHz: 1,
    partitions: { kind: 'die', computeUnits: o.computeUnits ?? [4, 4] },
    computeUnit: {
      simdWidth: 64,
      simdsPerUnit: 4,
      registerFileBytes: 256 * KiB,
      sharedMemoryBytes: 64 * KiB,
      l1: {
        capacityBytes: 16 * KiB,
        lineBytes: 128,
        associativity: 4,
        bandwidthBytesPerNs: 64,
        latencyNs: 50,
        writePolicy: 'write-through',
        replacement: 'lru',
      },
      matrixFlopsPerNs: { bf16: 1000, fp16: 1000 },
      vectorFlopsPerNs: 100,
      maxBandwidthBytesPerNs: 50,
    },
    memory: {
      l2: {
        organisation: 'per-partition',
        capacityBytes: 64 * KiB,
        lineBytes: 128,
        associativity: 4,
        bandwidthBytesPerNs: 200,
        latencyNs: 100,
        writePolicy: 'write-back',
        replacement: 'lru',
      },
      llc: {
        memorySide: true,
        capacityBytes: 256 * KiB,
        lineBytes: 64,
        associativity: 16,
        bandwidthBytesPerNs: 400,
        latencyNs: 300,
        writePolicy: 'write-back',
        replacement: 'lru',
      },
      hbm: {
        capacityBytes: 1024 * MiB,
        peakBandwidthBytesPerNs: 400,
        achievableBandwidthBytesPerNs: 300,
        latencyNs: 500,
      },
    },
    coherence: [
      {
        scope: 'chiplet',
        atomicResolvesAt: 'l2',
        atomicLatencyNs: 100,
        release: { fixedNs: 50, writeBackDirty: false },
        acquire: { fixedNs: 20, invalidates: true },
      },
      {
        scope: 'device',
        atomicResolvesAt: 'llc',
        atomicLatencyNs: 300,
        release: { fixedNs: 200, writeBackDirty: true },
        acquire: { fixedNs: 50, invalidates: true },
      },
    ],
    levels: {
      wavefront: { unit: 'wave', lanes: 64 },
      cu: { unit: 'cu' },
      chiplet: { unit: 'die' },
      device: { unit: 'gpu' },
    },
    sources: { '/clockGHz': 'test value' },
  };
  if (o.sharedL2) {
    t.memory.l2 = { ...t.memory.l2, organisation: 'shared', halves: 2, farExtraLatencyNs: 40 };
  }
  if (o.noLlc) delete t.memory.llc;
  return validateTopology(t, 'testTopology()');
}

export function testParams(over: Partial<RooflineParams> = {}): RooflineParams {
  return {
    matrixEfficiency: 1,
    vectorEfficiency: 1,
    tileOverheadNs: { default: 10 },
    dispatchNs: 20,
    fetchNs: 30,
    launch: { eagerNs: 5000, graphNodeNs: 500 },
    endOfKernel: { barrierNs: 1000, writeBackL2: true },
    hardwareDispatch: 'round-robin-partition',
    ...over,
  };
}

/** A backend assembled by hand (no container) on `testTopology()`. */
export function testBackend(params: Partial<RooflineParams> = {}, topology: Topology = testTopology()): Backend {
  return {
    name: 'test-gpu',
    apiVersion: '2.0',
    topology,
    costModel: new RooflineCostModel(topology, testParams(params)),
    tuning: {},
    contributions: [],
    streamContributions: [],
    collectives: [],
  };
}

/** Collects every event of a simulation (pass `observer` in `opts.observers`). */
export function eventRecorder(): { events: SimEvent[]; observer: (batch: readonly SimEvent[]) => void } {
  const events: SimEvent[] = [];
  return { events, observer: (batch) => events.push(...batch) };
}

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `fn`, expecting it to throw; returns what it threw. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to throw, but it returned');
}

/**
 * Asserts `fn` throws a one-line `FleetError` with `exitCode` whose message contains every
 * one of `words`; returns the error for further checks.
 */
export function expectFleetError(fn: () => unknown, exitCode: 2 | 3, ...words: string[]): FleetError {
  const e = thrown(fn);
  expect(e).toBeInstanceOf(FleetError);
  const fe = e as FleetError;
  expect(fe.exitCode).toBe(exitCode);
  expect(fe.message).not.toContain('\n');
  for (const w of words) expect(fe.message).toContain(w);
  return fe;
}

/** A task with defaults: a CU-task of layer 0 with one small vector tile, no waits, no signal. */
export function task(id: number, over: Partial<Task> = {}): Task {
  return {
    id,
    name: `t${id}`,
    opId: `op${id}`,
    kind: 'residual',
    layer: 0,
    level: 'cu',
    partition: null,
    tiles: [{ reads: [{ buffer: 0, offset: 0, bytes: 4096, policy: 'default' }], writes: [], flops: 1000, unit: 'vector' }],
    waits: [],
    signal: null,
    ...over,
  };
}

/** A task graph with one 1 MiB buffer and the given tasks and events. */
export function graph(tasks: Task[], events: EventCounterSpec[], over: Partial<TaskGraph> = {}): TaskGraph {
  return {
    policy: 'test-policy',
    style: 'persistent',
    buffers: [{ id: 0, name: 'buf', bytes: 1024 * KiB, kind: 'weight' }],
    tasks,
    events,
    kernels: [],
    layers: [0],
    ...over,
  };
}

/** A collective library with NCCL's Hopper tuning constants (tuning.cc); tests override the rest. */
export function ncclLikeLibrary(over: Partial<NodeSpec['library']> = {}): NodeSpec['library'] {
  return {
    name: 'lib',
    baseLatencyUs: { ring: { LL: 6.6, LL128: 14, Simple: 8.4 }, tree: { LL: 6.8, LL128: 14, Simple: 8.4 } },
    hopLatencyUs: { ring: { LL: 0.6, LL128: 1.9, Simple: 3.4 }, tree: { LL: 0.6, LL128: 1.25, Simple: 4 } },
    linkEfficiency: 0.8,
    channels: 16,
    protocols: ['LL', 'LL128', 'Simple'],
    llFactor: 0.5,
    llMaxBusGBps: 141,
    ll128Factor: 0.92,
    ll128MaxPerChannelGBps: 36.7,
    treeFactor: 0.92,
    treeMaxPerChannelGBps: 38.7,
    treeLlFactor: 1 / 3.8,
    treeLl128Factor: 7 / 9,
    sources: {},
    ...over,
  };
}

/** An 8-device node: a switch (18 links a device by default) or a full mesh (7). */
export function testNode(kind: 'switch' | 'full-mesh', linkGBps: number, links = kind === 'switch' ? 18 : 7): NodeTopology {
  return {
    name: 'n',
    description: '',
    device: 'dev',
    devices: 8,
    interconnect: { kind, name: 'x', linksPerDevice: links, linkBytesPerNsPerDirection: linkGBps, latencyNs: 1000 },
    sources: {},
  };
}
