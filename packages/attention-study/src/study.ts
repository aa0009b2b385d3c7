/**
 * The attention mapping study: predict L2 hit rate and kernel time of FA2 forward or
 * backward under each workgroup mapping on a backend, for one configuration or the paper's
 * grid, and say what was sampled. Every prediction runs on core's memory system and kernel
 * runtime (`graph.ts`).
 */
import { inputError, type Backend } from '@fleet/core';
import {
  attentionFlops,
  attentionKernel,
  attentionOccupancy,
  stepBytes,
  type AttentionKernel,
  type AttentionPass,
  type AttentionShape,
} from './decomposition.js';
import {
  ATTENTION_MAPPINGS,
  REFERENCE_MAPPING,
  gridSize,
  groupSize,
  logicalCoords,
  mapWorkgroup,
  type AttentionGrid,
  type AttentionMapping,
} from './mappings.js';
import { runAttentionGraph } from './graph.js';

export interface AttentionStudyOptions {
  /** Workgroups per compute unit (default: what LDS and registers allow, see `attentionOccupancy`). */
  occupancy?: number;
  /** Look up one step in this many (default: the largest power of two keeping enough entries, see `planSimulation`). */
  stepSample?: number;
  /** Fewest step bundles the scaled L2 must hold when sampling (default 8, raised to two per concurrent stream). */
  minCacheEntries?: number;
  /** Workgroups simulated before extrapolating (default: a wave, a whole number of the mapping's repeats, a wave and the partial last wave). */
  prefix?: number;
  /** Partitions simulated (default: two when no owner is shared across partitions, else all). */
  partitions?: number;
}

/** What was simulated and what was extrapolated, for the output. */
export interface AttentionSampling {
  /** One K/V step in this many looked up, caches scaled by the same factor. */
  stepSample: number;
  /** Partitions simulated (the others mirror them), of `partitionsTotal`. */
  partitions: number;
  partitionsTotal: number;
  /** Workgroups simulated (launched in the simulated partitions). */
  simulatedWorkgroups: number;
  workgroups: number;
  occupancy: number;
  note: string;
}

export interface AttentionResult {
  backend: string;
  mapping: AttentionMapping;
  pass: AttentionPass;
  heads: number;
  kvHeads: number;
  seq: number;
  batch: number;
  headDim: number;
  /** L2 hits over all L2 accesses (reads and writes), 0..1, aggregated over partitions. */
  l2HitRate: number;
  timeMs: number;
  /** timeMs of swizzled-head-first over this one's (> 1: this mapping is faster). */
  relativeThroughput?: number;
  tflops: number;
  /** Hits in the memory-side LLC over L2 misses that reached it (absent without an LLC). */
  llcHitRate?: number;
  hbmReadBytes: number;
  hbmWriteBytes: number;
  sampled: AttentionSampling;
}

/** Validate a shape; a bad value is a one-line input error naming the option. */
export function checkShape(s: AttentionShape): void {
  const int = (name: string, v: number, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max) throw inputError(`\`${name}\`: '${v}' is not an integer in ${min}..${max}`, name);
  };
  int('heads', s.heads, 1, 1024);
  int('kvHeads', s.kvHeads, 1, 1024);
  int('seq', s.seq, 1, 4_194_304);
  int('batch', s.batch, 1, 1024);
  int('headDim', s.headDim, 8, 512);
  if (s.heads % s.kvHeads !== 0) throw inputError(`\`kvHeads\`: ${s.kvHeads} does not divide \`heads\` ${s.heads}`, 'kvHeads');
  if (s.pass !== 'fwd' && s.pass !== 'bwd') throw inputError(`\`pass\`: '${String(s.pass)}' is not one of fwd, bwd`, 'pass');
}

/** Fewest entries a sampled L2 keeps (enough for a few lockstep streams; see the bench). */
const MIN_SAMPLED_ENTRIES = 8;
/**
 * Sampled entries per concurrently streamed owner. With sampling, each stream keeps its
 * current chunk's tile bundle live in the scaled cache, so the scaled cache needs room for
 * every stream's live bundle plus the lag between workgroups sharing it; two per stream
 * keeps hit rates within ~1 point of the unsampled simulation, ~4 at 32 streams (see the bench).
 */
const ENTRIES_PER_STREAM = 2;
/** Bounds on the steady-state window, in waves (a pattern longer than the maximum is cut to the minimum). */
const MIN_STEADY_WAVES = 2;
const MAX_STEADY_WAVES = 6;

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b;
}

/**
 * Launch ids after which the work one dispatch queue receives repeats its shape: a row
 * block (block-first orders), one head's blocks spread over the partitions (naive
 * head-first), one ACC per partition (swizzled head-first).
 */
function mappingRepeat(mapping: AttentionMapping, g: AttentionGrid, X: number, queues: number): number {
  const acc = groupSize(g) * g.blocks;
  switch (mapping) {
    case 'naive-block-first':
    case 'swizzled-block-first':
      return Math.ceil(g.heads / queues);
    case 'naive-head-first':
      return Math.ceil(acc / queues);
    case 'swizzled-head-first':
      return queues === 1 ? acc * X : acc;
  }
}
/** Partitions simulated when they are independent: two, so the memory side sees more than one requester. */
const SAMPLED_PARTITIONS = 2;

function pow2Floor(x: number): number {
  return x < 1 ? 1 : 2 ** Math.floor(Math.log2(x));
}

/**
 * Distinct owners (K/V of a KV head, or Q/dO of a query head) the first wave streams through
 * one L2 instance, the most over instances, summed over the kinds the phases stream; a kind
 * whose owners are never shared by two resident workgroups does not count (nothing in
 * flight to protect).
 */
export function concurrentStreams(backend: Backend, kernel: AttentionKernel, mapping: AttentionMapping, occupancy: number): number {
  const t = backend.topology;
  const cus = t.partitions.computeUnits;
  const X = cus.length;
  const g = kernel.grid;
  const G = gridSize(g);
  const roundRobin = backend.costModel.hardwareDispatch === 'round-robin-partition';
  const shared = t.memory.l2.organisation === 'shared';
  // Launch ids of the first wave per L2 instance.
  const waves: number[][] = [];
  if (roundRobin && !shared) {
    cus.forEach((n, x) => {
      const ids: number[] = [];
      for (let i = 0; i < n * occupancy && x + i * X < G; i++) ids.push(x + i * X);
      waves.push(ids);
    });
  } else {
    const n = Math.min(G, cus.reduce((a, b) => a + b, 0) * occupancy);
    waves.push(Array.from({ length: n }, (_, i) => i));
  }
  // Phases streaming different owners (the backward's Q/dO, then K/V) overlap once
  // workgroups drift apart, so their streams add up.
  let most = 1;
  for (const ids of waves) {
    let streams = 0;
    for (const kind of new Set(kernel.phases.map((p) => p.streams[0]!.owner))) {
      const count = new Map<number, number>();
      for (const wid of ids) {
        const c = logicalCoords(mapWorkgroup(mapping, wid, g, X), g);
        const owner = kind === 'kv' ? c.batch * g.kvHeads + Math.floor(c.head / groupSize(g)) : c.batch * g.heads + c.head;
        count.set(owner, (count.get(owner) ?? 0) + 1);
      }
      if ([...count.values()].some((n) => n > 1)) streams += count.size;
    }
    most = Math.max(most, streams);
  }
  return most;
}

/**
 * Whether partitions can be simulated one for all: round-robin dispatch onto equal
 * partitions with private L2s, and no owner streamed by workgroups of two partitions among
 * the first `prefix` launch ids.
 */
export function partitionsIndependent(backend: Backend, kernel: AttentionKernel, mapping: AttentionMapping, prefix: number): boolean {
  const t = backend.topology;
  const cus = t.partitions.computeUnits;
  if (backend.costModel.hardwareDispatch !== 'round-robin-partition' || t.memory.l2.organisation !== 'per-partition') return false;
  if (cus.some((n) => n !== cus[0])) return false;
  const X = cus.length;
  const g = kernel.grid;
  const n = Math.min(prefix, gridSize(g));
  for (const kind of new Set(kernel.phases.map((p) => p.streams[0]!.owner))) {
    const home = new Map<number, number>();
    for (let wid = 0; wid < n; wid++) {
      const c = logicalCoords(mapWorkgroup(mapping, wid, g, X), g);
      const owner = kind === 'kv' ? c.batch * g.kvHeads + Math.floor(c.head / groupSize(g)) : c.batch * g.heads + c.head;
      const at = home.get(owner);
      if (at === undefined) home.set(owner, wid % X);
      else if (at !== wid % X) return false;
    }
  }
  return true;
}

/** The step sample, occupancy and prefix a simulation of `kernel` under `mapping` on `backend` uses. */
export function planSimulation(backend: Backend, kernel: AttentionKernel, mapping: AttentionMapping, o: AttentionStudyOptions = {}) {
  const t = backend.topology;
  const occupancy = o.occupancy ?? attentionOccupancy(kernel, t);
  const units = t.partitions.computeUnits.reduce((a, b) => a + b, 0);
  const X = t.partitions.computeUnits.length;
  const slots = units * occupancy;
  const bundle = Math.max(...kernel.phases.map(stepBytes));
  const entries = Math.floor(t.memory.l2.capacityBytes / bundle);
  const minSteps = Math.min(...kernel.phases.map((p) => p.steps));
  const slack = 1.05; // a bundle a few bytes over a power-of-two fraction of the L2 does not halve the sample
  const need = Math.max(
    o.minCacheEntries ?? MIN_SAMPLED_ENTRIES,
    ENTRIES_PER_STREAM * (o.stepSample === undefined ? concurrentStreams(backend, kernel, mapping, occupancy) : 1),
  );
  const stepSample = o.stepSample ?? Math.max(1, Math.min(pow2Floor((slack * entries) / need), pow2Floor(minSteps)));
  const G = gridSize(kernel.grid);
  // One wave (cold caches, lockstep start), then the steady state over a whole number of
  // the mapping's repeats (so the window does not catch half a pattern), then one wave of
  // drain plus the grid's partial last wave: what is extrapolated is whole waves, and the
  // simulated drain is the real one (a partial wave costs a whole workgroup duration).
  const queues = backend.costModel.hardwareDispatch === 'round-robin-partition' ? X : 1;
  const wave = Math.ceil(slots / queues);
  const repeat = mappingRepeat(mapping, kernel.grid, X, queues);
  let period = lcm(wave, repeat);
  if (period > MAX_STEADY_WAVES * wave) period = MIN_STEADY_WAVES * wave;
  period *= Math.ceil((MIN_STEADY_WAVES * wave) / period);
  let prefix = o.prefix ?? (2 * wave + period) * queues;
  const steadyFrom = Math.min(prefix, wave * queues);
  let steadyTo = Math.min(prefix, (wave + period) * queues);
  if (o.prefix === undefined && prefix < G) prefix += Math.round(((G - prefix) % slots) / queues) * queues;
  prefix = Math.min(G, Math.max(1, prefix));
  if (steadyTo <= steadyFrom) steadyTo = Math.min(prefix, steadyFrom + 1);
  const partitions = o.partitions ?? (partitionsIndependent(backend, kernel, mapping, prefix) ? Math.min(X, SAMPLED_PARTITIONS) : X);
  return { occupancy, stepSample, prefix, steadyFrom, steadyTo, partitions, slots };
}

/** Simulate one shape under one mapping. */
export function simulateAttention(backend: Backend, shape: AttentionShape, mapping: AttentionMapping, o: AttentionStudyOptions = {}): AttentionResult {
  checkShape(shape);
  const kernel = attentionKernel(shape);
  const plan = planSimulation(backend, kernel, mapping, o);
  // Core's simulation decides every hit and its timing: the study keeps no cache model of its own.
  const r = runAttentionGraph(backend, kernel, { mapping, ...plan });
  const l2 = r.l2HitBytes + r.l2MissBytes;
  const llcLookups = r.llcHitBytes + r.llcMissBytes;
  const X = backend.topology.partitions.computeUnits.length;
  const note =
    (plan.stepSample > 1 ? `1 in ${plan.stepSample} K/V steps looked up (set sampling, caches scaled to 1/${plan.stepSample})` : 'every step looked up') +
    (plan.partitions < X ? `; ${plan.partitions} of ${X} partitions simulated (no head shared across partitions), with their share of the memory side` : '') +
    (plan.prefix < r.workgroups
      ? `; the first ${plan.prefix} of ${r.workgroups} workgroups launched, the rest extrapolated from the steady state of launch ids ${r.steadyWindow[0]}..${r.steadyWindow[1] - 1}`
      : '; every workgroup launched');
  return {
    backend: backend.name,
    mapping,
    pass: shape.pass,
    heads: shape.heads,
    kvHeads: shape.kvHeads,
    seq: shape.seq,
    batch: shape.batch,
    headDim: shape.headDim,
    l2HitRate: l2 === 0 ? 0 : r.l2HitBytes / l2,
    timeMs: r.timeNs / 1e6,
    tflops: attentionFlops(kernel) / r.timeNs / 1e3,
    ...(backend.topology.memory.llc ? { llcHitRate: llcLookups === 0 ? 0 : r.llcHitBytes / llcLookups } : {}),
    hbmReadBytes: r.hbmReadBytes,
    hbmWriteBytes: r.hbmWriteBytes,
    sampled: {
      stepSample: plan.stepSample,
      partitions: Math.min(plan.partitions, X),
      partitionsTotal: X,
      simulatedWorkgroups: r.simulatedWorkgroups,
      workgroups: r.workgroups,
      occupancy: plan.occupancy,
      note,
    },
  };
}

/**
 * Every requested mapping for one shape, with throughput relative to swizzled-head-first
 * (simulated too when not requested, as the reference).
 */
export function compareMappings(
  backend: Backend,
  shape: AttentionShape,
  mappings: readonly AttentionMapping[] = ATTENTION_MAPPINGS,
  o: AttentionStudyOptions = {},
): AttentionResult[] {
  const rows = new Map<AttentionMapping, AttentionResult>();
  for (const m of mappings) rows.set(m, simulateAttention(backend, shape, m, o));
  const ref = rows.get(REFERENCE_MAPPING) ?? simulateAttention(backend, shape, REFERENCE_MAPPING, o);
  return mappings.map((m) => ({ ...rows.get(m)!, relativeThroughput: ref.timeMs / rows.get(m)!.timeMs }));
}

export interface SweepPoint extends AttentionShape {
  /** Which family of the study the point belongs to. */
  family: 'mha' | 'gqa' | 'deepseek-v3';
}

/**
 * The paper's grid: N_CTX 8K/32K/128K × batch 1/2/4/8 for MHA with 8–128 heads at head
 * dim 128, GQA with 8 KV heads and 32/64/128 query heads, and DeepSeek-V3 prefill MHA
 * (128 heads, head dim 56).
 */
export function paperSweep(pass: AttentionPass = 'fwd'): SweepPoint[] {
  const seqs = [8192, 32768, 131072];
  const batches = [1, 2, 4, 8];
  const out: SweepPoint[] = [];
  for (const seq of seqs)
    for (const batch of batches) {
      for (const heads of [8, 16, 32, 64, 128]) out.push({ family: 'mha', seq, batch, heads, kvHeads: heads, headDim: 128, pass });
      for (const heads of [32, 64, 128]) out.push({ family: 'gqa', seq, batch, heads, kvHeads: 8, headDim: 128, pass });
      out.push({ family: 'deepseek-v3', seq, batch, heads: 128, kvHeads: 128, headDim: 56, pass });
    }
  return out;
}
