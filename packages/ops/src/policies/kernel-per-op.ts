/**
 * Kernel-per-op: one kernel per op as the serving frameworks launch them (vLLM's fusions, or
 * PyTorch's unfused ops where the backend says so), the vendor libraries' GEMM and attention
 * kernels where the backend models them, launched eagerly or replayed as one graph.
 */
import {
  gemmTileOrder,
  graphRows,
  sameData,
  type AccessPolicy,
  type Backend,
  type GemmKernel,
  type LinearOp,
  type OpKind,
  type KernelSpec,
  type OpGraph,
  type OpNode,
  type Region,
  type RowKernel,
  type RowOp,
  type Task,
  type Tile,
  type TaskGraph,
  type TilePipeline,
  type Topology,
} from '@fleet/core';
import type { BufferTable } from '../decompose/buffers.js';
import { blasTileM, linearTile, mTiles, STEP_K, TILE_K, TILE_N, type LinearBuffers } from '../decompose/linear.js';
import { bookkeepingTile, cuGroupedDrafts, libraryGroupedDrafts } from '../decompose/moe.js';
import { mainKind, stageTask, type Draft, type Stage } from '../compile/drafts.js';
import { colTiles, gemmShape, libraryPrelayout, lowerGraph, type CompileOptions, type Lowering } from '../compile/lowering.js';
import type { Schedule } from '../compile/schedule.js';
import { linearWeightRegions, splitKBoundary } from '../quant/weight-regions.js';
import { DENSE_BF16, type QuantizedWeights } from '../quant/weight-type.js';
import type { Policy } from './policy.js';
import { unusedOverrides } from './options.js';

const EL = 2;

/** vLLM's fusions: fused_add_rms_norm (residual + the norm after it), rotary with the cache write; PyTorch's unfused ops where the backend's stack runs them so. */
function kernelStages(ops: readonly OpNode[], _schedule: Schedule, opts: CompileOptions): OpNode[][] {
  if (opts.kernels?.unfused) return ops.map((op) => [op]);
  const groups: OpNode[][] = [];
  const last = () => groups[groups.length - 1]!;
  for (const op of ops) {
    const prev = groups.length > 0 ? last()[last().length - 1]! : null;
    if (op.kind === 'rmsnorm' && prev?.kind === 'residual') {
      last().push(op);
      continue;
    }
    if (op.kind === 'kv-append' && prev?.kind === 'rope') {
      last().push(op);
      continue;
    }
    groups.push([op]);
  }
  return groups;
}

/** A split-K boundary snapped down to a whole K-chunk (the end of K stays the end). */
function chunkBoundary(k: number, total: number): number {
  return k >= total ? total : Math.floor(k / TILE_K) * TILE_K;
}

/** The kernel-per-op family's lowering: library GEMMs, grouped GEMMs and one kernel per stage. */
export const kernelPerOpLowering: Lowering = {
  stages: kernelStages,
  linear({ op, buffers: stored, weights: storedType, policies: pol, fusedAct }, ctx): Draft[] {
    // Vendor BLAS: the backend's library picks the tile and split-K; without one, one
    // workgroup per (batch tile × 64 columns), batch tiles of up to 64 rows, split K (in whole
    // K-chunks) only while the grid stays within one wave of the device.
    const chosen = ctx.library?.gemm(gemmShape(op, storedType));
    let b = stored;
    let qw = storedType;
    if (chosen?.predequantize && storedType.kind === 'quantized' && stored.dequant !== undefined) {
      // Dequantize-then-GEMM: a kernel first expands the weight into a dense workspace, which
      // the GEMM then reads as bf16 weights.
      ctx.prologue?.(dequantDrafts(op, stored, storedType, pol.weight, chosen, stored.dequant));
      b = { x: stored.x, w: stored.dequant, y: stored.y };
      qw = DENSE_BF16;
    }
    const bm = chosen ? chosen.tileRows : blasTileM(op.m);
    const tileN = chosen ? chosen.tileCols : TILE_N;
    const bmt = mTiles(op, bm);
    // A library kernel reads quantized weights in its own packing: whole tiles of its columns,
    // dequantized the kernel's own way.
    const shape = {
      rows: bm,
      maskedRows: chosen?.maskedRows,
      ...(chosen?.matrixFlopsScale ? { matrixFlopsScale: chosen.matrixFlopsScale } : {}),
      ...(chosen && qw.kind === 'quantized'
        ? {
            prelayout: libraryPrelayout(chosen),
            ...(chosen.dequantFlopsPerElement === undefined ? {} : { dequantFlopsPerElement: chosen.dequantFlopsPerElement }),
          }
        : {}),
    };
    const grid = bmt * Math.ceil(op.n / tileN);
    const ks = chosen
      ? Math.min(chosen.splitK, Math.max(1, Math.floor(op.k / TILE_K)))
      : ctx.schedule.splitK && grid < ctx.computeUnits
        ? Math.max(1, Math.min(Math.floor(op.k / TILE_K), Math.floor(ctx.computeUnits / grid)))
        : 1;
    const drafts: Draft[] = [];
    const cols = colTiles(0, op.n, tileN);
    // The tiles in the order the kernel's scheduler walks them: which operands a wave keeps in the L2.
    for (const [m, c] of gemmTileOrder(chosen, bmt, cols.length)) {
      const n0 = cols[c]!;
      for (let s = 0; s < ks; s++) {
        const k0 = chunkBoundary(splitKBoundary(qw, op.k, s, ks), op.k);
        const k1 = chunkBoundary(splitKBoundary(qw, op.k, s + 1, ks), op.k);
        if (k1 <= k0) continue;
        const tn = Math.min(tileN, op.n - n0);
        const t = fusedAct
          ? linearTile(op, b, pol, m * bm, n0, tn, k0, k1 - k0, { cols: Math.floor(tn / 2), ldOut: op.n / 2, col0: Math.floor(n0 / 2) }, qw, shape)
          : linearTile(op, b, pol, m * bm, n0, tn, k0, k1 - k0, undefined, qw, shape);
        if (chosen) t.pipeline = chosen.pipeline;
        if (chosen?.tileFixedNs) t.fixedNs = (t.fixedNs ?? 0) + chosen.tileFixedNs;
        drafts.push({ name: `${op.id}.wg${drafts.length}`, level: 'cu', partition: null, tiles: [t] });
      }
    }
    return drafts;
  },
  grouped(op, b, t, ctx): Draft[] {
    if (!ctx.library) return cuGroupedDrafts(op, b, t);
    const lib =
      op.role === 'experts'
        ? ctx.library.groupedGemm?.({ groups: op.groups.map((g) => g.rows), n: op.n, k: op.k, weightBytes: EL, numGroups: op.numGroups })
        : undefined;
    if (lib) {
      return libraryGroupedDrafts(op, b, lib, {
        ...t,
        tileRows: lib.tileRows,
        tileCols: lib.tileCols,
        clusterRows: lib.clusterRows ?? 1,
        maskedRows: true,
        pipeline: lib.pipeline,
      });
    }
    // Per-head batched GEMMs (or a library without a grouped kernel): its GEMM tiles per group.
    const g = ctx.library.gemm({ m: op.groups[0]?.rows ?? 1, n: op.n, k: op.k, weightBytes: EL });
    return cuGroupedDrafts(op, b, { ...t, tileRows: g.tileRows, tileCols: g.tileCols, maskedRows: g.maskedRows ?? false, pipeline: g.pipeline });
  },
  assemble: kernelGraph,
};

/** Columns of the weight one workgroup of a dequantization kernel expands. */
const DEQUANT_COLS = 128;

/**
 * The kernel a dequantize-then-GEMM runs first: one workgroup per DEQUANT_COLS weight rows
 * reads their codes and group parameters over all of K and writes them back as bf16 into the
 * workspace the GEMM reads.
 */
function dequantDrafts(op: LinearOp, b: LinearBuffers, wt: QuantizedWeights, policy: AccessPolicy, kernel: GemmKernel, workspace: number): Draft[] {
  const how = kernel.predequantize!;
  const drafts: Draft[] = [];
  for (const n0 of colTiles(0, op.n, DEQUANT_COLS)) {
    const tn = Math.min(DEQUANT_COLS, op.n - n0);
    drafts.push({
      name: `${op.id}.dequant${drafts.length}`,
      level: 'cu',
      partition: null,
      tiles: [
        {
          reads: linearWeightRegions(wt, op, { w: b.w, scales: b.scales }, n0, tn, 0, op.k, policy, libraryPrelayout(kernel)),
          writes: [{ buffer: workspace, offset: n0 * op.k * EL, bytes: tn * op.k * EL, policy: 'default' }],
          flops: 0,
          unit: 'vector',
          vectorFlops: how.dequantFlopsPerElement * tn * op.k,
          steps: Math.max(1, Math.ceil(op.k / STEP_K)),
          pipeline: how.pipeline,
        },
      ],
    });
  }
  return drafts;
}

/** Whether a tile's regions are all contiguous byte ranges (an elementwise pass): only those are cut. */
function contiguous(t: Tile): boolean {
  return [...t.reads, ...t.writes].every((r) => (r.rows ?? 1) <= 1);
}

/**
 * The part of an elementwise tile from `from`/`den` to `to`/`den` of its elements: that slice
 * of every operand (the ops an elementwise kernel runs read and write rows alike, so the
 * slices line up), cut at whole elements, and its share of the FLOPs.
 */
function sliceTile(t: Tile, from: number, to: number, den: number): Tile {
  const slice = (r: Region): Region => {
    const units = r.bytes / EL;
    const a = Math.floor((from * units) / den) * EL;
    const b = Math.floor((to * units) / den) * EL;
    return { ...r, offset: r.offset + a, bytes: b - a };
  };
  return { ...t, reads: t.reads.map(slice), writes: t.writes.map(slice), flops: (t.flops * (to - from)) / den };
}

/**
 * An elementwise tile cut into `parts` workgroups of consecutive elements. Tiles with strided
 * regions are left whole.
 */
function sliceElementwise(t: Tile, parts: number): Tile[] {
  if (parts <= 1 || !contiguous(t)) return [t];
  return Array.from({ length: parts }, (_, i) => sliceTile(t, i, i + 1, parts));
}

/**
 * A row op's drafts cut where its rows change tensor (`bounds`: the first row of each tensor
 * after the first, in the op's rows of `cols` elements, contiguous from the first tile's
 * start). A draft whose contiguous tile straddles a boundary is cut there.
 */
function draftsByTensor(drafts: readonly Draft[], bounds: readonly number[], cols: number): Draft[][] {
  const first = drafts[0]?.tiles[0]?.writes[0];
  if (!first) return [[...drafts]];
  const out: Draft[][] = [...bounds, 0].map(() => []);
  const edges = bounds.map((r) => first.offset + r * cols * EL);
  const tensorOf = (offset: number) => edges.filter((e) => offset >= e).length;
  for (const d of drafts) {
    const t = d.tiles[0]!;
    const w = t.writes[0]!;
    const lo = tensorOf(w.offset);
    const hi = tensorOf(w.offset + w.bytes - EL);
    if (d.tiles.length !== 1 || lo === hi || !contiguous(t)) {
      out[lo]!.push(d);
      continue;
    }
    // Element counts of the tile: its cuts at each boundary it straddles.
    const den = w.bytes / EL;
    let from = 0;
    for (let i = lo; i <= hi; i++) {
      const to = i < hi ? (edges[i]! - w.offset) / EL : den;
      if (to > from) out[i]!.push({ ...d, name: `${d.name}.x${i}`, tiles: [sliceTile(t, from, to, den)] });
      from = to;
    }
  }
  return out.filter((x) => x.length > 0);
}

/**
 * Where a row op's rows change tensor, for the ops a framework runs once per tensor: PyTorch
 * applies rotary embedding to q and to k in separate calls (x·cos, the negated half, cat, ·sin,
 * add: five kernels each), so each kernel moves one tensor's elements, not both. The op's rows
 * are every token's q heads, then its k heads (core's decode graph); the layer's attention op
 * gives the heads. Null where the op is not split so (MLA's latent RoPE, no attention op).
 */
function tensorRowBounds(op: OpNode, graph: OpGraph): number[] | null {
  if (op.kind !== 'rope' || op.inputs.length > 1) return null;
  const attn = graph.ops.find((o) => o.kind === 'attention' && o.layer === op.layer);
  if (attn?.kind !== 'attention' || attn.latent) return null;
  const tokens = op.rows / (attn.heads + attn.kvHeads);
  if (!Number.isInteger(tokens)) return null;
  return [tokens * attn.heads];
}

/**
 * A framework row kernel's tiles: a workgroup keeps only its threads' outstanding loads in
 * flight, and spends its fixed time outside the stream. An elementwise kernel's workgroups
 * each take a fixed number of elements. Workgroups beyond one per compute unit are resident
 * together, up to the kernel's occupancy, and overlap both.
 */
function rowKernelDrafts(drafts: readonly Draft[], rk: RowKernel | undefined, computeUnits: number): readonly Draft[] {
  if (!rk) return drafts;
  // An elementwise kernel's grid: its elements over a workgroup's. The simulation runs at most
  // a wave of it (every unit full) as separate tasks; a larger grid's tasks each stand for
  // several workgroups, one after another on their unit.
  let sliced = drafts;
  let perTask = 1;
  const elements = (t: Tile) => t.writes.reduce((a, w) => a + w.bytes, 0) / EL;
  if (rk.elementsPerTile && drafts.every((d) => d.tiles.length === 1)) {
    const total = drafts.reduce((a, d) => a + elements(d.tiles[0]!), 0);
    const grid = Math.ceil(total / rk.elementsPerTile);
    const tasks = Math.min(grid, Math.max(drafts.length, computeUnits * (rk.residentTiles ?? 1)));
    if (tasks > drafts.length) {
      sliced = drafts.flatMap((d) => {
        const parts = sliceElementwise(d.tiles[0]!, Math.max(1, Math.round((tasks * elements(d.tiles[0]!)) / total)));
        return parts.length === 1 ? [d] : parts.map((p, i) => ({ ...d, name: `${d.name}.e${i}`, tiles: [p] }));
      });
    }
    perTask = Math.max(1, grid / sliced.length);
  }
  const tiles = sliced.reduce((a, d) => a + d.tiles.length, 0);
  const resident = Math.max(1, Math.min(rk.residentTiles ?? 1, Math.ceil(tiles / computeUnits)));
  const pipeline: TilePipeline | undefined =
    rk.inFlightBytes === undefined ? undefined : { inFlightBytes: rk.inFlightBytes * resident, overlap: 1, residentTiles: resident };
  return sliced.map((d) => ({
    ...d,
    tiles: d.tiles.map((t) => {
      if (t.pipeline) return t;
      const fixed = ((rk.fixedNs ?? 0) * perTask) / (pipeline ? 1 : resident);
      const index = (rk.vectorFlopsPerElement ?? 0) * elements(t);
      return {
        ...t,
        ...(pipeline ? { pipeline } : {}),
        ...(fixed > 0 ? { fixedNs: (t.fixedNs ?? 0) + fixed } : {}),
        ...(index > 0 ? { vectorFlops: (t.vectorFlops ?? 0) + index } : {}),
      };
    }),
  }));
}

function kernelGraph(policy: string, stages: Stage[], buffers: BufferTable, opts: CompileOptions, graph: OpGraph, computeUnits: number): TaskGraph {
  const tasks: Task[] = [];
  const kernels: KernelSpec[] = [];
  const addKernel = (s: Stage, name: string, drafts: readonly Draft[]) => {
    const k: KernelSpec = { id: kernels.length, name, opIds: s.ops.map((o) => o.id), layer: s.layer, tasks: [] };
    for (const d of drafts) {
      k.tasks.push(tasks.length);
      tasks.push(stageTask(s, d, tasks.length, { level: 'cu', partition: null, waits: [], signal: null, kernel: k.id }));
    }
    kernels.push(k);
  };
  const perOp = opts.kernels?.perOp ?? {};
  for (const s of stages) {
    const kind = mainKind(s);
    const passes = s.ops.length === 1 ? Math.max(1, perOp[kind] ?? 1) : 1;
    const heads = s.ops.some((o) => o.kind === 'grouped-linear' && o.role === 'heads');
    if (MOE_KINDS.has(kind) && !heads && passes > 1) {
      // A framework's MoE op is one data kernel after bookkeeping kernels over the routing
      // indices (argsort, histogram, prefix sum, pointer setup…), each one small workgroup.
      const op = s.ops[0]!;
      const slots =
        op.kind === 'grouped-linear'
          ? op.groups.reduce((a, g) => a + g.rows, 0)
          : op.kind === 'moe-dispatch'
            ? op.rows
            : graphRows(graph) * ((op as RowOp).topK ?? 1);
      const index = buffers.add('moe_index', graphRows(graph) * 64 * 8, 'activation');
      const fixedNs = opts.kernels?.routingKernelFixedNs ?? 0;
      const withFixed = (t: Tile): Tile => (fixedNs > 0 ? { ...t, fixedNs: (t.fixedNs ?? 0) + fixedNs } : t);
      for (let i = 1; i < passes; i++) {
        addKernel(s, `${s.name}#${i}`, [{ name: `${s.name}.index${i}`, level: 'cu', partition: null, tiles: [withFixed(bookkeepingTile(index, slots))] }]);
      }
      // The routing ops' own data kernel (top-k, the gather, the scatter-add) is one of them;
      // the grouped GEMM's is the GEMM.
      const routing = kind !== 'grouped-linear' && fixedNs > 0;
      addKernel(s, s.name, routing ? s.drafts.map((d) => ({ ...d, tiles: d.tiles.map(withFixed) })) : s.drafts);
      if (s.epilogue) addKernel(s, `${s.name}.combine`, s.epilogue);
      continue;
    }
    if (heads) {
      addKernel(s, s.name, s.drafts);
      continue;
    }
    if (s.prologue) addKernel(s, `${s.name}.dequant`, s.prologue);
    const rk = opts.kernels?.rowKernels?.[kind];
    const bounds = passes > 1 ? tensorRowBounds(s.ops[0]!, graph) : null;
    const tensors = bounds ? draftsByTensor(s.drafts, bounds, (s.ops[0] as RowOp).cols) : null;
    if (tensors && tensors.length > 1 && passes % tensors.length === 0) {
      // One tensor's kernels after the other's, each with its own grid.
      const per = passes / tensors.length;
      tensors.forEach((t, j) => {
        const drafts = rowKernelDrafts(t, rk, computeUnits);
        for (let i = 0; i < per; i++) addKernel(s, `${s.name}#${j * per + i + 1}`, drafts);
      });
    } else {
      const drafts = s.ops.length === 1 ? rowKernelDrafts(s.drafts, rk, computeUnits) : s.drafts;
      for (let i = 0; i < passes; i++) addKernel(s, passes > 1 ? `${s.name}#${i + 1}` : s.name, drafts);
    }
    if (s.epilogue) addKernel(s, `${s.name}.combine`, s.epilogue);
    if (opts.kernels?.splitKReduce && kind === 'linear') {
      const rk = opts.kernels.splitKReduceKernel;
      const reduce = splitKReduce(s, buffers, computeUnits * (rk?.residentTiles ?? 1), (rk?.fixedNs ?? 0) / (rk?.residentTiles ?? 1));
      if (reduce) addKernel(s, `${s.name}.reduce`, rowKernelDrafts(reduce, rk, computeUnits));
    }
  }
  return { policy, style: 'kernel-per-op', buffers: buffers.buffers, tasks, events: [], kernels, layers: [...opts.layers] };
}

/** cuBLASLt's `splitKreduce_kernel<32, 16, …>`: a CTA of 32 × 16 threads per 32 columns × 16 rows (MEAS ours: grid [N/32, M/16]). */
const REDUCE_COLS = 32;
const REDUCE_ROWS = 16;

/**
 * cuBLAS's split-K epilogue kernel: when a GEMM's workgroups split K, partial sums (fp32)
 * are written to a workspace and a second kernel reduces them into the output, a workgroup
 * per block of columns and rows as cuBLASLt launches it. The simulation runs at most `wave`
 * workgroups: a larger grid's tasks each take several row blocks of their columns.
 */
function splitKReduce(s: Stage, buffers: BufferTable, wave: number, fixedNs: number): Draft[] | null {
  const op = s.ops.find((o) => o.kind === 'linear') as LinearOp | undefined;
  if (!op) return null;
  const parts = new Map<number, number>();
  for (const d of s.drafts)
    for (const t of d.tiles) {
      const w = t.writes[0];
      if (w) parts.set(w.offset, (parts.get(w.offset) ?? 0) + 1);
    }
  // A loop, not Math.max(...values): a grid of small tiles over a wide op has more partial
  // sums than the call stack holds arguments.
  let splits = 0;
  for (const c of parts.values()) if (c > splits) splits = c;
  if (splits <= 1) return null;
  // Workspace rows of `splits` partial rows of N fp32 each.
  const ws = buffers.add(`${op.id}.splitk_workspace`, splits * op.m * op.n * 4, 'activation');
  const y = buffers.id(op.outputs[0]!);
  const drafts: Draft[] = [];
  const colBlocks = Math.ceil(op.n / REDUCE_COLS);
  const rowBlocks = Math.ceil(op.m / REDUCE_ROWS);
  // Workgroups each task stands for, one after another on its unit (their fixed time with them).
  const merged = Math.ceil((rowBlocks * colBlocks) / Math.max(wave, colBlocks));
  const blockRows = REDUCE_ROWS * merged;
  for (let r0 = 0; r0 < op.m; r0 += blockRows) {
    const rows = Math.min(blockRows, op.m - r0);
    for (let c0 = 0; c0 < op.n; c0 += REDUCE_COLS) {
      const cols = Math.min(REDUCE_COLS, op.n - c0);
      const tile: Tile = {
        reads: Array.from({ length: rows }, (_, i) => ({
          buffer: ws,
          offset: ((r0 + i) * splits * op.n + c0) * 4,
          bytes: cols * 4,
          rows: splits,
          strideBytes: op.n * 4,
          policy: 'default' as const,
        })),
        writes: Array.from({ length: rows }, (_, i) => ({ buffer: y, offset: ((r0 + i) * op.n + c0) * EL, bytes: cols * EL, policy: 'default' as const })),
        flops: rows * cols * splits,
        unit: 'vector',
        ...(merged > 1 ? { fixedNs: (Math.ceil(rows / REDUCE_ROWS) - 1) * fixedNs } : {}),
      };
      drafts.push({ name: `${op.id}.reduce.r${r0}c${c0}`, level: 'cu', partition: null, tiles: [tile] });
    }
  }
  return drafts;
}

/** Op kinds whose framework kernels are one data kernel plus routing bookkeeping. */
const MOE_KINDS: ReadonlySet<OpKind> = new Set(['moe-topk', 'moe-dispatch', 'moe-combine', 'grouped-linear']);

/** The schedule of a kernel-per-op policy launched `launchMode`. */
export function kernelSchedule(launchMode: 'eager' | 'graph'): Schedule {
  return {
    style: 'kernel-per-op',
    launchMode,
    fuseActivation: false,
    splitK: true,
    weightPolicy: 'default',
    storePolicy: 'default',
    twoLevelCounting: false,
    chipletAware: false,
  };
}

/** The schedule knobs kernel-per-op lowering reads. */
const KERNEL_KNOBS = ['weightPolicy', 'storePolicy'] as const;

/** Kernel task graphs compiled lately, with what they were compiled from. */
const compiled: { topology: Topology; graph: OpGraph; knobs: Schedule; opts: CompileOptions; result: TaskGraph }[] = [];
/** How many: a comparison compiles one policy's batch sizes before the next policy's. */
const COMPILED = 4;

/**
 * The kernels of a step. How they are launched (eagerly, or replayed as a graph) is the
 * runtime's business, so lowering never sees `launchMode`, and a step compiled again from
 * equal inputs (compared as data: the op graph, the schedule's other knobs, the options, the
 * same device) takes the task graph compiled before, under this policy's name:
 * `kernel-per-op-graph` runs `kernel-per-op`'s kernels without compiling them again. Compiled
 * task graphs are never changed afterwards (the simulation memo keeps them too), so the two
 * share one.
 */
function kernelTaskGraph(name: string, graph: OpGraph, backend: Backend, schedule: Schedule, opts: CompileOptions): TaskGraph {
  const { launchMode: _, ...knobs } = schedule;
  const topology = backend.topology;
  for (const e of compiled) {
    if (e.topology === topology && sameData(e.knobs, knobs) && sameData(e.opts, opts) && sameData(e.graph, graph)) {
      return e.result.policy === name ? e.result : { ...e.result, policy: name };
    }
  }
  const result = lowerGraph(graph, name, knobs, kernelPerOpLowering, topology, opts);
  compiled.unshift({ topology, graph, knobs, opts, result });
  if (compiled.length > COMPILED) compiled.pop();
  return result;
}

/** A kernel-per-op policy: every backend runs one (kernels need nothing of the topology). */
function kernelPerOp(name: string, description: string, launchMode: 'eager' | 'graph'): Policy {
  return {
    name,
    description,
    schedule: kernelSchedule(launchMode),
    unsupportedOn: () => null,
    prefill: null,
    tensorParallel: null,
    // The framework's kernels: cache policies apply to their loads and stores; fusions are the framework's own.
    refusesOptions: (o) => unusedOverrides(name, o.overrides, KERNEL_KNOBS),
    functional: () => null,
    compile: (graph: OpGraph, backend: Backend, schedule: Schedule, opts: CompileOptions): TaskGraph => kernelTaskGraph(name, graph, backend, schedule, opts),
    runtime: (_backend, schedule) => ({ launchMode: schedule.launchMode }),
  };
}

export const KERNEL_PER_OP = kernelPerOp('kernel-per-op', 'one kernel per op (vLLM-style fusions), eager launches, vendor BLAS with split-K', 'eager');
export const KERNEL_PER_OP_GRAPH = kernelPerOp('kernel-per-op-graph', 'the same kernels replayed as one CUDA/HIP graph', 'graph');
