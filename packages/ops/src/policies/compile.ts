import {
  graphRows,
  inputError,
  type CollectiveModel,
  type OpKind,
  type AttentionOp,
  type CollectiveOp,
  type EventCounterSpec,
  type GroupedLinearOp,
  type KernelSpec,
  type KernelLibrary,
  type LinearOp,
  type OpGraph,
  type OpNode,
  type RowOp,
  type Task,
  type TaskGraph,
  type TaskLevel,
  type DecodeAttentionKernel,
  type TilePipeline,
  type Tile,
  type Topology,
} from '@fleet/core';
import { attentionTiles, DEFAULT_PREFILL_TILING, prefillAttentionTiles, streamChunks } from '../decompose/attention.js';
import { BufferTable } from '../decompose/buffers.js';
import { blasTileM, linearTile, mTiles, TILE_K, TILE_N, type LinearPolicies } from '../decompose/linear.js';
import { rowTiles, type RowOperand } from '../decompose/row-ops.js';
import { bookkeepingTile, chipletGroupedDrafts, cuGroupedDrafts, defaultGroupedTiling, libraryGroupedDrafts, mlaDecodeDrafts, type GroupedTiling } from '../decompose/moe.js';
import type { PolicyDef } from './policy.js';
import { compileClusterFusion } from './clusterfusion.js';
import { quantizesLinear, splitKBoundary, weightBufferBytes } from '../quant/weight-regions.js';
import { DENSE_BF16, type WeightType } from '../quant/weight-type.js';
import type { PrelayoutTiles } from '../quant/prelayout.js';

/** A task before ids and events are assigned. */
interface Draft {
  name: string;
  level: TaskLevel;
  partition: number | null;
  tiles: Tile[];
}

/** Ops that run together: one kernel, or one dependency stage of a persistent kernel. */
interface Stage {
  name: string;
  layer: number;
  ops: OpNode[];
  drafts: Draft[];
  /** Kernel-per-op: a second kernel the stage's library kernel needs (split-KV combine). */
  epilogue?: Draft[];
}

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
  kernels?: { unfused?: boolean; perOp?: Partial<Record<OpKind, number>>; splitKReduce?: boolean };
  /** Cluster policies (`clusterfusion`): cluster size, dataflow, the backend's collectives. */
  cluster?: { size?: number; dataflow?: 'split-token' | 'split-head'; collectives?: readonly CollectiveModel[]; maxActiveClusters?: number };
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
}

const EL = 2;

/**
 * Compile a decode step's op graph into a task graph for one policy on one topology.
 * Persistent policies chain stages with event counters (a stage waits for the previous
 * stage's tasks; chiplet-tasks count once each); kernel-per-op policies make each stage a
 * kernel.
 */
export function compilePolicy(graph: OpGraph, policy: PolicyDef, topology: Topology, opts: CompileOptions): TaskGraph {
  if (policy.name === 'clusterfusion') {
    // Its own compiler: the attention block as one cluster kernel per layer over the base kernels.
    const c = opts.cluster ?? {};
    const maxActive = c.maxActiveClusters;
    return compileClusterFusion(graph, topology, {
      layers: opts.layers,
      weights: opts.weights,
      clusterSize: c.size,
      dataflow: c.dataflow,
      collectives: c.collectives,
      maxActiveClusters: maxActive === undefined ? undefined : () => maxActive,
    });
  }
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
  const library = policy.style === 'kernel-per-op' ? opts.library : undefined;
  if (wt.kind === 'quantized') {
    for (const op of ops) {
      if (op.kind !== 'linear' || !quantizesLinear(op, graph.layers)) continue;
      // A library kernel stores the codes in its own packing: whole tiles of its columns.
      const kernel = library?.gemm({ m: op.m, n: op.n, k: op.k, weightBytes: wt.bits / 8 });
      const b = weightBufferBytes(wt, op.n, op.k, kernel ? libraryPrelayout(kernel) : undefined);
      buffers.resize(op.weight, b.weights);
      buffers.add(`${op.weight}.scales`, b.scales, 'weight');
    }
  }
  const ctx = new Decomposer(graph, policy, topology, buffers, wt, library, opts.collective);
  const stages: Stage[] = groupStages(ops, policy, opts.kernels?.unfused ?? false).flatMap((group) => {
    const s: Stage = { name: group.map((o) => o.id).join('+'), layer: group[0]!.layer, ops: group, drafts: ctx.stage(group), epilogue: ctx.takeEpilogue() };
    // A persistent kernel runs a stage's epilogue (MLA's split-KV combine) as the next dependency stage.
    if (policy.style === 'persistent' && s.epilogue) return [{ ...s, epilogue: undefined }, { name: `${s.name}.combine`, layer: s.layer, ops: group, drafts: s.epilogue }];
    return [s];
  });
  return policy.style === 'persistent' ? persistentGraph(policy, stages, buffers, opts) : kernelGraph(policy, stages, buffers, opts, graph);
}

/** Which ops share a stage, by policy: megakernels fuse like MPK, kernel-per-op like vLLM. */
function groupStages(ops: readonly OpNode[], policy: PolicyDef, unfused: boolean): OpNode[][] {
  if (unfused && policy.style === 'kernel-per-op') return ops.map((op) => [op]);
  const groups: OpNode[][] = [];
  const last = () => groups[groups.length - 1]!;
  const prologue: OpNode[] = [];
  for (const op of ops) {
    const prev = groups.length > 0 ? last()[last().length - 1]! : null;
    if (policy.style === 'persistent') {
      // MPK: q/k norm, RoPE and the KV append run inside the attention task; residual adds
      // are the epilogue of the linear before them; FLEET fuses SiLU·mul into gate+up.
      if (op.kind === 'qk-norm' || op.kind === 'rope' || op.kind === 'kv-append') {
        prologue.push(op);
        continue;
      }
      if (op.kind === 'attention') {
        groups.push([...prologue.splice(0), op]);
        continue;
      }
      // With tensor parallelism the residual add is the epilogue of the all-reduce before it.
      if (op.kind === 'residual' && (prev?.kind === 'linear' || prev?.kind === 'all-reduce')) {
        last().push(op);
        continue;
      }
      if (op.kind === 'act-mul' && policy.fuseActivation && (prev?.kind === 'linear' || prev?.kind === 'grouped-linear')) {
        last().push(op);
        continue;
      }
      groups.push([op]);
    } else {
      // vLLM: fused_add_rms_norm (residual + the norm after it), rotary with the cache write.
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
  }
  return groups;
}

class Decomposer {
  private readonly P: number;
  private readonly cus: number;

  constructor(
    private readonly graph: OpGraph,
    private readonly policy: PolicyDef,
    topology: Topology,
    private readonly buf: BufferTable,
    private readonly wt: WeightType,
    private readonly library: KernelLibrary | undefined,
    private readonly collectiveOf?: CompileOptions['collective'],
  ) {
    this.P = topology.partitions.computeUnits.length;
    this.cus = topology.partitions.computeUnits.reduce((a, b) => a + b, 0);
  }

  private epilogue: Draft[] | undefined;

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
    if (this.policy.style !== 'persistent') {
      const parts = Math.max(1, Math.min(how.channels, op.rows * Math.ceil(rowBytes / 4096)));
      const tiles = rowTiles(op.rows, parts, [{ buffer: input, bytesPerRow: rowBytes }], [{ buffer: output, bytesPerRow: outRowBytes }], op.kind === 'all-reduce' ? (n - 1) * op.cols : 0);
      return tiles.map((t, i) => ({ name: `${op.id}.${how.algorithm}.c${i}`, level: 'cu' as const, partition: null, tiles: [{ ...t, fixedNs: how.libraryNs }] }));
    }
    const slices = Math.max(1, producer.length);
    const recv = this.buf.add(`${op.id}.recv`, (n - 1) * op.rows * rowBytes, 'activation');
    const drafts: Draft[] = [];
    for (let i = 0; i < slices; i++) {
      const c0 = Math.floor((op.cols * i) / slices);
      const c1 = Math.floor((op.cols * (i + 1)) / slices);
      if (c1 <= c0) continue;
      const slice = (buffer: number, ld: number, col0: number) => ({ buffer, offset: col0 * EL, bytes: (c1 - c0) * EL, rows: op.rows, strideBytes: ld, policy: 'default' as const });
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
        tiles: [{ reads, writes, flops: op.kind === 'all-reduce' ? (n - 1) * op.rows * (c1 - c0) : 0, unit: 'vector', linkBytes: (n - 1) * op.rows * (c1 - c0) * EL, fixedNs: how.signalNs }],
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
      if (res) this.addResidualEpilogue(drafts);
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

  private linearPolicies(): LinearPolicies {
    return { weight: this.policy.weightPolicy, store: this.policy.storePolicy };
  }

  private linear(op: LinearOp, fusedAct: boolean, actOut = 'act'): Draft[] {
    const qw = quantizesLinear(op, this.graph.layers) ? this.wt : DENSE_BF16;
    const b = {
      x: this.buf.id(op.inputs[0]!),
      w: this.buf.id(op.weight),
      y: this.buf.id(fusedAct ? actOut : op.outputs[0]!),
      ...(qw.kind === 'quantized' ? { scales: this.buf.id(`${op.weight}.scales`) } : {}),
    };
    const pol = this.linearPolicies();
    const mt = mTiles(op);
    const tile = (m: number, n0: number): Tile => {
      const tn = Math.min(TILE_N, op.n - n0);
      return fusedAct
        ? linearTile(op, b, pol, m * 16, n0, tn, 0, op.k, { cols: tn / 2, ldOut: op.n / 2, col0: n0 / 2 }, qw)
        : linearTile(op, b, pol, m * 16, n0, tn, 0, op.k, undefined, qw);
    };
    const colTiles = (c0: number, c1: number) => {
      const out: number[] = [];
      for (let n0 = c0; n0 < c1; n0 += TILE_N) out.push(n0);
      return out;
    };
    const split = (total: number, parts: number, i: number) => Math.floor((Math.ceil(total / TILE_N) * i) / parts) * TILE_N;
    if (this.policy.chipletLinear) {
      const drafts: Draft[] = [];
      for (let p = 0; p < this.P; p++) {
        const tiles: Tile[] = [];
        if (this.policy.traversal === 'm-split') {
          // XCD p serves batch tiles ≡ p (mod m_tiles) and an N-slice shared with the other XCDs of its group.
          const myM = mt <= this.P ? [p % mt] : range(mt).filter((m) => m % this.P === p);
          const groupSize = mt <= this.P ? Math.floor((this.P - 1 - (p % mt)) / mt) + 1 : 1;
          const idx = mt <= this.P ? Math.floor(p / mt) : 0;
          const c0 = Math.min(op.n, split(op.n, groupSize, idx));
          const c1 = Math.min(op.n, split(op.n, groupSize, idx + 1));
          for (const n0 of colTiles(c0, c1)) for (const m of myM) tiles.push(tile(m, n0));
        } else {
          const c0 = Math.min(op.n, split(op.n, this.P, p));
          const c1 = Math.min(op.n, split(op.n, this.P, p + 1));
          if (this.policy.traversal === 'n-major') {
            // N-major: consecutive workers take different weight columns: no reuse in flight.
            for (let m = 0; m < mt; m++) for (const n0 of colTiles(c0, c1)) tiles.push(tile(m, n0));
          } else {
            // M-major: consecutive workers take the same weight columns for successive batch tiles.
            for (const n0 of colTiles(c0, c1)) for (let m = 0; m < mt; m++) tiles.push(tile(m, n0));
          }
        }
        drafts.push({ name: `${op.id}.x${p}`, level: 'chiplet', partition: p, tiles });
      }
      return drafts;
    }
    if (this.policy.style === 'persistent') {
      // The standard CU-task decomposition the FLEET paper counts for its Mirage port (1,407
      // tasks per Qwen3-8B layer at batch 1, of which 128 + 128 + 512 + 128 GEMM tasks): 48
      // output columns per task, 32 for linears with a residual epilogue; outputs too wide
      // for that (the LM head) take 256 columns per task, MPK's rule.
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
        const c0 = narrow ? t * width : Math.min(op.n, split(op.n, tasks, t));
        const c1 = narrow ? c0 + width : Math.min(op.n, split(op.n, tasks, t + 1));
        const tiles: Tile[] = [];
        if (narrow) for (let m = 0; m < mt; m++) tiles.push(linearTile(op, b, pol, m * 16, c0, width, 0, op.k, undefined, qw));
        else for (const n0 of colTiles(c0, c1)) for (let m = 0; m < mt; m++) tiles.push(tile(m, n0));
        if (tiles.length > 0) drafts.push({ name: `${op.id}.t${t}`, level: 'cu', partition: null, tiles });
      }
      return drafts;
    }
    // Vendor BLAS: the backend's library picks the tile and split-K; without one, one
    // workgroup per (batch tile × 64 columns), batch tiles of up to 64 rows, split K (in whole
    // K-chunks) only while the grid stays within one wave of the device.
    const chosen = this.library?.gemm({ m: op.m, n: op.n, k: op.k, weightBytes: qw.bits / 8 });
    const bm = chosen ? chosen.tileRows : blasTileM(op.m);
    const tileN = chosen ? chosen.tileCols : TILE_N;
    const bmt = mTiles(op, bm);
    // A library kernel reads quantized weights in its own packing: whole tiles of its columns.
    const shape = { rows: bm, maskedRows: chosen?.maskedRows, ...(chosen && qw.kind === 'quantized' ? { prelayout: libraryPrelayout(chosen) } : {}) };
    const grid = bmt * Math.ceil(op.n / tileN);
    const ks = chosen ? Math.min(chosen.splitK, Math.max(1, Math.floor(op.k / TILE_K))) : this.policy.splitK && grid < this.cus ? Math.max(1, Math.min(Math.floor(op.k / TILE_K), Math.floor(this.cus / grid))) : 1;
    const drafts: Draft[] = [];
    const cols = (c0: number, c1: number) => {
      const out: number[] = [];
      for (let n0 = c0; n0 < c1; n0 += tileN) out.push(n0);
      return out;
    };
    for (const n0 of cols(0, op.n)) {
      for (let m = 0; m < bmt; m++) {
        for (let s = 0; s < ks; s++) {
          const k0 = chunkBoundary(splitKBoundary(qw, op.k, s, ks), op.k);
          const k1 = chunkBoundary(splitKBoundary(qw, op.k, s + 1, ks), op.k);
          if (k1 <= k0) continue;
          const tn = Math.min(tileN, op.n - n0);
          const t = fusedAct
            ? linearTile(op, b, pol, m * bm, n0, tn, k0, k1 - k0, { cols: Math.floor(tn / 2), ldOut: op.n / 2, col0: Math.floor(n0 / 2) }, qw, shape)
            : linearTile(op, b, pol, m * bm, n0, tn, k0, k1 - k0, undefined, qw, shape);
          if (chosen) t.pipeline = chosen.pipeline;
          drafts.push({ name: `${op.id}.wg${drafts.length}`, level: 'cu', partition: null, tiles: [t] });
        }
      }
    }
    return drafts;
  }

  /**
   * A grouped GEMM (MoE experts, MLA's per-head absorptions): the library's fused kernel
   * (kernel-per-op), chiplet-tasks placed by `expertPlacement` (FLEET), or one CU-task per tile.
   * Only groups with rows read their weight slice.
   */
  private grouped(op: GroupedLinearOp, act: RowOp | undefined): Draft[] {
    const b = { x: this.buf.id(op.inputs[0]!), w: this.buf.id(op.weight), y: this.buf.id(act ? act.outputs[0]! : op.outputs[0]!) };
    const t: GroupedTiling = { ...defaultGroupedTiling(this.policy.weightPolicy, this.policy.storePolicy), ...(act ? { outDivisor: 2 } : {}) };
    if (this.policy.chipletLinear) return chipletGroupedDrafts(op, b, t, this.P, this.policy.expertPlacement ?? 'spread');
    if (this.policy.style === 'persistent' || !this.library) return cuGroupedDrafts(op, b, t);
    const lib = op.role === 'experts' ? this.library.groupedGemm?.({ groups: op.groups.map((g) => g.rows), n: op.n, k: op.k, weightBytes: EL }) : undefined;
    if (lib) {
      return libraryGroupedDrafts(op, b, lib, { ...t, tileRows: lib.tileRows, tileCols: lib.tileCols, clusterRows: lib.clusterRows ?? 1, maskedRows: true, pipeline: lib.pipeline });
    }
    // Per-head batched GEMMs (or a library without a grouped kernel): its GEMM tiles per group.
    const g = this.library.gemm({ m: op.groups[0]?.rows ?? 1, n: op.n, k: op.k, weightBytes: EL });
    return cuGroupedDrafts(op, b, { ...t, tileRows: g.tileRows, tileCols: g.tileCols, maskedRows: g.maskedRows ?? false, pipeline: g.pipeline });
  }

  /** Weight-absorbed MLA: FlashMLA-style split-KV over the latent cache, then a combine (kernel or next stage). */
  private latentAttention(op: AttentionOp, prologue: RowOp[]): Draft[] {
    const b = { q: this.buf.id(op.inputs[0]!), cache: this.buf.id(op.kCache), out: this.buf.id(op.outputs[0]!) };
    const pipeline = this.library?.decodeAttention({ batch: op.batch, heads: op.heads, kvHeads: 1, kvLen: op.kvLen, headDim: op.headDim }).pipeline;
    // FlashMLA: one workgroup per SM share (ceil(heads / 64) heads tiles for the one latent head).
    const parts = Math.max(1, Math.floor(this.cus / Math.ceil(op.heads / 64)));
    const { main, combine } = mlaDecodeDrafts(op, b, parts, (bytes) => this.buf.add(`${op.id}.splitkv_workspace`, bytes, 'activation'), pipeline);
    if (prologue.length > 0 && main[0]) {
      // RoPE of the new latent's key and its append, fused ahead of the attention.
      const width = op.latent!.rank + op.latent!.ropeDim;
      const kvA = this.buf.id(prologue.find((o) => o.kind === 'kv-append')?.inputs[0] ?? op.inputs[0]!);
      main[0].tiles.unshift({
        reads: [{ buffer: kvA, offset: 0, bytes: op.batch * width * EL, policy: 'default' }],
        writes: [{ buffer: b.cache, offset: (op.kvLen - 1) * width * EL, bytes: width * EL, rows: op.batch, strideBytes: op.kvLen * width * EL, policy: 'default' }],
        flops: 8 * op.batch * width,
        unit: 'vector',
      });
    }
    this.epilogue = combine;
    return main;
  }

  /** A fused residual add: each output tile also reads the residual rows it adds to. */
  private addResidualEpilogue(drafts: Draft[]): void {
    const h = this.buf.id('h');
    for (const d of drafts) {
      for (const t of d.tiles) {
        const w = t.writes[0]!;
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
      if (prologue.length > 0) throw inputError(`policy '${this.policy.name}' fuses RoPE and the KV append into decode attention; it has no prefill schedule`);
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
        const tiles = kernel ? [withFixed(streamChunks(chunks, kernel.pipeline), fixedPerPair)] : chunks;
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
    const k = this.library?.prefillAttention?.({ batch: op.batch, heads: op.heads, kvHeads: op.kvHeads, queryLen: op.queryLen ?? 1, kvLen: op.kvLen, headDim: op.headDim });
    const tiling = k ? { queryRows: k.queryRows, kvCols: k.kvCols, order: k.order, l2SectionBytes: k.l2SectionBytes, softmaxFlopsPerScore: k.softmaxFlopsPerScore, tileFixedNs: k.tileFixedNs, pipeline: k.pipeline } : DEFAULT_PREFILL_TILING;
    return prefillAttentionTiles(op, b, tiling).map(({ name, tile }) => ({ name, level: 'cu' as const, partition: null, tiles: [tile] }));
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
        const tiles = attentionTiles(op, b, r, h);
        const unit = (r * op.kvHeads + h) * splits;
        for (let s = 0; s < splits; s++) {
          const part = tiles.slice(Math.floor((tiles.length * s) / splits), Math.floor((tiles.length * (s + 1)) / splits));
          if (part.length === 0) continue;
          const stream = withFixed(streamChunks(part, pipeline), kernel.tileFixedNs);
          stream.writes = [{ buffer: ws, offset: (unit + s) * partialBytes, bytes: partialBytes, policy: 'default' as const }];
          drafts.push({ name: `${op.id}.r${r}h${h}s${s}`, level: 'cu', partition: null, tiles: [stream] });
        }
        combine.push({
          name: `${op.id}.combine.r${r}h${h}`,
          level: 'cu',
          partition: null,
          tiles: [{
            reads: [{ buffer: ws, offset: unit * partialBytes, bytes: splits * partialBytes, policy: 'default' }],
            writes: [{ buffer: b.out, offset: (((op.rowOffset ?? 0) + r) * op.heads + h * group) * d * EL, bytes: group * d * EL, policy: 'default' }],
            flops: 4 * splits * group * d,
            unit: 'vector',
          }],
        });
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
      const merged: Tile = { reads: tiles.flatMap((t) => t.reads), writes: tiles.flatMap((t) => t.writes), flops: tiles.reduce((s, t) => s + t.flops, 0), unit: 'vector' };
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
      return { reads, writes: [{ ...region, policy: this.policy.storePolicy }], flops: (r1 - r0) * flopsPerRow, unit: 'vector' as const };
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
        regions.push({ buffer: q, offset: (r * qCols + qDim - op.cols) * EL, bytes: op.cols * EL, rows: nh, strideBytes: qDim * EL, policy: 'default' as const });
        regions.push({ buffer: kv, offset: (r * kvCols + kvCols - op.cols) * EL, bytes: op.cols * EL, policy: 'default' as const });
      }
      return { reads: regions, writes: regions.map((x) => ({ ...x, policy: this.policy.storePolicy })), flops: (r1 - r0) * (nh + 1) * 6 * op.cols, unit: 'vector' as const };
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
        writes: [{ buffer: dst, offset: (r0 * kvLen + kvLen - 1) * width * EL, bytes: width * EL, rows: r1 - r0, strideBytes: kvLen * width * EL, policy: 'default' as const }],
        flops: 0,
        unit: 'vector' as const,
      };
    });
  }

  private rowParts(op: RowOp): number {
    if (op.kind === 'argmax' || op.kind === 'embedding') return op.rows;
    if (this.policy.style === 'persistent' && op.kind === 'act-mul') return 48;
    if (op.kind === 'rmsnorm' || op.kind === 'residual') return op.rows;
    return Math.min(1024, op.rows * Math.max(1, Math.ceil((op.cols * EL) / 16384)));
  }

  private rowOp(op: RowOp, parts: number): Tile[] {
    const rowBytes = op.cols * EL;
    const id = (name: string) => this.buf.id(name);
    const store = this.policy.storePolicy;
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
        return rowTiles(op.rows, parts, op.inputs.map((n) => ({ buffer: id(n), bytesPerRow: rowBytes })), [{ buffer: id(op.outputs[0]!), bytesPerRow: rowBytes, policy: store }], op.cols);
      case 'act-mul':
        return rowTiles(op.rows, parts, [{ buffer: id(op.inputs[0]!), bytesPerRow: 2 * rowBytes }], [{ buffer: id(op.outputs[0]!), bytesPerRow: rowBytes, policy: store }], 6 * op.cols);
      case 'rope':
        if (op.inputs.length > 1) return this.latentRope(op, parts);
        return rowTiles(op.rows, parts, [{ buffer: id(op.inputs[0]!), bytesPerRow: rowBytes }], [{ buffer: id(op.inputs[0]!), bytesPerRow: rowBytes, policy: store }], 6 * op.cols);
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
        return rowTiles(op.rows, parts, [{ buffer: id(op.inputs[0]!), bytesPerRow: rowBytes }], [{ buffer: id(op.outputs[0]!), bytesPerRow: 2 * (op.topK ?? 1) * 4, policy: store }], 8 * op.cols);
      case 'moe-dispatch': {
        // Token slots gathered into expert order: each slot copies its token's input row.
        const k = op.topK ?? 1;
        return rowTiles(op.rows, parts, [{ buffer: id(op.inputs[0]!), bytesPerRow: rowBytes / k }, { buffer: id(op.inputs[1]!), bytesPerRow: 4 }], [{ buffer: id(op.outputs[0]!), bytesPerRow: rowBytes, policy: store }], 0);
      }
      case 'moe-combine': {
        // Each token sums its k expert rows, weighted, plus the shared experts' row (and gate).
        const k = op.topK ?? 1;
        const reads: RowOperand[] = [{ buffer: id(op.inputs[0]!), bytesPerRow: k * rowBytes }, { buffer: id(op.inputs[1]!), bytesPerRow: 2 * k * 4 }];
        for (const extra of op.inputs.slice(2)) reads.push({ buffer: id(extra), bytesPerRow: extra === 'shared_gate' ? EL : rowBytes });
        return rowTiles(op.rows, parts, reads, [{ buffer: id(op.outputs[0]!), bytesPerRow: rowBytes, policy: store }], 2 * k * op.cols);
      }
      case 'argmax':
        return rowTiles(op.rows, parts, [{ buffer: id('logits'), bytesPerRow: rowBytes }], [{ buffer: id('tokens'), bytesPerRow: 4 }], op.cols);
    }
  }
}

/** The pre-layout of a library GEMM's quantized weights: 64-deep tiles of its output columns. */
function libraryPrelayout(kernel: { tileCols: number }): PrelayoutTiles {
  return { bk: 64, bn: kernel.tileCols };
}

/** A split-K boundary snapped down to a whole K-chunk (the end of K stays the end). */
function chunkBoundary(k: number, total: number): number {
  return k >= total ? total : Math.floor(k / TILE_K) * TILE_K;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function persistentGraph(policy: PolicyDef, stages: Stage[], buffers: BufferTable, opts: CompileOptions): TaskGraph {
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
      tasks.push({
        id: tasks.length,
        name: d.name,
        opId: s.ops[0]!.id,
        kind: mainKind(s),
        layer: s.layer,
        level: d.level,
        partition: d.partition,
        tiles: d.tiles,
        waits: prevEvent === null ? [] : [prevEvent],
        signal: ev,
      });
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
  return { policy: policy.name, style: 'persistent', buffers: buffers.buffers, tasks, events, kernels: [], layers: [...opts.layers] };
}

function kernelGraph(policy: PolicyDef, stages: Stage[], buffers: BufferTable, opts: CompileOptions, graph: OpGraph): TaskGraph {
  const tasks: Task[] = [];
  const kernels: KernelSpec[] = [];
  const addKernel = (s: Stage, name: string, drafts: readonly Draft[]) => {
    const k: KernelSpec = { id: kernels.length, name, opIds: s.ops.map((o) => o.id), layer: s.layer, tasks: [] };
    for (const d of drafts) {
      k.tasks.push(tasks.length);
      tasks.push({ id: tasks.length, name: d.name, opId: s.ops[0]!.id, kind: mainKind(s), layer: s.layer, level: 'cu', partition: null, tiles: d.tiles, waits: [], signal: null, kernel: k.id });
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
      const slots = op.kind === 'grouped-linear' ? op.groups.reduce((a, g) => a + g.rows, 0) : op.kind === 'moe-dispatch' ? op.rows : graphRows(graph) * ((op as RowOp).topK ?? 1);
      const index = buffers.add('moe_index', graphRows(graph) * 64 * 8, 'activation');
      for (let i = 1; i < passes; i++) {
        addKernel(s, `${s.name}#${i}`, [{ name: `${s.name}.index${i}`, level: 'cu', partition: null, tiles: [bookkeepingTile(index, slots)] }]);
      }
      addKernel(s, s.name, s.drafts);
      if (s.epilogue) addKernel(s, `${s.name}.combine`, s.epilogue);
      continue;
    }
    if (heads) {
      addKernel(s, s.name, s.drafts);
      continue;
    }
    for (let i = 0; i < passes; i++) addKernel(s, passes > 1 ? `${s.name}#${i + 1}` : s.name, s.drafts);
    if (s.epilogue) addKernel(s, `${s.name}.combine`, s.epilogue);
    if (opts.kernels?.splitKReduce && kind === 'linear') {
      const reduce = splitKReduce(s, buffers);
      if (reduce) addKernel(s, `${s.name}.reduce`, reduce);
    }
  }
  return { policy: policy.name, style: 'kernel-per-op', buffers: buffers.buffers, tasks, events: [], kernels, layers: [...opts.layers] };
}

/**
 * cuBLAS's split-K epilogue kernel: when a GEMM's workgroups split K, partial sums (fp32)
 * are written to a workspace and a second kernel reduces them into the output.
 */
function splitKReduce(s: Stage, buffers: BufferTable): Draft[] | null {
  const op = s.ops.find((o) => o.kind === 'linear') as LinearOp | undefined;
  if (!op) return null;
  const parts = new Map<number, number>();
  for (const d of s.drafts) for (const t of d.tiles) {
    const w = t.writes[0];
    if (w) parts.set(w.offset, (parts.get(w.offset) ?? 0) + 1);
  }
  const splits = Math.max(0, ...parts.values());
  if (splits <= 1) return null;
  const ws = buffers.add(`${op.id}.splitk_workspace`, splits * op.m * op.n * 4, 'activation');
  const y = buffers.id(op.outputs[0]!);
  const rowBytes = op.n * 4;
  return rowTiles(op.m, Math.min(op.m, 1024), [{ buffer: ws, bytesPerRow: rowBytes * splits }], [{ buffer: y, bytesPerRow: op.n * EL }], op.n * splits).map((tile, i) => ({
    name: `${op.id}.reduce.t${i}`,
    level: 'cu' as const,
    partition: null,
    tiles: [tile],
  }));
}

/** Op kinds whose framework kernels are one data kernel plus routing bookkeeping. */
const MOE_KINDS: ReadonlySet<OpKind> = new Set(['moe-topk', 'moe-dispatch', 'moe-combine', 'grouped-linear']);

function mainKind(s: Stage): Task['kind'] {
  return (s.ops.find((o) => o.kind === 'linear' || o.kind === 'attention' || o.kind === 'grouped-linear') ?? s.ops[0]!).kind;
}

/** A workgroup's tile with the kernel's fixed time outside its loop, if it has one. */
function withFixed(tile: Tile, fixedNs: number | undefined): Tile {
  return fixedNs ? { ...tile, fixedNs: (tile.fixedNs ?? 0) + fixedNs } : tile;
}

