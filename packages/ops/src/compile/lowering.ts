import {
  inputError,
  type CollectiveModel,
  type AttentionOp,
  type CollectiveOp,
  type GroupedLinearOp,
  type KernelGranularity,
  type GemmShape,
  type KernelLibrary,
  type LinearOp,
  type OpGraph,
  type OpNode,
  type Region,
  type RowOp,
  type TaskGraph,
  type DecodeAttentionKernel,
  type Tile,
  type TilePipeline,
  type Topology,
} from '@fleet/core';
import { attentionTiles, DEFAULT_PREFILL_TILING, inMappingOrder, prefillAttentionTiles, streamChunks, withRowTile } from '../decompose/attention.js';
import { BufferTable } from '../decompose/buffers.js';
import { linearTile, mTiles, TILE_K, TILE_N, type LinearBuffers, type LinearPolicies } from '../decompose/linear.js';
import { rowTiles, type RowOperand } from '../decompose/row-ops.js';
import { defaultGroupedTiling, mlaDecodeDrafts, type GroupedTiling } from '../decompose/moe.js';
import type { Schedule } from './schedule.js';
import type { Draft, Stage } from './drafts.js';
import { quantizesLinear, weightBufferBytes } from '../quant/weight-regions.js';
import { DENSE_BF16, type WeightType } from '../quant/weight-type.js';
import type { PrelayoutTiles } from '../quant/prelayout.js';

export interface CompileOptions {
  /** Decoder layers to compile (a sample); embedding and head are always included. */
  layers: readonly number[];
  /** Type of the decoder layers' linear weights (default bf16; the LM head stays dense). */
  weights?: WeightType;
  /**
   * Kernel-per-op policies: the framework's kernel granularity on this backend. `unfused`:
   * no fusion across ops; `perOp`: kernels one op of a kind takes (a chain of elementwise
   * passes, e.g. RoPE as PyTorch runs it); `splitKReduce`: split-K GEMMs end with a separate
   * reduction kernel (cuBLAS).
   */
  kernels?: KernelGranularity;
  /** Cluster policies (`clusterfusion`): cluster size, dataflow, the backend's collectives. */
  cluster?: {
    size?: number;
    dataflow?: 'split-token' | 'split-head';
    collectives?: readonly CollectiveModel[];
    maxActiveClusters?: number;
    /** CTAs of the cluster kernel resident per compute unit. */
    ctasPerUnit?: number;
    /** How a CTA of the cluster kernel streams its tiles (default: the backend's kernel pipeline). */
    pipeline?: TilePipeline;
  };
  /**
   * Kernel-per-op policies: the backend's model of its vendor libraries (GEMM tiles, split-K,
   * split-KV, pipelines). Without one, ops' default decomposition is used.
   */
  library?: KernelLibrary;
  /**
   * Tensor-parallel steps: how the backend runs a collective op — NCCL/RCCL's time for the
   * message (kernel-per-op policies: one library kernel of `channels` CTAs) and, for
   * persistent megakernels, the interconnect's one-way put-with-signal latency (MPK's
   * NVSHMEM tasks move the bytes over the link as tiles, priced by the simulation).
   */
  collective?: (op: CollectiveOp) => { libraryNs: number; channels: number; signalNs: number; algorithm: string };
  /** Persistent CU-task policies: the backend's MPK linear grid and the megakernel's workers (see `PersistentTuning.linearGrid`). */
  persistentLinears?: PersistentLinears;
}

/** MPK's linear grid on a backend, and the workers its split-K rule fills. */
export interface PersistentLinears {
  grid: 'mpk-rocm';
  workers: number;
}

const EL = 2;

/**
 * What a policy family decides when it lowers an op graph to tasks; the kernels'
 * decompositions (attention, row ops, collectives, MLA) are shared.
 */
export interface Lowering {
  /** Which ops share a stage: one kernel, or one dependency stage of a persistent kernel. */
  stages(ops: readonly OpNode[], schedule: Schedule, opts: CompileOptions): OpNode[][];
  /** The tasks of a linear op. */
  linear(job: LinearJob, ctx: LoweringContext): Draft[];
  /** The tasks of a grouped GEMM (MoE experts, MLA's per-head absorptions). */
  grouped(op: GroupedLinearOp, operands: GroupedOperands, tiling: GroupedTiling, ctx: LoweringContext): Draft[];
  /** The task graph of the lowered stages: chained by event counters, or one kernel each. */
  assemble(policy: string, stages: Stage[], buffers: BufferTable, opts: CompileOptions, graph: OpGraph, computeUnits: number): TaskGraph;
}

/** What a family's decompositions see of the device and the schedule. */
export interface LoweringContext {
  schedule: Schedule;
  /** Partitions (XCDs, GPCs) and compute units of the device. */
  partitions: number;
  computeUnits: number;
  /** The vendor libraries' kernel selection (kernel-per-op schedules only). */
  library?: KernelLibrary;
  /** Kernel-per-op: run these drafts as a kernel before the stage's own (a dequantize-then-GEMM's expansion). */
  prologue?(drafts: Draft[]): void;
  /** Persistent CU-task policies: the backend's MPK linear grid, if not MPK's CUDA one. */
  persistentLinears?: PersistentLinears;
}

/** A linear op to decompose: its buffers, weight type, cache policies and fused activation. */
export interface LinearJob {
  op: LinearOp;
  buffers: LinearBuffers;
  weights: WeightType;
  policies: LinearPolicies;
  /** SiLU·mul fused into the epilogue: the output is half as wide. */
  fusedAct: boolean;
  /** Batch tiles of 16 rows. */
  mTiles: number;
  /** The full-K tile of 16 rows at batch tile `m` and columns `n0`..+TILE_N. */
  tile(m: number, n0: number): Tile;
  /**
   * Part `part` of `parts` of that tile's K loop (whole TILE_K chunks): it adds its fp32
   * partial sums into a workspace in the L2 (an L2-local atomic add), and the last part runs
   * the epilogue on the sum (the output store, SiLU·mul, the residual).
   */
  kPart(m: number, n0: number, part: number, parts: number): Tile;
}

export type GroupedOperands = { x: number; w: number; y: number };

/** Output columns from `c0` to `c1` in steps of `step` (default `TILE_N`). */
export function colTiles(c0: number, c1: number, step = TILE_N): number[] {
  const out: number[] = [];
  for (let n0 = c0; n0 < c1; n0 += step) out.push(n0);
  return out;
}

/** The first column of part `i` of `parts` over `total` columns, in whole `TILE_N` tiles. */
export function splitCols(total: number, parts: number, i: number): number {
  return Math.floor((Math.ceil(total / TILE_N) * i) / parts) * TILE_N;
}

/**
 * Lower a step's op graph to a task graph: the family groups ops into stages and decomposes
 * linears and grouped GEMMs; persistent schedules chain stages with event counters (a stage
 * waits for the previous stage's tasks; chiplet-tasks count once each), kernel-per-op
 * schedules make each stage a kernel.
 */
export function lowerGraph(graph: OpGraph, policy: string, schedule: Schedule, family: Lowering, topology: Topology, opts: CompileOptions): TaskGraph {
  const keepLayer = new Set([-1, graph.layers, ...opts.layers]);
  for (const l of opts.layers) if (!(l >= 0 && l < graph.layers)) throw inputError(`layer ${l} is out of range 0..${graph.layers - 1}`);
  const ops = graph.ops.filter((o) => keepLayer.has(o.layer));
  const layerOfTensor = (name: string) => {
    const m = /^L(\d+)\./.exec(name);
    return m ? Number(m[1]) : -1;
  };
  const buffers = new BufferTable(graph, (n) => {
    const l = layerOfTensor(n);
    return l < 0 || keepLayer.has(l);
  });
  const wt = opts.weights ?? DENSE_BF16;
  const library = schedule.style === 'kernel-per-op' ? opts.library : undefined;
  if (wt.kind === 'fp8') {
    for (const op of ops) {
      if (op.kind !== 'linear' || !quantizesLinear(op, graph.layers)) continue;
      const b = weightBufferBytes(wt, op.n, op.k);
      buffers.resize(op.weight, b.weights);
      buffers.add(`${op.weight}.scales`, b.scales, 'weight');
    }
  }
  if (wt.kind === 'quantized') {
    for (const op of ops) {
      if (op.kind !== 'linear' || !quantizesLinear(op, graph.layers)) continue;
      // A library kernel stores the codes in its own packing: whole tiles of its columns.
      const kernel = library?.gemm(gemmShape(op, wt));
      const b = weightBufferBytes(wt, op.n, op.k, kernel ? libraryPrelayout(kernel) : undefined);
      buffers.resize(op.weight, b.weights);
      buffers.add(`${op.weight}.scales`, b.scales, 'weight');
      // Dequantize-then-GEMM: the dense copy the GEMM reads, rewritten every step.
      if (kernel?.predequantize) buffers.add(`${op.weight}.dequant`, op.n * op.k * EL, 'activation');
    }
  }
  const ctx = new StageLowering(graph, policy, schedule, family, topology, buffers, wt, library, opts.collective, opts.persistentLinears);
  const stages: Stage[] = family.stages(ops, schedule, opts).flatMap((group) => {
    const drafts = ctx.stage(group);
    const prologue = ctx.takePrologue();
    const s: Stage = {
      name: group.map((o) => o.id).join('+'),
      layer: group[0]!.layer,
      ops: group,
      drafts,
      epilogue: ctx.takeEpilogue(),
      ...(prologue ? { prologue } : {}),
    };
    // A persistent kernel runs a stage's epilogue (MLA's split-KV combine) as the next dependency stage.
    if (schedule.style === 'persistent' && s.epilogue)
      return [
        { ...s, epilogue: undefined },
        { name: `${s.name}.combine`, layer: s.layer, ops: group, drafts: s.epilogue },
      ];
    return [s];
  });
  return family.assemble(
    policy,
    stages,
    buffers,
    opts,
    graph,
    topology.partitions.computeUnits.reduce((a, b) => a + b, 0),
  );
}

/** Lowers one stage at a time; the family decides linears and grouped GEMMs. */
class StageLowering {
  private readonly ctx: LoweringContext;

  constructor(
    private readonly graph: OpGraph,
    private readonly policy: string,
    private readonly schedule: Schedule,
    private readonly family: Lowering,
    topology: Topology,
    private readonly buf: BufferTable,
    private readonly wt: WeightType,
    private readonly library: KernelLibrary | undefined,
    private readonly collectiveOf?: CompileOptions['collective'],
    persistentLinears?: PersistentLinears,
  ) {
    const cus = topology.partitions.computeUnits;
    this.ctx = {
      schedule,
      partitions: cus.length,
      computeUnits: cus.reduce((a, b) => a + b, 0),
      ...(library ? { library } : {}),
      ...(persistentLinears && schedule.style === 'persistent' ? { persistentLinears } : {}),
      prologue: (d) => {
        this.prologue = d;
      },
    };
  }

  private epilogue: Draft[] | undefined;
  private prologue: Draft[] | undefined;

  /** The kernel the last stage asked to run before its own, if any (cleared once taken). */
  takePrologue(): Draft[] | undefined {
    const p = this.prologue;
    this.prologue = undefined;
    return p;
  }

  /** The epilogue kernel the last stage asked for, if any (cleared once taken). */
  takeEpilogue(): Draft[] | undefined {
    const e = this.epilogue;
    this.epilogue = undefined;
    return e;
  }

  /** The drafts of the stage compiled last (a collective slices its buffer as its producer's tasks do). */
  private prevDrafts: Draft[] = [];

  stage(group: readonly OpNode[]): Draft[] {
    const d = this.stageDrafts(group);
    this.prevDrafts = d;
    return d;
  }

  /**
   * A collective over the tensor-parallel ranks. Kernel-per-op: the library's kernel, one CTA
   * per channel, each moving its share of the buffer, the whole kernel taking the library's
   * time for the message. Persistent (MPK's NVSHMEM tasks): one task per slice of the output
   * columns, as many as the producing op has tasks so that slice i can start as soon as
   * producer task i is done; each puts its slice to the N − 1 peers with a signal (bytes on
   * the link, shared by all slices in flight), waits for theirs and sums them.
   */
  private collective(op: CollectiveOp, producer: readonly Draft[]): Draft[] {
    const how = this.collectiveOf?.(op);
    if (!how) throw inputError(`${op.id}: a ${op.kind} over ${op.devices} devices needs the backend's collective model (a node)`);
    const input = this.buf.id(op.inputs[0]!);
    const output = this.buf.id(op.outputs[0]!);
    const n = op.devices;
    const rowBytes = op.cols * EL;
    const outRowBytes = op.kind === 'all-gather' ? rowBytes * n : rowBytes;
    if (this.schedule.style !== 'persistent') {
      const parts = Math.max(1, Math.min(how.channels, op.rows * Math.ceil(rowBytes / 4096)));
      const tiles = rowTiles(
        op.rows,
        parts,
        [{ buffer: input, bytesPerRow: rowBytes }],
        [{ buffer: output, bytesPerRow: outRowBytes }],
        op.kind === 'all-reduce' ? (n - 1) * op.cols : 0,
      );
      return tiles.map((t, i) => ({
        name: `${op.id}.${how.algorithm}.c${i}`,
        level: 'cu' as const,
        partition: null,
        tiles: [{ ...t, fixedNs: how.libraryNs }],
      }));
    }
    const slices = Math.max(1, producer.length);
    const recv = this.buf.add(`${op.id}.recv`, (n - 1) * op.rows * rowBytes, 'activation');
    const drafts: Draft[] = [];
    for (let i = 0; i < slices; i++) {
      const c0 = Math.floor((op.cols * i) / slices);
      const c1 = Math.floor((op.cols * (i + 1)) / slices);
      if (c1 <= c0) continue;
      const slice = (buffer: number, ld: number, col0: number) => ({
        buffer,
        offset: col0 * EL,
        bytes: (c1 - c0) * EL,
        rows: op.rows,
        strideBytes: ld,
        policy: 'default' as const,
      });
      const reads = [slice(input, rowBytes, c0)];
      const writes = [];
      if (op.kind === 'all-reduce') {
        // The peers' slices arrive in a receive buffer; the sum is written in place.
        for (let p = 1; p < n; p++) reads.push({ ...slice(recv, rowBytes, c0), offset: (p - 1) * op.rows * rowBytes + c0 * EL });
        writes.push(slice(output, rowBytes, c0));
      } else {
        // Strided put of the slice into each peer's output; ours lands in place.
        writes.push(slice(output, outRowBytes, c0));
      }
      drafts.push({
        name: `${op.id}.nvshmem.s${i}`,
        level: 'cu',
        partition: null,
        tiles: [
          {
            reads,
            writes,
            flops: op.kind === 'all-reduce' ? (n - 1) * op.rows * (c1 - c0) : 0,
            unit: 'vector',
            linkBytes: (n - 1) * op.rows * (c1 - c0) * EL,
            fixedNs: how.signalNs,
          },
        ],
      });
    }
    return drafts;
  }

  private stageDrafts(group: readonly OpNode[]): Draft[] {
    const main = group.find((o) => o.kind === 'linear' || o.kind === 'attention' || o.kind === 'grouped-linear') ?? group[0]!;
    let drafts: Draft[];
    if (main.kind === 'grouped-linear') {
      drafts = this.grouped(main, group.find((o) => o.kind === 'act-mul') as RowOp | undefined);
    } else if (main.kind === 'attention' && main.latent) {
      drafts = this.latentAttention(main, group.filter((o) => o !== main) as RowOp[]);
    } else if (main.kind === 'linear') {
      const act = group.find((o) => o.kind === 'act-mul');
      drafts = this.linear(main, act !== undefined, act?.outputs[0]);
      const res = group.find((o) => o.kind === 'residual');
      if (res) this.addResidualEpilogue(drafts, this.buf.id(act?.outputs[0] ?? main.outputs[0]!));
    } else if (main.kind === 'attention') {
      drafts = this.attention(main, group.filter((o) => o !== main) as RowOp[]);
    } else if (main.kind === 'all-reduce' || main.kind === 'all-gather') {
      drafts = this.collective(main, this.prevDrafts);
      if (group.some((o) => o.kind === 'residual')) this.addResidualEpilogue(drafts);
    } else {
      drafts = this.rowGroup(group as RowOp[]);
    }
    return drafts;
  }

  private linear(op: LinearOp, fusedAct: boolean, actOut = 'act'): Draft[] {
    const qw = quantizesLinear(op, this.graph.layers) ? this.wt : DENSE_BF16;
    const b = {
      x: this.buf.id(op.inputs[0]!),
      w: this.buf.id(op.weight),
      y: this.buf.id(fusedAct ? actOut : op.outputs[0]!),
      ...(qw.kind !== 'dense' ? { scales: this.buf.id(`${op.weight}.scales`) } : {}),
      ...(qw.kind === 'quantized' && this.buf.has(`${op.weight}.dequant`) ? { dequant: this.buf.id(`${op.weight}.dequant`) } : {}),
    };
    const pol = { weight: this.schedule.weightPolicy, store: this.schedule.storePolicy };
    const tileK = (m: number, n0: number, k0: number, kLen: number): Tile => {
      const tn = Math.min(TILE_N, op.n - n0);
      return fusedAct
        ? linearTile(op, b, pol, m * 16, n0, tn, k0, kLen, { cols: tn / 2, ldOut: op.n / 2, col0: n0 / 2 }, qw)
        : linearTile(op, b, pol, m * 16, n0, tn, k0, kLen, undefined, qw);
    };
    const tile = (m: number, n0: number): Tile => tileK(m, n0, 0, op.k);
    let ws = -1;
    // The partial sums of output tile (m, n0), as every K part but the last writes them: one
    // frozen array per tile, shared by its parts (a step's split-K GEMMs have many thousands).
    const partials = new Map<number, Region[]>();
    const kPart = (m: number, n0: number, part: number, parts: number): Tile => {
      const chunks = Math.ceil(op.k / TILE_K);
      const k0 = Math.floor((chunks * part) / parts) * TILE_K;
      const k1 = Math.min(op.k, Math.floor((chunks * (part + 1)) / parts) * TILE_K);
      const t = tileK(m, n0, k0, k1 - k0);
      if (ws < 0) ws = this.buf.add(`${op.id}.splitk_partials`, mTiles(op) * 16 * op.n * 4, 'activation');
      const key = m * op.n + n0;
      let writes = partials.get(key);
      if (!writes) {
        const tn = Math.min(TILE_N, op.n - n0);
        const partial: Region = {
          buffer: ws,
          offset: (m * 16 * op.n + n0) * 4,
          bytes: tn * 4,
          rows: Math.min(16, op.m - m * 16),
          strideBytes: op.n * 4,
          policy: 'default',
        };
        writes = Object.freeze([partial]) as unknown as Region[];
        partials.set(key, writes);
      }
      // The sum is read back from the L2 lines the atomics left there (not modelled as a read: it never leaves the XCD).
      return { ...t, writes: part < parts - 1 ? writes : [...t.writes, writes[0]!] };
    };
    return this.family.linear({ op, buffers: b, weights: qw, policies: pol, fusedAct, mTiles: mTiles(op), tile, kPart }, this.ctx);
  }

  /**
   * A grouped GEMM (MoE experts, MLA's per-head absorptions): the library's fused kernel
   * (kernel-per-op), chiplet-tasks placed by `expertPlacement` (FLEET), or one CU-task per tile.
   * Only groups with rows read their weight slice.
   */
  private grouped(op: GroupedLinearOp, act: RowOp | undefined): Draft[] {
    const b = { x: this.buf.id(op.inputs[0]!), w: this.buf.id(op.weight), y: this.buf.id(act ? act.outputs[0]! : op.outputs[0]!) };
    const t: GroupedTiling = { ...defaultGroupedTiling(this.schedule.weightPolicy, this.schedule.storePolicy), ...(act ? { outDivisor: 2 } : {}) };
    return this.family.grouped(op, b, t, this.ctx);
  }

  /** Weight-absorbed MLA: FlashMLA-style split-KV over the latent cache, then a combine (kernel or next stage). */
  private latentAttention(op: AttentionOp, prologue: RowOp[]): Draft[] {
    const b = { q: this.buf.id(op.inputs[0]!), cache: this.buf.id(op.kCache), out: this.buf.id(op.outputs[0]!) };
    const pipeline = this.library?.decodeAttention({ batch: op.batch, heads: op.heads, kvHeads: 1, kvLen: op.kvLen, headDim: op.headDim }).pipeline;
    // FlashMLA: one workgroup per SM share (ceil(heads / 64) heads tiles for the one latent head).
    const parts = Math.max(1, Math.floor(this.ctx.computeUnits / Math.ceil(op.heads / 64)));
    const { main, combine } = mlaDecodeDrafts(op, b, parts, (bytes) => this.buf.add(`${op.id}.splitkv_workspace`, bytes, 'activation'), pipeline);
    if (prologue.length > 0 && main[0]) {
      // RoPE of the new latent's key and its append, fused ahead of the attention.
      const width = op.latent!.rank + op.latent!.ropeDim;
      const kvA = this.buf.id(prologue.find((o) => o.kind === 'kv-append')?.inputs[0] ?? op.inputs[0]!);
      main[0].tiles.unshift({
        reads: [{ buffer: kvA, offset: 0, bytes: op.batch * width * EL, policy: 'default' }],
        writes: [
          { buffer: b.cache, offset: (op.kvLen - 1) * width * EL, bytes: width * EL, rows: op.batch, strideBytes: op.kvLen * width * EL, policy: 'default' },
        ],
        flops: 8 * op.batch * width,
        unit: 'vector',
      });
    }
    this.epilogue = combine;
    return main;
  }

  /** A fused residual add: each output tile also reads the residual rows it adds to. */
  private addResidualEpilogue(drafts: Draft[], output?: number): void {
    const h = this.buf.id('h');
    for (const d of drafts) {
      for (const t of d.tiles) {
        // Only the tile that stores the output adds the residual (not a K-split's partial sums).
        const w = output === undefined ? t.writes[0]! : t.writes.find((x) => x.buffer === output);
        if (!w) continue;
        // The residual stream has the output's [m, hidden] layout.
        t.reads.push({ ...w, buffer: h, policy: 'default' });
      }
    }
  }

  private attention(op: AttentionOp, prologue: RowOp[]): Draft[] {
    const b = { qkv: this.buf.id('qkv'), k: this.buf.id(op.kCache), v: this.buf.id(op.vCache), out: this.buf.id(op.outputs[0]!) };
    const drafts: Draft[] = [];
    const group = op.heads / op.kvHeads;
    const qkvCols = (op.heads + 2 * op.kvHeads) * op.headDim;
    if ((op.queryLen ?? 1) > 1) {
      if (prologue.length > 0) throw inputError(`policy '${this.policy}' fuses RoPE and the KV append into decode attention; it has no prefill schedule`);
      return this.prefillAttention(op, b);
    }
    const kernel = this.library?.decodeAttention({ batch: op.batch, heads: op.heads, kvHeads: op.kvHeads, kvLen: op.kvLen, headDim: op.headDim });
    if (kernel && kernel.splits > 1 && prologue.length === 0) return this.splitAttention(op, b, kernel);
    // A persistent grid pays the fixed time once per workgroup, spread over the pairs it loops over.
    const pairs = op.batch * op.kvHeads;
    const fixedPerPair = kernel?.tileFixedNs ? kernel.tileFixedNs * Math.min(1, (kernel.persistentWorkgroups ?? pairs) / pairs) : 0;
    for (let r = 0; r < op.batch; r++) {
      for (let h = 0; h < op.kvHeads; h++) {
        const chunks = attentionTiles(op, b, r, h);
        const tiles = kernel ? [withFixed(withRowTile(streamChunks(chunks, kernel.pipeline), kernel, op), fixedPerPair)] : chunks;
        if (prologue.length > 0) {
          // q/k norm, RoPE and the KV append of this group, fused ahead of the attention.
          const row = (((op.rowOffset ?? 0) + r) * qkvCols + h * group * op.headDim) * EL;
          tiles.unshift({
            reads: [{ buffer: b.qkv, offset: row, bytes: (group + 2) * op.headDim * EL, policy: 'default' }],
            writes: [
              { buffer: b.k, offset: ((r * op.kvHeads + h) * op.kvLen + op.kvLen - 1) * op.headDim * EL, bytes: op.headDim * EL, policy: 'default' },
              { buffer: b.v, offset: ((r * op.kvHeads + h) * op.kvLen + op.kvLen - 1) * op.headDim * EL, bytes: op.headDim * EL, policy: 'default' },
            ],
            flops: prologue.length * 8 * (group + 2) * op.headDim,
            unit: 'vector',
          });
        }
        drafts.push({ name: `${op.id}.r${r}h${h}`, level: 'cu', partition: null, tiles });
      }
    }
    return drafts;
  }

  /** Causal prefill attention in the library's tiles (FlashAttention-2 defaults without one). */
  private prefillAttention(op: AttentionOp, b: { qkv: number; k: number; v: number; out: number }): Draft[] {
    const k = this.library?.prefillAttention?.({
      batch: op.batch,
      heads: op.heads,
      kvHeads: op.kvHeads,
      queryLen: op.queryLen ?? 1,
      kvLen: op.kvLen,
      headDim: op.headDim,
    });
    const tiling = k
      ? {
          queryRows: k.queryRows,
          kvCols: k.kvCols,
          order: k.order,
          l2SectionBytes: k.l2SectionBytes,
          softmaxFlopsPerScore: k.softmaxFlopsPerScore,
          tileFixedNs: k.tileFixedNs,
          pipeline: k.pipeline,
        }
      : DEFAULT_PREFILL_TILING;
    let grid = prefillAttentionTiles(op, b, tiling);
    const mapping = this.schedule.attentionMapping;
    if (mapping) {
      // A mapping reorders a launch-order grid; a persistent kernel with its own scheduler (cuDNN's on H100) has none to remap.
      if (tiling.order !== 'in-order')
        throw inputError(
          `\`attentionMapping\`: ${k?.name ?? 'this prefill attention kernel'} schedules its own work order ('${tiling.order}'); a mapping applies to a launch-order grid such as CDNA's`,
          'attentionMapping',
        );
      grid = inMappingOrder(grid, op, tiling.queryRows, mapping, this.ctx.partitions);
    }
    // A persistent grid's CTAs each start once, with the first tile they run.
    const start = k?.ctaFixedNs ?? 0;
    const ctas = start > 0 ? (k?.persistentCtas ?? 0) : 0;
    return grid.map(({ name, tile }, i) => ({
      name,
      level: 'cu' as const,
      partition: null,
      tiles: [i < ctas ? { ...tile, fixedNs: (tile.fixedNs ?? 0) + start } : tile],
    }));
  }

  /**
   * Split-KV decode attention (a library's flash-decoding): each (request, KV head) is split
   * over `splits` workgroups by whole KV chunks; each writes its partial output and softmax
   * statistics (fp32) to a workspace, and a combine kernel merges them into the output.
   */
  private splitAttention(op: AttentionOp, b: { qkv: number; k: number; v: number; out: number }, kernel: DecodeAttentionKernel): Draft[] {
    const { splits, pipeline } = kernel;
    const d = op.headDim;
    const group = op.heads / op.kvHeads;
    const partialBytes = group * (d + 1) * 4;
    const ws = this.buf.add(`${op.id}.splitkv_workspace`, op.batch * op.kvHeads * splits * partialBytes, 'activation');
    const drafts: Draft[] = [];
    const combine: Draft[] = [];
    for (let r = 0; r < op.batch; r++) {
      for (let h = 0; h < op.kvHeads; h++) {
        const tiles = attentionTiles(op, b, r, h, kernel.kvBlock);
        const unit = (r * op.kvHeads + h) * splits;
        // A library that names its block assigns ⌈blocks / splits⌉ whole blocks a split (the last
        // may get fewer or none); otherwise the chunks are spread evenly.
        const perSplit = Math.ceil(tiles.length / splits);
        const bounds = (s: number) => (kernel.kvBlock ? Math.min(tiles.length, s * perSplit) : Math.floor((tiles.length * s) / splits));
        for (let s = 0; s < splits; s++) {
          const part = tiles.slice(bounds(s), bounds(s + 1));
          if (part.length === 0) continue;
          const stream = withFixed(streamChunks(part, pipeline), kernel.tileFixedNs);
          stream.writes = [{ buffer: ws, offset: (unit + s) * partialBytes, bytes: partialBytes, policy: 'default' as const }];
          drafts.push({ name: `${op.id}.r${r}h${h}s${s}`, level: 'cu', partition: null, tiles: [stream] });
        }
        // The combine's workgroups each merge `rows` query rows of the group over every split.
        const rows = Math.min(group, kernel.combineRows ?? group);
        const rowBytes = (d + 1) * 4;
        for (let q0 = 0; q0 < group; q0 += rows) {
          const n = Math.min(rows, group - q0);
          combine.push({
            name: `${op.id}.combine.r${r}h${h}${q0 > 0 ? `q${q0}` : ''}`,
            level: 'cu',
            partition: null,
            tiles: [
              {
                reads: [
                  { buffer: ws, offset: unit * partialBytes + q0 * rowBytes, bytes: n * rowBytes, rows: splits, strideBytes: partialBytes, policy: 'default' },
                ],
                writes: [{ buffer: b.out, offset: (((op.rowOffset ?? 0) + r) * op.heads + h * group + q0) * d * EL, bytes: n * d * EL, policy: 'default' }],
                flops: 4 * splits * n * d,
                unit: 'vector',
                ...(kernel.combineNsPerSplit || kernel.combineFixedNs
                  ? { fixedNs: (kernel.combineFixedNs ?? 0) + (kernel.combineNsPerSplit ?? 0) * splits }
                  : {}),
              },
            ],
          });
        }
      }
    }
    this.epilogue = combine;
    return drafts;
  }

  /** Row-wise ops; several in one stage are fused tile by tile (same rows and split). */
  private rowGroup(group: readonly RowOp[]): Draft[] {
    const parts = this.rowParts(group[0]!);
    const perOp = group.map((op) => this.rowOp(op, parts));
    const n = perOp[0]!.length;
    const drafts: Draft[] = [];
    for (let i = 0; i < n; i++) {
      const tiles = perOp.map((t) => t[i] ?? t[t.length - 1]!);
      const merged: Tile = {
        reads: tiles.flatMap((t) => t.reads),
        writes: tiles.flatMap((t) => t.writes),
        flops: tiles.reduce((s, t) => s + t.flops, 0),
        unit: 'vector',
      };
      drafts.push({ name: `${group.map((o) => o.id).join('+')}.t${i}`, level: 'cu', partition: null, tiles: [merged] });
    }
    return drafts;
  }

  /** Elements per row of a graph tensor of `rows` rows (its second dimension), else 0. */
  private rowWidth(tensor: string, rows: number): number {
    const t = this.graph.tensors.find((x) => x.name === tensor);
    return t && t.shape.length === 2 && t.shape[0] === rows ? t.shape[1]! : 0;
  }

  /** A row op on `cols` columns at `col0` of rows `ld` wide, in place: strided regions. */
  private stridedRows(op: RowOp, parts: number, ld: number, col0: number, flopsPerRow: number): Tile[] {
    const n = Math.max(1, Math.min(parts, op.rows));
    const buf = this.buf.id(op.outputs[0]!);
    return Array.from({ length: n }, (_, i) => {
      const r0 = Math.floor((i * op.rows) / n);
      const r1 = Math.floor(((i + 1) * op.rows) / n);
      const region = { buffer: buf, offset: (r0 * ld + col0) * EL, bytes: op.cols * EL, rows: r1 - r0, strideBytes: ld * EL, policy: 'default' as const };
      const reads = [region, ...(op.inputs[1] ? [{ buffer: this.buf.id(op.inputs[1]), offset: 0, bytes: op.cols * EL, policy: 'default' as const }] : [])];
      return { reads, writes: [{ ...region, policy: this.schedule.storePolicy }], flops: (r1 - r0) * flopsPerRow, unit: 'vector' as const };
    });
  }

  /**
   * MLA's RoPE, request by request: the rotary tail of each head's q row and of the new
   * latent's key (rows of q: heads × (nope + rope); of kv_a: rank + rope).
   */
  private latentRope(op: RowOp, parts: number): Tile[] {
    const b = this.graph.batch;
    const nh = op.rows / b - 1;
    const qCols = this.rowWidth(op.inputs[0]!, b);
    const kvCols = this.rowWidth(op.inputs[1]!, b);
    const qDim = qCols / nh;
    const q = this.buf.id(op.inputs[0]!);
    const kv = this.buf.id(op.inputs[1]!);
    const n = Math.max(1, Math.min(parts, b));
    return Array.from({ length: n }, (_, i) => {
      const r0 = Math.floor((i * b) / n);
      const r1 = Math.floor(((i + 1) * b) / n);
      const regions = [];
      for (let r = r0; r < r1; r++) {
        regions.push({
          buffer: q,
          offset: (r * qCols + qDim - op.cols) * EL,
          bytes: op.cols * EL,
          rows: nh,
          strideBytes: qDim * EL,
          policy: 'default' as const,
        });
        regions.push({ buffer: kv, offset: (r * kvCols + kvCols - op.cols) * EL, bytes: op.cols * EL, policy: 'default' as const });
      }
      return {
        reads: regions,
        writes: regions.map((x) => ({ ...x, policy: this.schedule.storePolicy })),
        flops: (r1 - r0) * (nh + 1) * 6 * op.cols,
        unit: 'vector' as const,
      };
    });
  }

  /** MLA's append: each request's new latent row into its cache at position kvLen − 1. */
  private latentAppend(op: RowOp, parts: number): Tile[] {
    const cache = this.graph.tensors.find((t) => t.name === op.outputs[0])!;
    const kvLen = cache.shape[1]!;
    const width = op.cols;
    const src = this.buf.id(op.inputs[0]!);
    const dst = this.buf.id(op.outputs[0]!);
    const n = Math.max(1, Math.min(parts, op.rows));
    return Array.from({ length: n }, (_, i) => {
      const r0 = Math.floor((i * op.rows) / n);
      const r1 = Math.floor(((i + 1) * op.rows) / n);
      return {
        reads: [{ buffer: src, offset: r0 * width * EL, bytes: (r1 - r0) * width * EL, policy: 'default' as const }],
        writes: [
          {
            buffer: dst,
            offset: (r0 * kvLen + kvLen - 1) * width * EL,
            bytes: width * EL,
            rows: r1 - r0,
            strideBytes: kvLen * width * EL,
            policy: 'default' as const,
          },
        ],
        flops: 0,
        unit: 'vector' as const,
      };
    });
  }

  private rowParts(op: RowOp): number {
    if (op.kind === 'argmax' || op.kind === 'embedding') return op.rows;
    if (this.schedule.style === 'persistent' && op.kind === 'act-mul') return 48;
    if (op.kind === 'rmsnorm' || op.kind === 'residual') return op.rows;
    return Math.min(1024, op.rows * Math.max(1, Math.ceil((op.cols * EL) / 16384)));
  }

  private rowOp(op: RowOp, parts: number): Tile[] {
    const rowBytes = op.cols * EL;
    const id = (name: string) => this.buf.id(name);
    const store = this.schedule.storePolicy;
    switch (op.kind) {
      case 'embedding':
        return rowTiles(op.rows, parts, [{ buffer: id('w_embed'), bytesPerRow: rowBytes }], [{ buffer: id('h'), bytesPerRow: rowBytes, policy: store }], 0);
      case 'rmsnorm':
      case 'qk-norm': {
        const ld = this.rowWidth(op.outputs[0]!, op.rows);
        if (op.kind === 'rmsnorm' && ld > op.cols) {
          // A norm over the first `cols` of wider rows (MLA's latent before its rotary key).
          return this.stridedRows(op, parts, ld, 0, 4 * op.cols);
        }
        const reads: RowOperand[] = [{ buffer: id(op.inputs[0]!), bytesPerRow: rowBytes }];
        if (op.inputs[1]) reads.push({ buffer: id(op.inputs[1]), bytesPerRow: rowBytes, shared: true });
        return rowTiles(op.rows, parts, reads, [{ buffer: id(op.outputs[0]!), bytesPerRow: rowBytes, policy: store }], 4 * op.cols);
      }
      case 'residual':
        return rowTiles(
          op.rows,
          parts,
          op.inputs.map((n) => ({ buffer: id(n), bytesPerRow: rowBytes })),
          [{ buffer: id(op.outputs[0]!), bytesPerRow: rowBytes, policy: store }],
          op.cols,
        );
      case 'act-mul':
        return rowTiles(
          op.rows,
          parts,
          [{ buffer: id(op.inputs[0]!), bytesPerRow: 2 * rowBytes }],
          [{ buffer: id(op.outputs[0]!), bytesPerRow: rowBytes, policy: store }],
          6 * op.cols,
        );
      case 'rope':
        if (op.inputs.length > 1) return this.latentRope(op, parts);
        return rowTiles(
          op.rows,
          parts,
          [{ buffer: id(op.inputs[0]!), bytesPerRow: rowBytes }],
          [{ buffer: id(op.inputs[0]!), bytesPerRow: rowBytes, policy: store }],
          6 * op.cols,
        );
      case 'kv-append':
        if (op.outputs.length === 1) return this.latentAppend(op, parts);
        return rowTiles(
          op.rows,
          parts,
          [{ buffer: id(op.inputs[0]!), bytesPerRow: rowBytes }],
          // K and V caches take half a row each; MLA's one latent cache the whole row.
          op.outputs.map((n) => ({ buffer: id(n), bytesPerRow: rowBytes / op.outputs.length })),
          0,
        );
      case 'moe-topk':
        // Router logits → top-k ids and weights (fp32 pairs), softmax and renormalisation included.
        return rowTiles(
          op.rows,
          parts,
          [{ buffer: id(op.inputs[0]!), bytesPerRow: rowBytes }],
          [{ buffer: id(op.outputs[0]!), bytesPerRow: 2 * (op.topK ?? 1) * 4, policy: store }],
          8 * op.cols,
        );
      case 'moe-dispatch': {
        // Token slots gathered into expert order: each slot copies its token's input row.
        const k = op.topK ?? 1;
        return rowTiles(
          op.rows,
          parts,
          [
            { buffer: id(op.inputs[0]!), bytesPerRow: rowBytes / k },
            { buffer: id(op.inputs[1]!), bytesPerRow: 4 },
          ],
          [{ buffer: id(op.outputs[0]!), bytesPerRow: rowBytes, policy: store }],
          0,
        );
      }
      case 'moe-combine': {
        // Each token sums its k expert rows, weighted, plus the shared experts' row (and gate).
        const k = op.topK ?? 1;
        const reads: RowOperand[] = [
          { buffer: id(op.inputs[0]!), bytesPerRow: k * rowBytes },
          { buffer: id(op.inputs[1]!), bytesPerRow: 2 * k * 4 },
        ];
        for (const extra of op.inputs.slice(2)) reads.push({ buffer: id(extra), bytesPerRow: extra === 'shared_gate' ? EL : rowBytes });
        return rowTiles(op.rows, parts, reads, [{ buffer: id(op.outputs[0]!), bytesPerRow: rowBytes, policy: store }], 2 * k * op.cols);
      }
      case 'argmax':
        return rowTiles(op.rows, parts, [{ buffer: id('logits'), bytesPerRow: rowBytes }], [{ buffer: id('tokens'), bytesPerRow: 4 }], op.cols);
    }
  }
}

/** The pre-layout of a library GEMM's quantized weights: 64-deep tiles of its output columns. */
/** What a kernel library is told of a linear op: its shape and, for quantized weights, their type. */
export function gemmShape(op: Pick<LinearOp, 'm' | 'n' | 'k'>, wt: WeightType): GemmShape {
  const shape: GemmShape = { m: op.m, n: op.n, k: op.k, weightBytes: wt.bits / 8 };
  if (wt.kind === 'quantized') shape.quant = { bits: wt.bits, kind: wt.type.kind, group: wt.group, zeroPoint: wt.zeroPoint };
  if (wt.kind === 'fp8') shape.fp8 = { weights: wt.type.name, activations: wt.activation.name, scales: wt.scales };
  return shape;
}

export function libraryPrelayout(kernel: { tileCols: number }): PrelayoutTiles {
  return { bk: 64, bn: kernel.tileCols };
}

/** A workgroup's tile with the kernel's fixed time outside its loop, if it has one. */
function withFixed(tile: Tile, fixedNs: number | undefined): Tile {
  return fixedNs ? { ...tile, fixedNs: (tile.fixedNs ?? 0) + fixedNs } : tile;
}
