/** Tasks and stages as a family lowers them, before ids and events are assigned. */
import type { OpNode, Task, TaskLevel, Tile } from '@fleet/core';

/** A task before ids and events are assigned. */
export interface Draft {
  name: string;
  level: TaskLevel;
  partition: number | null;
  tiles: Tile[];
}

/** Ops that run together: one kernel, or one dependency stage of a persistent kernel. */
export interface Stage {
  name: string;
  layer: number;
  ops: OpNode[];
  drafts: Draft[];
  /** Kernel-per-op: a second kernel the stage's library kernel needs (split-KV combine). */
  epilogue?: Draft[];
  /** Kernel-per-op: a kernel the library kernel needs first (dequantize-then-GEMM's weight expansion). */
  prologue?: Draft[];
}

/**
 * The task of draft `d` of stage `s`, numbered `id`: it runs at `level` in `partition`, waits
 * for `waits`, signals `signal`, and belongs to `kernel` in a kernel-per-op graph.
 */
export function stageTask(
  s: Stage,
  d: Draft,
  id: number,
  at: { level: TaskLevel; partition: number | null; waits: number[]; signal: number | null; kernel?: number },
): Task {
  return {
    id,
    name: d.name,
    opId: s.ops[0]!.id,
    kind: mainKind(s),
    layer: s.layer,
    level: at.level,
    partition: at.partition,
    tiles: d.tiles,
    waits: at.waits,
    signal: at.signal,
    ...(at.kernel === undefined ? {} : { kernel: at.kernel }),
  };
}

/** The op a stage is named for: its linear, attention or grouped GEMM, else its first op. */
export function mainKind(s: Stage): Task['kind'] {
  return (s.ops.find((o) => o.kind === 'linear' || o.kind === 'attention' || o.kind === 'grouped-linear') ?? s.ops[0]!).kind;
}
