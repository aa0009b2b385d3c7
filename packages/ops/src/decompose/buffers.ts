import { tensorBytes, type BufferSpec, type OpGraph } from '@fleet/core';

/** Buffer table of a compiled graph: one buffer per tensor of the op graph (kept layers only). */
export class BufferTable {
  readonly buffers: BufferSpec[] = [];
  private readonly ids = new Map<string, number>();

  constructor(graph: OpGraph, keep: (tensorName: string) => boolean) {
    for (const t of graph.tensors) {
      if (!keep(t.name)) continue;
      this.add(t.name, tensorBytes(t), t.kind);
    }
  }

  add(name: string, bytes: number, kind: BufferSpec['kind']): number {
    const existing = this.ids.get(name);
    if (existing !== undefined) return existing;
    const id = this.buffers.length;
    this.buffers.push({ id, name, bytes, kind });
    this.ids.set(name, id);
    return id;
  }

  id(name: string): number {
    const id = this.ids.get(name);
    if (id === undefined) throw new Error(`compiled graph has no buffer '${name}'`);
    return id;
  }
}
