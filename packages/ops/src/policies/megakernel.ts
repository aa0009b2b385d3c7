/**
 * Persistent megakernels: one kernel for the whole step, workers fed by schedulers, stages
 * chained by event counters (Mirage MPK). MPK decomposes linears into CU-tasks; FLEET
 * (chiplet-tasks) gives each partition one task per linear that its workers share through the
 * partition's L2, in one of three tile orders; it runs where the chiplet level is the partition.
 */
import {
  MPK_TASK_DESC_BYTES,
  type Backend,
  type EventCounterSpec,
  type OpGraph,
  type OpNode,
  type PersistentOptions,
  type Task,
  type TaskGraph,
  type Tile,
} from '@fleet/core';
import type { BufferTable } from '../decompose/buffers.js';
import { linearTile, TILE_K, TILE_N } from '../decompose/linear.js';
import { chipletGroupedDrafts, cuGroupedDrafts } from '../decompose/moe.js';
import { stageTask, type Draft, type Stage } from '../compile/drafts.js';
import { colTiles, lowerGraph, splitCols, type CompileOptions, type LinearJob, type Lowering, type LoweringContext } from '../compile/lowering.js';
import type { Schedule, Traversal } from '../compile/schedule.js';
import type { Policy } from './policy.js';
import { CLUSTER_KNOBS, noFp8Tiles, SCHEDULE_KNOBS, unusedOverrides, type ScheduleKnob } from './options.js';

/**
 * MPK's stages: q/k norm, RoPE and the KV append run inside the attention task; residual adds
 * are the epilogue of the linear (or, with tensor parallelism, the all-reduce) before them;
 * SiLU·mul joins gate+up when the schedule fuses it (FLEET).
 */
function megakernelStages(ops: readonly OpNode[], schedule: Schedule): OpNode[][] {
  const groups: OpNode[][] = [];
  const last = () => groups[groups.length - 1]!;
  const prologue: OpNode[] = [];
  for (const op of ops) {
    const prev = groups.length > 0 ? last()[last().length - 1]! : null;
    if (op.kind === 'qk-norm' || op.kind === 'rope' || op.kind === 'kv-append') {
      prologue.push(op);
      continue;
    }
    if (op.kind === 'attention') {
      groups.push([...prologue.splice(0), op]);
      continue;
    }
    if (op.kind === 'residual' && (prev?.kind === 'linear' || prev?.kind === 'all-reduce')) {
      last().push(op);
      continue;
    }
    if (op.kind === 'act-mul' && schedule.fuseActivation && (prev?.kind === 'linear' || prev?.kind === 'grouped-linear')) {
      last().push(op);
      continue;
    }
    groups.push([op]);
  }
  return groups;
}

/**
 * MPK's split-K for a residual linear in its ROCm port (FLEET's demo/qwen3/demo.py,
 * `compute_dynamic_splitk`): when the 64-column blocks are fewer than the workers, the K
 * splits (whole 256-element chunks, a divisor of their count) nearest ⌈workers / blocks⌉,
 * the larger on a tie. Qwen3-8B on MI350's 248 workers: o_proj and down_proj 64 × 4.
 */
export function mpkRocmKSplits(blocks: number, k: number, workers: number): number {
  if (blocks >= workers) return 1;
  const ideal = Math.max(1, Math.ceil(workers / blocks));
  const chunks = Math.floor(k / TILE_K);
  let best = 1;
  for (let s = 2; s <= chunks; s++) {
    if (chunks % s !== 0) continue;
    const d = Math.abs(s - ideal);
    const bd = Math.abs(best - ideal);
    if (d < bd || (d === bd && s > best)) best = s;
  }
  return best;
}

/**
 * MPK's CU-tasks for a linear in the ROCm port FLEET published (demo/qwen3/demo.py, ROCm
 * paths): 64 output columns a task (`grid_for_rmsnorm_linear_layer` without CUTLASS), the
 * fused gate+up in 128-column tasks (`rmsnorm_num_tasks = gateup_size // 128`, "to fit
 * GateUp in 1 round"), and the residual linears (o_proj, down_proj) as 64-column blocks ×
 * `mpkRocmKSplits` K-parts whose fp32 partial sums meet in a workspace by atomics, the
 * last part adding the residual (`splitk_linear_res_atomic_layer`). For Qwen3-8B that is
 * 96, 256, 192 and 256 tasks: the paper's "96–256 CU-tasks" per GEMM (Figure 4), and with
 * Mirage's 96 SiLU·mul tasks exactly the 1,407 − 543 = 864 tasks that FLEET's 32
 * chiplet-tasks replace. The LM head is one task per worker where the vocabulary divides
 * evenly, else 240 (`argmax_tasks`), each a contiguous slice of the vocabulary.
 */
function rocmCuTaskLinear({ op, mTiles: mt, tile, kPart }: LinearJob, workers: number): Draft[] {
  if (op.id === 'lm_head') return headTasks(op, mt, tile, op.n % workers === 0 ? workers : MPK_ROCM_HEAD_TASKS);
  const residual = op.id.endsWith('o_proj') || op.id.endsWith('down_proj');
  const width = op.id.endsWith('gate_up_proj') && op.n % 128 === 0 ? 128 : TILE_N;
  const blocks = Math.ceil(op.n / width);
  const parts = residual ? mpkRocmKSplits(blocks, op.k, workers) : 1;
  const drafts: Draft[] = [];
  for (let t = 0; t < blocks; t++) {
    for (let k = 0; k < parts; k++) {
      const tiles: Tile[] = [];
      for (const n0 of colTiles(t * width, Math.min(op.n, (t + 1) * width))) {
        for (let m = 0; m < mt; m++) tiles.push(parts === 1 ? tile(m, n0) : kPart(m, n0, k, parts));
      }
      drafts.push({ name: `${op.id}.t${t * parts + k}`, level: 'cu', partition: null, tiles });
    }
  }
  return drafts;
}

/** The ROCm demo's LM-head grid where the vocabulary does not divide over the workers (`argmax_tasks`). */
const MPK_ROCM_HEAD_TASKS = 240;

/** A linear as `tasks` CU-tasks of contiguous column ranges, each in 64-column tiles. */
function headTasks(op: LinearJob['op'], mt: number, tile: LinearJob['tile'], tasks: number): Draft[] {
  const drafts: Draft[] = [];
  for (let t = 0; t < tasks; t++) {
    const tiles: Tile[] = [];
    for (const n0 of colTiles(Math.min(op.n, splitCols(op.n, tasks, t)), Math.min(op.n, splitCols(op.n, tasks, t + 1)))) {
      for (let m = 0; m < mt; m++) tiles.push(tile(m, n0));
    }
    if (tiles.length > 0) drafts.push({ name: `${op.id}.t${t}`, level: 'cu', partition: null, tiles });
  }
  return drafts;
}

/** MPK's CU-tasks for a linear: its CUDA demo's grid, or on a backend that says so its ROCm port's. */
function cuTaskLinear(job: LinearJob, ctx: LoweringContext): Draft[] {
  if (ctx.persistentLinears?.grid === 'mpk-rocm') return rocmCuTaskLinear(job, ctx.persistentLinears.workers);
  const { op, buffers: b, weights: qw, policies: pol, mTiles: mt, tile } = job;
  // MPK's CUDA grid: 48 output columns per task, 32 for linears with a residual epilogue
  // (Qwen3-8B: 128 + 128 + 512 + 128 GEMM tasks a layer); outputs too wide for that (the
  // LM head) take 256 columns per task, MPK's rule.
  const residual = op.id.endsWith('o_proj') || op.id.endsWith('down_proj');
  // MPK sizes a linear's grid by a column count its output divides; an output 48 (32)
  // does not divide — a tensor-parallel shard such as 1280 QKV columns — takes the
  // widest of 32 and 16 that does, rather than collapsing to a few 256-column tasks.
  const fits = (w: number) => op.n % w === 0 && op.n / w <= 2048;
  const width = [residual ? 32 : 48, 32, 16].find(fits) ?? (residual ? 32 : 48);
  const narrow = fits(width);
  const tasks = narrow ? op.n / width : Math.ceil(op.n / 256);
  const drafts: Draft[] = [];
  for (let t = 0; t < tasks; t++) {
    const c0 = narrow ? t * width : Math.min(op.n, splitCols(op.n, tasks, t));
    const c1 = narrow ? c0 + width : Math.min(op.n, splitCols(op.n, tasks, t + 1));
    const tiles: Tile[] = [];
    if (narrow) for (let m = 0; m < mt; m++) tiles.push(linearTile(op, b, pol, m * 16, c0, width, 0, op.k, undefined, qw));
    else for (const n0 of colTiles(c0, c1)) for (let m = 0; m < mt; m++) tiles.push(tile(m, n0));
    if (tiles.length > 0) drafts.push({ name: `${op.id}.t${t}`, level: 'cu', partition: null, tiles });
  }
  return drafts;
}

/** FLEET's chiplet-tasks for a linear: one per partition, tiles in the schedule's traversal order. */
function chipletLinear(job: LinearJob, ctx: LoweringContext): Draft[] {
  const { op, mTiles: mt } = job;
  const drafts: Draft[] = [];
  for (let p = 0; p < ctx.partitions; p++) {
    // The partition's output tiles (batch tile, first column), in the order its workers take them.
    const cells: [number, number][] = [];
    if (ctx.schedule.traversal === 'm-split') {
      // XCD p serves batch tiles ≡ p (mod m_tiles) and an N-slice shared with the other XCDs of its group.
      const myM = mt <= ctx.partitions ? [p % mt] : range(mt).filter((m) => m % ctx.partitions === p);
      const groupSize = mt <= ctx.partitions ? Math.floor((ctx.partitions - 1 - (p % mt)) / mt) + 1 : 1;
      const idx = mt <= ctx.partitions ? Math.floor(p / mt) : 0;
      const c0 = Math.min(op.n, splitCols(op.n, groupSize, idx));
      const c1 = Math.min(op.n, splitCols(op.n, groupSize, idx + 1));
      for (const n0 of colTiles(c0, c1)) for (const m of myM) cells.push([m, n0]);
    } else {
      const c0 = Math.min(op.n, splitCols(op.n, ctx.partitions, p));
      const c1 = Math.min(op.n, splitCols(op.n, ctx.partitions, p + 1));
      if (ctx.schedule.traversal === 'n-major') {
        // N-major: consecutive workers take different weight columns: no reuse in flight.
        for (let m = 0; m < mt; m++) for (const n0 of colTiles(c0, c1)) cells.push([m, n0]);
      } else {
        // M-major: consecutive workers take the same weight columns for successive batch tiles.
        for (const n0 of colTiles(c0, c1)) for (let m = 0; m < mt; m++) cells.push([m, n0]);
      }
    }
    const parts = chipletKParts(cells.length, op.k, ctx);
    const tiles: Tile[] = [];
    for (const [m, n0] of cells) {
      if (parts === 1) tiles.push(job.tile(m, n0));
      else for (let k = 0; k < parts; k++) tiles.push(job.kPart(m, n0, k, parts));
    }
    drafts.push({ name: `${op.id}.x${p}`, level: 'chiplet', partition: p, tiles });
  }
  return drafts;
}

/**
 * K-split within a chiplet-task (FLEET, Table 5: every worker of the XCD streams one K-chunk
 * tile at a time): when a partition has fewer output tiles than workers, each tile's K loop
 * is split over as many workers as whole tiles leave room for, in whole TILE_K chunks, so the
 * XCD's workers all stream. Its workers are the partition's CUs but one (its scheduler).
 * Without the schedule's `splitK`, one worker runs a tile's whole K loop.
 */
export function chipletKParts(tiles: number, k: number, ctx: LoweringContext): number {
  if (!ctx.schedule.splitK || tiles === 0) return 1;
  const workers = Math.max(1, Math.floor(ctx.computeUnits / ctx.partitions) - 1);
  return Math.max(1, Math.min(Math.floor(workers / tiles), Math.ceil(k / TILE_K)));
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function persistentGraph(policy: string, stages: Stage[], buffers: BufferTable, opts: CompileOptions, _graph: OpGraph): TaskGraph {
  const tasks: Task[] = [];
  const events: EventCounterSpec[] = [];
  let prevEvent: number | null = null;
  let prevTasks: Task[] = [];
  for (const s of stages) {
    const collective = s.ops[0]!.kind === 'all-reduce' || s.ops[0]!.kind === 'all-gather';
    // MPK's cross-GPU protocol: a collective's slices complete when the peers' puts signal
    // them, so its event is owned by this GPU and signalled remotely (NVSHMEM put-with-signal).
    const ev = events.length;
    events.push({ id: ev, name: `${s.name}.done`, threshold: s.drafts.length, ...(collective ? { device: 0, remote: true } : {}) });
    // Slice i of a collective waits only for producer task i (the gcd of the two splits is
    // the slice count): the first slices' puts overlap the producer's remaining tiles.
    const sliced = collective && prevTasks.length === s.drafts.length && prevTasks.length > 1;
    const first = tasks.length;
    for (const d of s.drafts) {
      tasks.push(stageTask(s, d, tasks.length, { level: d.level, partition: d.partition, waits: prevEvent === null ? [] : [prevEvent], signal: ev }));
    }
    if (sliced) {
      // The producer's stage event is replaced by one event per slice (the first reuses its id).
      prevTasks.forEach((p, i) => {
        const e = i === 0 ? prevEvent! : events.length;
        events[e] = { id: e, name: `${p.name}.slice`, threshold: 1 };
        p.signal = e;
        tasks[first + i]!.waits = [e];
      });
    }
    prevEvent = ev;
    prevTasks = tasks.slice(first);
  }
  // Nobody waits on the last stage's event: drop it so every event has consumers.
  const lastEv = events.length - 1;
  for (const t of tasks) if (t.signal === lastEv) t.signal = null;
  events.pop();
  return { policy, style: 'persistent', buffers: buffers.buffers, tasks, events, kernels: [], layers: [...opts.layers] };
}

/** MPK's lowering: CU-tasks throughout. */
export const cuTaskLowering: Lowering = {
  stages: megakernelStages,
  linear: cuTaskLinear,
  grouped: (op, b, t) => cuGroupedDrafts(op, b, t),
  assemble: persistentGraph,
};

/** FLEET's lowering: linears and grouped GEMMs as chiplet-tasks, the rest as MPK's CU-tasks. */
export const chipletTaskLowering: Lowering = {
  stages: megakernelStages,
  linear: chipletLinear,
  grouped: (op, b, t, ctx) => chipletGroupedDrafts(op, b, t, ctx.partitions, ctx.schedule.expertPlacement ?? 'spread'),
  assemble: persistentGraph,
};

/**
 * How policy `name`'s megakernel is organised on a backend: the workers and schedulers the
 * backend's tuning gives it (its own layout for this policy, if it has one), the schedule's
 * counting.
 */
export function persistentOptionsFor(backend: Backend, name: string, schedule: Schedule): PersistentOptions {
  const parts = backend.topology.partitions.computeUnits;
  const t = backend.tuning.policies?.[name]?.persistent ?? backend.tuning.persistent ?? {};
  return {
    workersPerPartition: t.workersPerPartition ?? Math.min(...parts) - 1,
    chipletAware: schedule.chipletAware,
    schedulers: t.globalSchedulers ?? (t.schedulersPerPartition ?? 1) * parts.length,
    twoLevelCounting: schedule.twoLevelCounting,
    descriptorsPerFetch: MPK_DESCRIPTORS_PER_FETCH,
    descriptorBytes: t.descriptorBytes ?? MPK_TASK_DESC_BYTES,
  };
}

/**
 * MPK's worker copies up to 16 queued task descriptors into shared memory per fetch
 * (TASK_DESCS_BUFFER_LENGTH; the Mirage runtime walkthrough and the seed code).
 */
export const MPK_DESCRIPTORS_PER_FETCH = 16;

/**
 * Why a megakernel here runs no W8A8 FP8: its linear tasks are bf16 tiles (16 × 64 over K,
 * ops/src/decompose/linear.ts) that dequantise low-bit weights but have no FP8 matrix path;
 * Mirage MPK's FP8 tasks (QUANTIZE_FP8, LINEAR_FP8) exist in its Blackwell task set only.
 */
const MEGAKERNEL_FP8 = "its linear tasks are bf16 tiles; Mirage MPK's FP8 tasks (QUANTIZE_FP8, LINEAR_FP8) are Blackwell-only";

const PREFILL =
  'the megakernel schedules decode steps (one token per request, RoPE and the KV append inside attention tasks); its systems serve prefill with kernel-per-op';

/**
 * The schedule knobs MPK's CU-task lowering reads: no chiplet-tasks, so no traversal, expert
 * placement or two-level counting (the runtime counts only chiplet-tasks at two levels).
 */
const CU_TASK_KNOBS: readonly ScheduleKnob[] = ['weightPolicy', 'storePolicy', 'fuseActivation'];

/** Chiplet-task lowerings read every knob but a thread-block cluster's. */
const CHIPLET_TASK_KNOBS: readonly ScheduleKnob[] = SCHEDULE_KNOBS.filter((k) => !CLUSTER_KNOBS.includes(k));

/**
 * A persistent megakernel policy lowered by `lowering`, runnable where `requires` finds
 * nothing missing; `functional` says why `fleet verify` cannot execute it with
 * data, if so; `honours` lists the schedule knobs it reads (default: MPK's CU-task
 * lowering reads no chiplet-task knob; any other lowering every knob but a cluster's).
 */
export function megakernelPolicy(
  name: string,
  description: string,
  schedule: Schedule,
  lowering: Lowering,
  requires: (backend: Backend) => string | null = () => null,
  functional: string | null = null,
  honours: readonly ScheduleKnob[] = lowering === cuTaskLowering ? CU_TASK_KNOBS : CHIPLET_TASK_KNOBS,
): Policy {
  return {
    name,
    description,
    schedule,
    unsupportedOn: requires,
    prefill: PREFILL,
    tensorParallel: null,
    refusesOptions: (o) => noFp8Tiles(name, o.weights, MEGAKERNEL_FP8) ?? unusedOverrides(name, o.overrides, honours),
    functional: () => functional,
    compile: (graph: OpGraph, backend: Backend, s: Schedule, opts: CompileOptions): TaskGraph => lowerGraph(graph, name, s, lowering, backend.topology, opts),
    runtime: (backend, s) => ({ persistent: persistentOptionsFor(backend, name, s) }),
  };
}

/**
 * FLEET's chiplet-tasks are broadcast to one partition's workers, which share the task's
 * weight tiles in their partition's L2 and count its completion at chiplet scope: the
 * topology's chiplet level must be the partition itself (an XCD, a die), not a smaller unit
 * such as Hopper's thread-block cluster.
 */
export function chipletIsPartition(backend: Backend): string | null {
  const t = backend.topology;
  if (t.levels.chiplet.unit === t.partitions.kind) return null;
  const alternatives = backend.collectives.some((c) => c.name === 'cluster-reduce') ? 'mirage or clusterfusion' : 'mirage';
  return `FLEET's chiplet-tasks run on one partition's workers, sharing weight tiles in its L2 and counting completion at chiplet scope; ${backend.name}'s chiplet level is the ${t.levels.chiplet.unit}, not its partition (${t.partitions.kind}) — use ${alternatives}`;
}

const mpkSchedule: Schedule = {
  style: 'persistent',
  fuseActivation: false,
  splitK: false,
  weightPolicy: 'default',
  storePolicy: 'default',
  twoLevelCounting: false,
  chipletAware: false,
};

/**
 * A FLEET schedule in tile order `traversal`: streaming weights, non-temporal stores, fused
 * SiLU, two-level counting; with `splitK`, a tile's K loop split over the XCD's idle workers.
 */
export function fleetSchedule(traversal: Traversal, splitK = false): Schedule {
  return {
    style: 'persistent',
    traversal,
    fuseActivation: true,
    splitK,
    weightPolicy: 'streaming',
    storePolicy: 'nontemporal',
    twoLevelCounting: true,
    chipletAware: true,
  };
}

export const MIRAGE = megakernelPolicy('mirage', 'persistent megakernel, CU-tasks, no chiplet awareness (Mirage MPK)', mpkSchedule, cuTaskLowering);
export const FLEET_MTILE = megakernelPolicy(
  'fleet-mtile',
  'persistent, chiplet-tasks, cooperative M-major tiling, streaming weights, NT stores, fused SiLU',
  fleetSchedule('m-tile'),
  chipletTaskLowering,
  chipletIsPartition,
);
export const FLEET_MSPLIT = megakernelPolicy(
  'fleet-msplit',
  'persistent, chiplet-tasks, M-split (no weight sharing), streaming weights, NT stores, fused SiLU',
  fleetSchedule('m-split'),
  chipletTaskLowering,
  chipletIsPartition,
);
/**
 * FLEET M-tile with a chiplet-task K-split: where an XCD has fewer output tiles than workers
 * (small batch, narrow GEMMs), each tile's K loop is split over the idle workers and the
 * partial sums meet in the L2 (see `chipletKParts`). Compare with `fleet-mtile`, whose tiles
 * each run their whole K loop on one worker.
 *
 * FLEET's public code has such a gang split-K (ROCm/fleet-chiplet-megakernel,
 * gang_splitk_linear_mi300.cuh: o_proj's 8 N-tiles × 4 K-splits over the XCD's workers, fp32
 * partials merged by XCD-local atomics). `fleet-mtile` is not it: calibrated on the paper's
 * batch-1 M-tile TPOT with the split, the megakernel's bytes in flight per wave fall to ≈1.8 KB
 * and Mirage's batch 1 comes out at 10.7 ms against the published 7.83.
 */
export const FLEET_KSPLIT = megakernelPolicy(
  'fleet-ksplit',
  "persistent, chiplet-tasks, cooperative M-major tiling, each tile's K loop split over the XCD's idle workers (partial sums in L2)",
  fleetSchedule('m-tile', true),
  chipletTaskLowering,
  chipletIsPartition,
  "its K-split tiles add fp32 partial sums into an L2 workspace that the functional executor does not model; verify fleet-mtile, which runs the same tiles' whole K loops",
);
