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
 * - a flash-decoding task's KV chunks are the K-cache slices its tiles read.
 * A chiplet-task (run by every worker of a partition) reads when its first worker starts
 * and stores when its last worker ends.
 */
import { DTYPE_BYTES, type AttentionOp, type LinearOp, type OpGraph, type Region, type RowOp, type SimEvent, type Task, type TaskGraph, type TensorSpec } from '@fleet/core';
import { actMul } from '../numerics/elementwise.js';
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
      if (s.add) this.memory.accumulate(s.tensor, s.op, s.indices, s.values);
      else this.memory.write(s.tensor, s.op, s.indices, s.values);
    }
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
    if (r.offset % eb !== 0 || r.bytes % eb !== 0 || stride % eb !== 0) throw new Error(`task ${task.name}: region of ${tensor} at byte ${r.offset} is not aligned to ${eb}-byte elements`);
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
  private view(stage: Stage, prepare: (t: Tensors) => void): { t: Tensors; local: Map<string, Float32Array> } {
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
    const v = { key, t, local };
    this.views.set(stage.first, v);
    return v;
  }

  private readonly views = new Map<number, { key: string; t: Tensors; local: Map<string, Float32Array> }>();

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
    }
  }

  /** Elements a write region of a row-wise op stores. */
  private rowStoreElements(task: Task, stage: Stage, opPos: number, r: Region, tensor: string): number[] {
    const op = stage.ops[opPos] as RowOp;
    if (!HEAD_ROW_OPS.has(op.kind)) return this.regionElements(r, tensor, task);
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
      for (const op of stage.ops) this.ops.rowOp(op as RowOp, t);
    });
    const stores: Store[] = [];
    for (const tile of task.tiles) {
      for (const r of tile.writes) {
        const tensor = this.bufferName(r);
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
    const eb = this.elementBytes(op.inputs[0]!);
    const len = x.bytes / eb;
    if (x.rows === undefined || len >= op.k) return { k0: 0, k1: op.k };
    const k0 = (x.offset / eb) % op.k;
    return { k0, k1: k0 + len };
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
      for (const r of tile.writes) {
        const tensor = this.bufferName(r);
        const indices = this.regionElements(r, tensor, task);
        if (indices.length === 0) continue;
        const ld = this.tensorSpec.get(tensor)!.shape[1]!;
        const m0 = Math.floor(indices[0]! / ld);
        const m1 = Math.floor(indices[indices.length - 1]! / ld) + 1;
        const c0 = indices[0]! % ld;
        const c1 = c0 + (indices.length / (m1 - m0));
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
            stores.push({ tensor: res.outputs[0]!, op: stage.indices[residualPos]!, add: false, indices, values: indices.map((e, k) => round(other[e]! + y[k]!)) });
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
    const round = this.ops.round;
    const d = att.headDim;
    const group = att.heads / att.kvHeads;
    const stores: Store[] = [];
    for (const tile of task.tiles) {
      for (const r of tile.writes) {
        const tensor = this.bufferName(r);
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
          const ch = chunks.get(key);
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
