/**
 * Which ops a compiled task computes. A policy compiles a run of consecutive ops into one
 * stage (a kernel, or one dependency stage of a persistent kernel: a linear with its fused
 * epilogue, attention with its q/k-norm, RoPE and KV-append prologue, fused residual +
 * RMSNorm…). Every task carries the id of its stage's first op; a stage runs up to the next
 * stage's first op — within its kernel's op list for kernel-per-op graphs (a kernel may hold
 * more than one stage), in op-graph order otherwise.
 */
import type { OpGraph, OpNode, TaskGraph } from '@fleet/core';

export type StageKind = 'rows' | 'linear' | 'attention';

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
  if (att >= 0) {
    if (att !== ops.length - 1 || ops.some((o) => o.kind === 'linear')) throw new Error(`task ${taskName}: attention must end its stage (${ops.map((o) => o.id).join(', ')})`);
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
  return tg.tasks.map((t) => {
    const first = idx(t.opId, t.name);
    if (t.kernel !== undefined && tg.kernels[t.kernel]) {
      const k = tg.kernels[t.kernel]!;
      const ids = k.opIds.map((id) => idx(id, t.name));
      const at = ids.indexOf(first);
      if (at < 0) throw new Error(`task ${t.name} names op '${t.opId}', which its kernel ${k.name} does not run`);
      const kernelStarts = new Set(k.tasks.map((id) => idx(tg.tasks[id]!.opId, t.name)));
      let end = at + 1;
      while (end < ids.length && !kernelStarts.has(ids[end]!)) end++;
      return make(ids.slice(at, end), t.name);
    }
    const next = starts.find((s) => s > first) ?? graph.ops.length;
    const indices: number[] = [];
    // A sampled-layer graph skips whole layers: a stage never reaches into another layer.
    for (let i = first; i < next; i++) if (graph.ops[i]!.layer === graph.ops[first]!.layer) indices.push(i);
    return make(indices, t.name);
  });
}
