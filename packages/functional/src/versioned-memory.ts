/**
 * Memory for functional execution, versioned by producer. Each op that writes a tensor owns
 * a layer of that tensor; a task's writes land in its op's layer when the task ends. A task
 * reads tensor X as the straight-line program would just before its stage — the layer of
 * X's last writer before the stage — and, element by element, wherever that writer has not
 * stored yet, whatever older layer holds: exactly what a real buffer would still contain if
 * a consumer ran before its producer. So a missing dependency shows up as wrong numbers.
 *
 * (Keeping layers apart instead of one buffer makes write-after-read races invisible: a
 * writer that runs too early cannot clobber what a slow reader of the previous version
 * still needs. Fleet's policies only order stages by read-after-write edges, which this
 * checks.)
 */
import type { OpGraph } from '@fleet/core';

interface Layer {
  values: Float32Array;
  written: Uint8Array;
  /** Split-K partial sums land here; `values` holds their rounded total so far. */
  sums: Float64Array | null;
}

export class VersionedMemory {
  private readonly initial = new Map<string, Float32Array>();
  private readonly layers = new Map<string, Map<number, Layer>>();
  /** Op indices writing each tensor, ascending. */
  private readonly writers = new Map<string, number[]>();
  /** Per tensor and layer: how many times it was written (layer -1: the initial contents). */
  private readonly generations = new Map<string, Map<number, number>>();
  private readonly cache = new Map<string, { key: string; data: Float32Array }>();

  constructor(
    graph: OpGraph,
    private readonly round: (x: number) => number,
  ) {
    for (const t of graph.tensors) {
      if (t.kind === 'weight') continue;
      const n = t.shape.reduce((a, b) => a * b, 1);
      this.initial.set(t.name, new Float32Array(n));
      this.layers.set(t.name, new Map());
      this.writers.set(t.name, []);
      this.generations.set(t.name, new Map());
    }
    graph.ops.forEach((op, i) => {
      for (const o of op.outputs) this.writers.get(o)?.push(i);
    });
  }

  has(name: string): boolean {
    return this.initial.has(name);
  }

  /** Set the contents the tensor has before the step (the KV cache, the input tokens). */
  setInitial(name: string, data: ArrayLike<number>): void {
    const t = this.tensor(name);
    t.set(data);
    this.bump(name, -1);
  }

  private bump(name: string, layer: number): void {
    const g = this.generations.get(name)!;
    g.set(layer, (g.get(layer) ?? 0) + 1);
  }

  private lastWriterBefore(name: string, before: number): number {
    let last = -1;
    for (const w of this.writers.get(name) ?? []) if (w < before) last = w;
    return last;
  }

  /**
   * Changes whenever what `read(name, before)` returns may change: a write to a layer at or
   * below the version read. Writes to later layers leave it alone.
   */
  signature(name: string, before: number): string {
    const last = this.lastWriterBefore(name, before);
    const g = this.generations.get(name)!;
    let sig = `${last}`;
    for (const [layer, n] of g) if (layer <= last) sig += `,${layer}:${n}`;
    return sig;
  }

  private tensor(name: string): Float32Array {
    const t = this.initial.get(name);
    if (!t) throw new Error(`no activation or cache tensor '${name}'`);
    return t;
  }

  private layer(name: string, op: number): Layer {
    const byOp = this.layers.get(name)!;
    let l = byOp.get(op);
    if (!l) {
      const n = this.tensor(name).length;
      l = { values: new Float32Array(n), written: new Uint8Array(n), sums: null };
      byOp.set(op, l);
    }
    return l;
  }

  /** The tensor as an op at index `before` reads it (a fresh copy). */
  read(name: string, before: number): Float32Array {
    const ws = this.writers.get(name) ?? [];
    const last = this.lastWriterBefore(name, before);
    const key = this.signature(name, before);
    const hit = this.cache.get(name);
    if (hit && hit.key === key) return hit.data.slice();
    const out = this.tensor(name).slice();
    const byOp = this.layers.get(name)!;
    for (const w of ws) {
      if (w > last) break;
      const l = byOp.get(w);
      if (!l) continue;
      for (let i = 0; i < out.length; i++) if (l.written[i]) out[i] = l.values[i]!;
    }
    this.cache.set(name, { key, data: out });
    return out.slice();
  }

  /** The tensor after every write (end of step). */
  latest(name: string): Float32Array {
    return this.read(name, Number.POSITIVE_INFINITY);
  }

  /** Store values at element indices into op `op`'s layer. */
  write(name: string, op: number, indices: ArrayLike<number>, values: ArrayLike<number>): void {
    const l = this.layer(name, op);
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k]!;
      l.values[i] = values[k]!;
      l.written[i] = 1;
    }
    this.bump(name, op);
  }

  /** Add partial sums (a split-K tile's contribution); the stored value is their rounded total. */
  accumulate(name: string, op: number, indices: ArrayLike<number>, partials: ArrayLike<number>): void {
    const l = this.layer(name, op);
    l.sums ??= new Float64Array(l.values.length);
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k]!;
      l.sums[i]! += partials[k]!;
      l.values[i] = this.round(l.sums[i]!);
      l.written[i] = 1;
    }
    this.bump(name, op);
  }
}
