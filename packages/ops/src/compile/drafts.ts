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
}

/** The op a stage is named for: its linear, attention or grouped GEMM, else its first op. */
export function mainKind(s: Stage): Task['kind'] {
  return (s.ops.find((o) => o.kind === 'linear' || o.kind === 'attention' || o.kind === 'grouped-linear') ?? s.ops[0]!).kind;
}
