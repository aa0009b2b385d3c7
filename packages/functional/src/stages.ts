/**
 * Which ops a compiled task computes. A policy compiles a run of consecutive ops into one
 * stage (a kernel, or one dependency stage of a persistent kernel: a linear with its fused
 * epilogue, attention with its q/k-norm, RoPE and KV-append prologue, fused residual +
 * RMSNorm…, or a cluster kernel's whole QKV-projection-to-output-projection block). Every
 * task carries the id of its stage's first op; a stage runs up to the next stage's first op —
 * within its kernel's op list for kernel-per-op graphs (a kernel may hold more than one stage;
 * a fused block's tasks name its attention op, see `kernelStages`), in op-graph order
 * otherwise.
 */
import type { OpGraph, OpNode, TaskGraph } from '@fleet/core';

/**
 * `cluster`: a fused attention block (ClusterFusion): the QKV projection, its q/k-norm, RoPE
 * and KV-append, attention, and the output projection, whose partial sums are added
 * atomically into the output.
 */
export type StageKind = 'rows' | 'linear' | 'attention' | 'cluster';

const CLUSTER_PROLOGUE = new Set(['qk-norm', 'rope', 'kv-append']);

export interface Stage {
  /** Index (in the op graph) of the stage's first op; the stage reads memory as of just before it. */
  first: number;
  ops: OpNode[];
  /** Op-graph index of each op. */
  indices: number[];
  kind: StageKind;
  /** Activation and cache tensors the stage's ops read or write. */
  tensors: string[];
}

function kindOf(ops: readonly OpNode[], taskName: string): StageKind {
  const att = ops.findIndex((o) => o.kind === 'attention');
  // Latent attention (and its RoPE/append prologue) runs whole on the stage's view.
  if (att >= 0 && ops.every((o) => o.kind !== 'linear') && (ops[att] as { latent?: unknown }).latent) return 'rows';
  if (att >= 0 && ops.some((o) => o.kind === 'linear')) {
    const n = ops.length;
    const fusedBlock =
      n >= 3 && ops[0]!.kind === 'linear' && att === n - 2 && ops[n - 1]!.kind === 'linear' && ops.slice(1, att).every((o) => CLUSTER_PROLOGUE.has(o.kind));
    if (!fusedBlock)
      throw new Error(
        `task ${taskName}: a fused attention block is QKV projection, q/k-norm/RoPE/KV-append, attention and output projection (${ops.map((o) => o.id).join(', ')})`,
      );
    return 'cluster';
  }
  if (att >= 0) {
    if (att !== ops.length - 1 || ops.some((o) => o.kind === 'linear'))
      throw new Error(`task ${taskName}: attention must end its stage (${ops.map((o) => o.id).join(', ')})`);
    return 'attention';
  }
  const lin = ops.findIndex((o) => o.kind === 'linear');
  if (lin >= 0) {
    if (lin !== 0 || ops.slice(1).some((o) => o.kind !== 'residual' && o.kind !== 'act-mul')) {
      throw new Error(`task ${taskName}: a linear stage is the linear op and an optional residual or activation epilogue (${ops.map((o) => o.id).join(', ')})`);
    }
    return 'linear';
  }
  return 'rows';
}

/**
 * The stages of one kernel: the op indices of the stage each named op (one its tasks name)
 * starts. A stage runs up to the next named op; ops before the first named op join the first
 * stage; and an attention stage that runs on into a linear (the output projection of a fused
 * attention block, whose tasks name its attention op) also takes the QKV projection and
 * prologue ops before it — even when a merged kernel puts another stage before them.
 */
function kernelStages(graph: OpGraph, ids: readonly number[], named: ReadonlySet<number>): Map<number, number[]> {
  const starts = ids.flatMap((op, p) => (named.has(op) ? [p] : []));
  const bounds = starts.map((p, i) => [i === 0 ? 0 : p, starts[i + 1] ?? ids.length] as [number, number]);
  const kind = (p: number) => graph.ops[ids[p]!]!.kind;
  starts.forEach((p, i) => {
    const [, end] = bounds[i]!;
    if (kind(p) !== 'attention' || !ids.slice(p + 1, end).some((_, j) => kind(p + 1 + j) === 'linear')) return;
    const floor = i === 0 ? 0 : starts[i - 1]! + 1;
    let b = p;
    while (b > floor && CLUSTER_PROLOGUE.has(kind(b - 1))) b--;
    if (b > floor && kind(b - 1) === 'linear') b--;
    bounds[i]![0] = Math.min(bounds[i]![0], b);
    if (i > 0) bounds[i - 1]![1] = Math.min(bounds[i - 1]![1], b);
  });
  return new Map(starts.map((p, i) => [ids[p]!, ids.slice(bounds[i]![0], bounds[i]![1])]));
}

/** The stage of every task, indexed by task id. */
export function stagesOf(graph: OpGraph, tg: TaskGraph): Stage[] {
  const index = new Map(graph.ops.map((o, i) => [o.id, i]));
  const weights = new Set(graph.tensors.filter((t) => t.kind === 'weight').map((t) => t.name));
  const idx = (id: string, task: string): number => {
    const i = index.get(id);
    if (i === undefined) throw new Error(`task ${task} names op '${id}', which the op graph lacks`);
    return i;
  };
  const starts = [...new Set(tg.tasks.map((t) => idx(t.opId, t.name)))].sort((a, b) => a - b);
  const byKey = new Map<string, Stage>();
  const make = (indices: number[], task: string): Stage => {
    const key = indices.join(',');
    let s = byKey.get(key);
    if (!s) {
      const ops = indices.map((i) => graph.ops[i]!);
      const tensors = [...new Set(ops.flatMap((o) => [...o.inputs, ...o.outputs]))].filter((n) => !weights.has(n));
      s = { first: indices[0]!, ops, indices, kind: kindOf(ops, task), tensors };
      byKey.set(key, s);
    }
    return s;
  };
  const bounds = new Map<number, Map<number, number[]>>();
  return tg.tasks.map((t) => {
    const first = idx(t.opId, t.name);
    if (t.kernel !== undefined && tg.kernels[t.kernel]) {
      const k = tg.kernels[t.kernel]!;
      const ids = k.opIds.map((id) => idx(id, t.name));
      if (!ids.includes(first)) throw new Error(`task ${t.name} names op '${t.opId}', which its kernel ${k.name} does not run`);
      let byStart = bounds.get(t.kernel);
      if (!byStart) {
        byStart = kernelStages(graph, ids, new Set(k.tasks.map((id) => idx(tg.tasks[id]!.opId, t.name))));
        bounds.set(t.kernel, byStart);
      }
      return make(byStart.get(first)!, t.name);
    }
    const next = starts.find((s) => s > first) ?? graph.ops.length;
    const indices: number[] = [];
    // A sampled-layer graph skips whole layers: a stage never reaches into another layer.
    for (let i = first; i < next; i++) if (graph.ops[i]!.layer === graph.ops[first]!.layer) indices.push(i);
    return make(indices, t.name);
  });
}
