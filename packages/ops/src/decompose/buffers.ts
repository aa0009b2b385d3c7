import { graphRows, tensorBytes, type BufferSpec, type OpGraph } from '@fleet/core';
import { paddedRows } from './linear.js';

/**
 * Buffer table of a compiled graph: one buffer per tensor of the op graph (kept layers
 * only). Activations are allocated for whole batch tiles (rows rounded up to the largest
 * tile that reads them padded), as inference engines size them for fixed tile shapes.
 */
export class BufferTable {
  readonly buffers: BufferSpec[] = [];
  private readonly ids = new Map<string, number>();

  constructor(graph: OpGraph, keep: (tensorName: string) => boolean) {
    const rows = graphRows(graph);
    for (const t of graph.tensors) {
      if (!keep(t.name)) continue;
      const padded = t.kind === 'activation' && (t.shape[0] === rows || t.shape[0] === graph.batch) ? paddedRows(t.shape[0]!) : t.shape[0]!;
      this.add(t.name, (tensorBytes(t) / t.shape[0]!) * padded, t.kind);
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

  /** Change a buffer's size (a weight stored in another type). */
  resize(name: string, bytes: number): void {
    this.buffers[this.id(name)]!.bytes = bytes;
  }

  /** Whether a buffer of that name exists. */
  has(name: string): boolean {
    return this.ids.has(name);
  }

  id(name: string): number {
    const id = this.ids.get(name);
    if (id === undefined) throw new Error(`compiled graph has no buffer '${name}'`);
    return id;
  }
}
