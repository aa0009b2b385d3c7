/**
 * Functional execution of a compiled task graph: the simulation decides when each task
 * starts and ends; this observer makes each task compute its part of its stage's ops with
 * real numbers, reading memory when it starts and storing its results when it ends. A task
 * that starts before a producer it needs has ended sees stale data (see `VersionedMemory`),
 * so a scheduling bug becomes a wrong logit.
 *
 * What a task computes is derived from the compiled graph itself:
 * - the elements it stores are those its write regions cover (row-major byte ranges of the
 *   tensor; compiled graphs count model-dtype elements as 2 bytes). The head-row ops
 *   (q/k-norm, RoPE, KV-append) cover rows of their op — one head vector each — in order;
 * - a linear tile's K range is the slice of the activation it reads (split-K tiles add
 *   their partial sums); a fused residual epilogue also stores the residual sum, and a fused
 *   SiLU·mul stores the activation columns its region names;
 * - a flash-decoding task's KV chunks are the K-cache slices its tiles read;
 * - a fused attention block (ClusterFusion: one kernel of thread-block clusters per layer)
 *   is computed per cluster, see `ClusterPlan`: each CTA stores the K/V-cache entries and the
 *   output-projection partial sums its write regions name, the partials added to the output.
 * A chiplet-task (run by every worker of a partition) reads when its first worker starts
 * and stores when its last worker ends.
 */
import {
  DTYPE_BYTES,
  type AttentionOp,
  type LinearOp,
  type OpGraph,
  type Region,
  type RowOp,
  type SimEvent,
  type Task,
  type TaskGraph,
  type TensorSpec,
} from '@fleet/core';
import { ClusterPlan } from './cluster-plan.js';
import { actMul } from '@fleet/numerics';
import type { DecodeOps, KvChunk, Tensors } from './decode-ops.js';
import { stagesOf, type Stage } from './stages.js';
import type { VersionedMemory } from './versioned-memory.js';

/** Bytes per model-dtype element in compiled regions (activations are bf16/fp16). */
export const REGION_ELEMENT_BYTES = 2;

/** A task's results: values for elements of one tensor, in one op's layer. */
interface Store {
  tensor: string;
  op: number;
  /** Split-K partial sums are added; everything else is stored. */
  add: boolean;
  indices: number[];
  values: ArrayLike<number>;
  /**
   * A split-K part's share of a fused residual epilogue: once the parts' K ranges cover the
   * whole K for an element, the summed output `of` (op `ofOp`) is added to `other` and
   * stored, as MPK's last-arriving part does after its atomics.
   */
  epilogue?: { of: string; ofOp: number; kLen: number; k: number; other: ArrayLike<number> };
}

/**
 * A stage's local copy of memory as its tasks read it. `done` records what a fused attention
 * block has already computed in it (attention outputs of `request:kvHead` units).
 */
interface View {
  key: string;
  t: Tensors;
  local: Map<string, Float32Array>;
  done: Set<string>;
}

/** Ops whose rows are head vectors of `qkv` or cache entries rather than tensor rows. */
const HEAD_ROW_OPS = new Set(['qk-norm', 'rope', 'kv-append']);

export class FunctionalExecutor {
  private readonly stages: Stage[];
  private readonly tensorSpec = new Map<string, TensorSpec>();
  private readonly modelDtype: string;
  /** Highest byte a stage's tasks write in each buffer (head-row ops: rows × bytes per row). */
  private readonly stageExtent = new Map<string, number>();
  private readonly workers = new Map<number, number>();
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly pending = new Map<number, Store[]>();
  /** 1 once a task's results are stored. */
  readonly stored: Uint8Array;
  /** The first error a task raised (the executor stops computing after it). */
  error: Error | null = null;
  /** K elements summed so far per output element of a split-K linear with a residual epilogue. */
  private readonly covered = new Map<string, number>();

  constructor(
    graph: OpGraph,
    private readonly tg: TaskGraph,
    private readonly memory: VersionedMemory,
    private readonly ops: DecodeOps,
  ) {
    this.stages = stagesOf(graph, tg);
    for (const t of graph.tensors) this.tensorSpec.set(t.name, t);
    this.modelDtype = graph.tensors.find((t) => t.name === 'h')?.dtype ?? 'bf16';
    this.starts = new Int32Array(tg.tasks.length);
    this.ends = new Int32Array(tg.tasks.length);
    this.stored = new Uint8Array(tg.tasks.length);
    tg.tasks.forEach((task, id) => {
      const s = this.stages[id]!;
      for (const tile of task.tiles) {
        for (const r of tile.writes) {
          const key = `${s.first}:${r.buffer}`;
          const end = r.offset + ((r.rows ?? 1) - 1) * (r.strideBytes ?? 0) + r.bytes;
          this.stageExtent.set(key, Math.max(this.stageExtent.get(key) ?? 0, end));
        }
      }
    });
  }

  /** The observer to pass to `simulateGraph`. */
  readonly observer = (events: readonly SimEvent[]): void => {
    for (const e of events) {
      if (e.type === 'dispatch') this.workers.set(e.task, e.workers);
      else if (e.type === 'task-start') {
        if (this.starts[e.task]!++ === 0 && !this.error) {
          try {
            this.pending.set(e.task, this.run(this.tg.tasks[e.task]!));
          } catch (err) {
            this.error = err instanceof Error ? err : new Error(String(err));
          }
        }
      } else if (e.type === 'task-end') {
        const need = this.workers.get(e.task) ?? 1;
        if (++this.ends[e.task]! === need) this.commit(e.task);
      }
    }
  };

  /** Tasks whose results were never stored (a simulation that skipped them). */
  unfinished(): string[] {
    return this.tg.tasks.filter((t) => !this.stored[t.id]).map((t) => t.name);
  }

  private commit(id: number): void {
    const stores = this.pending.get(id);
    this.pending.delete(id);
    this.stored[id] = 1;
    if (!stores) return;
    for (const s of stores) {
      if (s.epilogue) this.epilogue(s, s.epilogue);
      else if (s.add) this.memory.accumulate(s.tensor, s.op, s.indices, s.values);
      else this.memory.write(s.tensor, s.op, s.indices, s.values);
    }
  }

  /** Count a split-K part's K range; where it completes an element's sum, store the residual sum. */
  private epilogue(s: Store, e: NonNullable<Store['epilogue']>): void {
    const done: number[] = [];
    const values: number[] = [];
    let sum: Float32Array | null = null;
    s.indices.forEach((i, k) => {
      const key = `${e.of}:${e.ofOp}:${i}`;
      const c = (this.covered.get(key) ?? 0) + e.kLen;
      this.covered.set(key, c);
      if (c < e.k) return;
      sum ??= this.memory.read(e.of, e.ofOp + 1);
      done.push(i);
      values.push(this.ops.round(e.other[k]! + sum[i]!));
    });
    if (done.length > 0) this.memory.write(s.tensor, s.op, done, values);
  }

  private bufferName(r: Region): string {
    const b = this.tg.buffers[r.buffer];
    if (!b) throw new Error(`region names buffer ${r.buffer}, which the task graph lacks`);
    return b.name;
  }

  private elementBytes(tensor: string): number {
    const t = this.tensorSpec.get(tensor)!;
    return t.dtype === this.modelDtype ? REGION_ELEMENT_BYTES : DTYPE_BYTES[t.dtype];
  }

  /**
   * Row-major element indices a region covers. Bytes past the tensor's end (the padding rows
   * of a batch tile, which buffers may be allocated with) hold no element and are skipped.
   */
  private regionElements(r: Region, tensor: string, task: Task): number[] {
    const eb = this.elementBytes(tensor);
    const rows = r.rows ?? 1;
    const stride = r.strideBytes ?? r.bytes;
    if (r.offset % eb !== 0 || r.bytes % eb !== 0 || stride % eb !== 0)
      throw new Error(`task ${task.name}: region of ${tensor} at byte ${r.offset} is not aligned to ${eb}-byte elements`);
    if (r.offset < 0) throw new Error(`task ${task.name}: region of ${tensor} starts before the tensor`);
    const size = this.tensorSpec.get(tensor)!.shape.reduce((a, b) => a * b, 1);
    const out: number[] = [];
    for (let row = 0; row < rows; row++) {
      const start = (r.offset + row * stride) / eb;
      for (let i = 0; i < r.bytes / eb && start + i < size; i++) out.push(start + i);
    }
    return out;
  }

  /**
   * A local copy of every tensor the stage touches, as it reads memory, after `prepare` ran
   * on it. Tasks of a stage that see the same memory share one view (a kernel's workgroups
   * mostly start before any of them ends), so a stage's row ops run once, not once per task.
   */
  private view(stage: Stage, prepare: (t: Tensors) => void): View {
    const key = stage.tensors.map((n) => this.memory.signature(n, stage.first)).join('|');
    const hit = this.views.get(stage.first);
    if (hit && hit.key === key) return hit;
    const local = new Map<string, Float32Array>();
    for (const name of stage.tensors) local.set(name, this.memory.read(name, stage.first));
    const t: Tensors = (name) => {
      const x = local.get(name) ?? this.ops.weights.get(name);
      if (!x) throw new Error(`no tensor '${name}'`);
      return x;
    };
    prepare(t);
    const v: View = { key, t, local, done: new Set() };
    this.views.set(stage.first, v);
    return v;
  }

  private readonly views = new Map<number, View>();

  /** The op of `stage` whose output `tensor` is (the last one writing it). */
  private writerOf(stage: Stage, tensor: string, task: Task): number {
    for (let i = stage.ops.length - 1; i >= 0; i--) if (stage.ops[i]!.outputs.includes(tensor)) return i;
    throw new Error(`task ${task.name} writes ${tensor}, which no op of its stage (${stage.ops.map((o) => o.id).join(', ')}) produces`);
  }

  private run(task: Task): Store[] {
    const stage = this.stages[task.id]!;
    switch (stage.kind) {
      case 'rows':
        return this.runRows(task, stage);
      case 'linear':
        return this.runLinear(task, stage);
      case 'attention':
        return this.runAttention(task, stage);
      case 'cluster':
        return this.runCluster(task, stage);
    }
  }

  /** Elements a write region of a row-wise op stores. */
  private rowStoreElements(task: Task, stage: Stage, opPos: number, r: Region, tensor: string): number[] {
    const op = stage.ops[opPos] as RowOp;
    // MLA's RoPE and latent append write plain (strided) regions of their tensors.
    if (!HEAD_ROW_OPS.has(op.kind) || (op.kind === 'rope' && op.inputs.length > 1) || (op.kind === 'kv-append' && op.outputs.length === 1))
      return this.regionElements(r, tensor, task);
    const extent = this.stageExtent.get(`${stage.first}:${r.buffer}`)!;
    const perRow = extent / op.rows;
    const j0 = r.offset / perRow;
    const j1 = (r.offset + r.bytes) / perRow;
    if (!Number.isInteger(j0) || !Number.isInteger(j1)) throw new Error(`task ${task.name}: region of ${tensor} does not cover whole rows of ${op.id}`);
    const out: number[] = [];
    for (let j = j0; j < j1; j++) {
      if (op.kind === 'kv-append') {
        const { request, kvHead } = this.ops.kvAppendEntry(op, j);
        const start = this.ops.cacheElement(op.layer, request, kvHead, this.ops.heads(op.layer).kvLen - 1);
        for (let i = 0; i < op.cols; i++) out.push(start + i);
      } else {
        const { start, count } = this.ops.headRowElements(op, j);
        for (let i = 0; i < count; i++) out.push(start + i);
      }
    }
    return out;
  }

  private runRows(task: Task, stage: Stage): Store[] {
    const { local } = this.view(stage, (t) => {
      // Row ops, and grouped GEMMs (MoE experts) with their fused activation: whole ops on the view.
      for (const op of stage.ops) this.ops.run(op, t);
    });
    const stores: Store[] = [];
    for (const tile of task.tiles) {
      for (const r of tile.writes) {
        const tensor = this.bufferName(r);
        // A kernel's own workspace (split-KV partials) is not a tensor of the model.
        if (!this.tensorSpec.has(tensor)) continue;
        const pos = this.writerOf(stage, tensor, task);
        const indices = this.rowStoreElements(task, stage, pos, r, tensor);
        const data = local.get(tensor)!;
        stores.push({ tensor, op: stage.indices[pos]!, add: false, indices, values: indices.map((i) => data[i]!) });
      }
    }
    return stores;
  }

  /** The K range a linear tile sums over: the slice of the activation it reads. */
  private kRange(task: Task, op: LinearOp, reads: readonly Region[]): { k0: number; k1: number } {
    const x = reads.find((r) => this.bufferName(r) === op.inputs[0]);
    if (!x) throw new Error(`task ${task.name}: a tile of ${op.id} does not read its input ${op.inputs[0]}`);
    // A W8A8 GEMM reads its activation as one-byte FP8 codes.
    const eb = this.ops.isFp8(op) ? 1 : this.elementBytes(op.inputs[0]!);
    const len = x.bytes / eb;
    if (x.rows === undefined || len >= op.k) return { k0: 0, k1: op.k };
    const k0 = (x.offset / eb) % op.k;
    return { k0, k1: k0 + len };
  }

  /**
   * A split-K part's fp32 partial sums (its workspace region, [M, N] in 4-byte elements) added
   * into the linear's output, and its share of a fused residual epilogue.
   */
  private splitKPart(task: Task, stage: Stage, t: Tensors, op: LinearOp, r: Region, k0: number, k1: number): Store[] {
    const e0 = r.offset / 4;
    const m0 = Math.floor(e0 / op.n);
    const n0 = e0 % op.n;
    const m1 = m0 + (r.rows ?? 1);
    const n1 = n0 + r.bytes / 4;
    const y = op.outputs[0]!;
    const ld = this.tensorSpec.get(y)!.shape[1]!;
    if (ld !== op.n) throw new Error(`task ${task.name}: split-K partial sums of ${op.id} into a strided output`);
    const indices: number[] = [];
    for (let m = m0; m < m1; m++) for (let n = n0; n < n1; n++) indices.push(m * ld + n);
    const p = this.ops.linearBox(op, t, { m0, m1, n0, n1, k0, k1 });
    const stores: Store[] = [{ tensor: y, op: stage.indices[0]!, add: true, indices, values: p }];
    const residualPos = stage.ops.findIndex((o) => o.kind === 'residual');
    if (residualPos >= 0) {
      const res = stage.ops[residualPos] as RowOp;
      const other = t(res.inputs.find((n) => n !== y)!);
      stores.push({
        tensor: res.outputs[0]!,
        op: stage.indices[residualPos]!,
        add: false,
        indices,
        values: [],
        epilogue: { of: y, ofOp: stage.indices[0]!, kLen: k1 - k0, k: op.k, other: indices.map((e) => other[e]!) },
      });
    }
    return stores;
  }

  private runLinear(task: Task, stage: Stage): Store[] {
    const { t } = this.view(stage, () => {});
    const op = stage.ops[0] as LinearOp;
    const residualPos = stage.ops.findIndex((o) => o.kind === 'residual');
    const actPos = stage.ops.findIndex((o) => o.kind === 'act-mul');
    const round = this.ops.round;
    const stores: Store[] = [];
    for (const tile of task.tiles) {
      const { k0, k1 } = this.kRange(task, op, tile.reads);
      const split = k0 > 0 || k1 < op.k;
      // A megakernel's split-K part adds its partial sums into an fp32 workspace (atomics);
      // the output store of its last part then holds the sum, not another partial.
      const workspace = split ? tile.writes.find((r) => !this.tensorSpec.has(this.bufferName(r))) : undefined;
      if (workspace) {
        stores.push(...this.splitKPart(task, stage, t, op, workspace, k0, k1));
        continue;
      }
      for (const r of tile.writes) {
        const tensor = this.bufferName(r);
        const indices = this.regionElements(r, tensor, task);
        if (indices.length === 0) continue;
        const ld = this.tensorSpec.get(tensor)!.shape[1]!;
        const m0 = Math.floor(indices[0]! / ld);
        const m1 = Math.floor(indices[indices.length - 1]! / ld) + 1;
        const c0 = indices[0]! % ld;
        const c1 = c0 + indices.length / (m1 - m0);
        if (tensor === op.outputs[0]) {
          const p = this.ops.linearBox(op, t, { m0, m1, n0: c0, n1: c1, k0, k1 });
          if (split) {
            if (residualPos >= 0) throw new Error(`task ${task.name}: split-K with a fused residual is not a single pass`);
            stores.push({ tensor, op: stage.indices[0]!, add: true, indices, values: p });
            continue;
          }
          const y = Array.from(p, round);
          stores.push({ tensor, op: stage.indices[0]!, add: false, indices, values: y });
          if (residualPos >= 0) {
            // The epilogue adds the product to the residual stream: h[m, n] += y[m, n].
            const res = stage.ops[residualPos] as RowOp;
            const other = t(res.inputs.find((n) => n !== op.outputs[0])!);
            stores.push({
              tensor: res.outputs[0]!,
              op: stage.indices[residualPos]!,
              add: false,
              indices,
              values: indices.map((e, k) => round(other[e]! + y[k]!)),
            });
          }
        } else if (actPos >= 0 && tensor === stage.ops[actPos]!.outputs[0]) {
          // Fused SiLU·mul: activation columns [c0, c1) need gate columns [c0, c1) and up columns [I + c0, I + c1).
          if (split) throw new Error(`task ${task.name}: split-K with a fused activation is not a single pass`);
          const act = stage.ops[actPos] as RowOp;
          const inter = act.cols;
          const g = this.ops.linearBox(op, t, { m0, m1, n0: c0, n1: c1 });
          const u = this.ops.linearBox(op, t, { m0, m1, n0: inter + c0, n1: inter + c1 });
          const row = new Float32Array(2 * (c1 - c0));
          const out = new Float32Array(c1 - c0);
          const vals: number[] = [];
          for (let m = 0; m < m1 - m0; m++) {
            for (let c = 0; c < c1 - c0; c++) {
              row[c] = round(g[m * (c1 - c0) + c]!);
              row[c1 - c0 + c] = round(u[m * (c1 - c0) + c]!);
            }
            actMul(row, 0, c1 - c0, act.activation ?? 'silu', out, 0, round);
            vals.push(...out);
          }
          stores.push({ tensor, op: stage.indices[actPos]!, add: false, indices, values: vals });
        } else {
          throw new Error(`task ${task.name} writes ${tensor}, which its stage (${stage.ops.map((o) => o.id).join(', ')}) does not produce`);
        }
      }
    }
    return stores;
  }

  private runAttention(task: Task, stage: Stage): Store[] {
    const att = stage.ops[stage.ops.length - 1] as AttentionOp;
    // The prologue (q/k-norm, RoPE, KV-append) runs in registers before the attention.
    const { t, local } = this.view(stage, (t) => {
      for (const op of stage.ops.slice(0, -1)) this.ops.rowOp(op as RowOp, t);
    });
    const chunks = this.kvChunks(task, att);
    // A split-KV combine reads the partials of every split (a kernel workspace): its output is
    // the attention over the whole KV length.
    const combines = task.tiles.some((tl) => tl.reads.some((r) => !this.tensorSpec.has(this.bufferName(r))));
    const round = this.ops.round;
    const d = att.headDim;
    const group = att.heads / att.kvHeads;
    const stores: Store[] = [];
    for (const tile of task.tiles) {
      for (const r of tile.writes) {
        const tensor = this.bufferName(r);
        // A kernel's own workspace (split-KV partials) is not a tensor of the model.
        if (!this.tensorSpec.has(tensor)) continue;
        const pos = this.writerOf(stage, tensor, task);
        const indices = this.regionElements(r, tensor, task);
        if (pos < stage.ops.length - 1) {
          const data = local.get(tensor)!;
          stores.push({ tensor, op: stage.indices[pos]!, add: false, indices, values: indices.map((i) => data[i]!) });
          continue;
        }
        // Output rows: request b, query heads [h0, h1), whole KV groups.
        const values: number[] = [];
        const perRequest = att.heads * d;
        for (let k = 0; k < indices.length; ) {
          const e = indices[k]!;
          const b = Math.floor(e / perRequest);
          const head = Math.floor((e % perRequest) / d);
          const kvHead = Math.floor(head / group);
          const key = `${b}:${kvHead}`;
          const ch = chunks.get(key) ?? (combines ? [{ t0: 0, t1: att.kvLen }] : undefined);
          if (!ch) throw new Error(`task ${task.name} writes attention output of request ${b}, KV head ${kvHead} without reading its K cache`);
          const out = this.ops.attentionGroup(att, t, b, kvHead, ch);
          const groupStart = (b * att.heads + kvHead * group) * d;
          // Emit every index of this group the region covers.
          while (k < indices.length && indices[k]! >= groupStart && indices[k]! < groupStart + group * d) {
            values.push(round(out[indices[k]! - groupStart]!));
            k++;
          }
        }
        stores.push({ tensor, op: stage.indices[stage.ops.length - 1]!, add: false, indices, values });
      }
    }
    return stores;
  }

  private readonly clusterPlans = new Map<number, ClusterPlan>();
  /** The view each cluster of a fused attention block reads, by `stage first:cluster`. */
  private readonly clusterViews = new Map<string, View>();

  private clusterPlan(stage: Stage): ClusterPlan {
    let plan = this.clusterPlans.get(stage.first);
    if (!plan) {
      const ops = stage.ops;
      const tasks = this.tg.tasks.filter((t) => this.stages[t.id] === stage);
      const names = { bufferName: (r: Region) => this.bufferName(r), elementBytes: (n: string) => this.elementBytes(n) };
      plan = new ClusterPlan(names, ops[0] as LinearOp, ops[ops.length - 2] as AttentionOp, ops[ops.length - 1] as LinearOp, tasks);
      this.clusterPlans.set(stage.first, plan);
    }
    return plan;
  }

  /**
   * A fused attention block (ClusterFusion). A cluster's CTAs exchange q/k/v slices and
   * softmax statistics, so each CTA's result depends on what all of them read: the cluster
   * reads memory once, when its first CTA starts (its QKV projection over the columns its
   * CTAs' W_qkv rows cover, q/k-norm, RoPE and KV append in registers, then split-KV attention
   * over the chunks its CTAs read). Each CTA stores, when it ends, the K/V entries its write
   * regions name and its output-projection partial sums, added to the output as the kernel's
   * atomic adds are. (The added partials start from zeros: the output buffer is zeroed before
   * the kernel, as ClusterFusion's host code does.)
   */
  private runCluster(task: Task, stage: Stage): Store[] {
    const plan = this.clusterPlan(stage);
    const { qkv: qkvOp, att, out: outOp } = plan;
    const round = this.ops.round;
    const clusterKey = `${stage.first}:${plan.clusterOf.get(task.id)!}`;
    let v = this.clusterViews.get(clusterKey);
    if (!v) {
      v = this.view(stage, (t) => {
        const y = t(qkvOp.outputs[0]!);
        for (const [m, cols] of plan.qkvCols) {
          for (const [n0, n1] of cols) {
            const p = this.ops.linearBox(qkvOp, t, { m0: m, m1: m + 1, n0, n1 });
            for (let i = 0; i < p.length; i++) y[m * qkvOp.n + n0 + i] = round(p[i]!);
          }
        }
        for (const op of stage.ops.slice(1, -2)) this.ops.rowOp(op as RowOp, t);
      });
      this.clusterViews.set(clusterKey, v);
    }
    const { t, local, done } = v;
    const d = att.headDim;
    const group = att.heads / att.kvHeads;
    const attn = t(att.outputs[0]!);
    const attend = (m: number, g: number): void => {
      const unit = `${m}:${g}`;
      if (done.has(unit)) return;
      const ch = plan.chunks.get(unit);
      if (!ch)
        throw new Error(
          `task ${task.name} projects the attention output of request ${m}, KV head ${g}, which no CTA of its block attends to (no K-cache read)`,
        );
      const o = this.ops.attentionGroup(att, t, m, g, ch);
      const base = (m * att.heads + g * group) * d;
      for (let i = 0; i < o.length; i++) attn[base + i] = round(o[i]!);
      done.add(unit);
    };
    const outPos = stage.ops.length - 1;
    const stores: Store[] = [];
    for (const tile of task.tiles) {
      for (const p of plan.outputPartials(task, tile.reads, tile.writes)) {
        for (const g of plan.groupsOf(p)) attend(p.m, g);
        const values = this.ops.linearBox(outOp, t, { m0: p.m, m1: p.m + 1, n0: p.n0, n1: p.n1, k0: p.k0, k1: p.k1 });
        const indices = Array.from({ length: p.n1 - p.n0 }, (_, i) => p.m * outOp.n + p.n0 + i);
        stores.push({ tensor: outOp.outputs[0]!, op: stage.indices[outPos]!, add: true, indices, values });
      }
      for (const r of tile.writes) {
        const tensor = this.bufferName(r);
        if (tensor === outOp.outputs[0]) continue;
        const pos = this.writerOf(stage, tensor, task);
        if (pos === outPos - 1)
          throw new Error(
            `task ${task.name}: a fused attention block stores its attention output ${tensor} (only its output projection's partial sums are modelled)`,
          );
        const indices = this.regionElements(r, tensor, task);
        const data = local.get(tensor)!;
        stores.push({ tensor, op: stage.indices[pos]!, add: false, indices, values: indices.map((i) => data[i]!) });
      }
    }
    return stores;
  }

  /** KV chunks the task's tiles read, per (request, KV head), in sequence order. */
  private kvChunks(task: Task, att: AttentionOp): Map<string, KvChunk[]> {
    const out = new Map<string, KvChunk[]>();
    const eb = this.elementBytes(att.kCache);
    const d = att.headDim;
    for (const tile of task.tiles) {
      for (const r of tile.reads) {
        if (this.bufferName(r) !== att.kCache) continue;
        const e = r.offset / eb;
        const entry = Math.floor(e / d / att.kvLen);
        const t0 = (e / d) % att.kvLen;
        const t1 = t0 + r.bytes / eb / d;
        const key = `${Math.floor(entry / att.kvHeads)}:${entry % att.kvHeads}`;
        const list = out.get(key) ?? [];
        list.push({ t0, t1 });
        out.set(key, list);
      }
    }
    for (const list of out.values()) list.sort((a, b) => a.t0 - b.t0);
    return out;
  }
}
