/**
 * What the CTAs of a fused attention block (ClusterFusion) compute together, read off their
 * regions. Per KV head the CTAs of one cluster split the QKV projection's rows (then gather
 * q/k/v through DSMEM) and, for each request, the KV sequence (then reduce the softmax
 * statistics and the output), and each adds its rows of the output projection into the
 * output rows of the requests it serves. So a CTA's result depends on what its whole cluster reads:
 * - the QKV-projection columns a request row gets are the W_qkv rows its CTAs read (with the
 *   activation rows those tiles read: one, or a strided run of whole rows);
 * - a unit's flash-decoding chunks are the K-cache slices the cluster reads: position ranges,
 *   whole head vectors or (SplitHead) slices of the head dimension that together cover it;
 * - a CTA's clusters are the CTAs serving the same units (K-cache reads and the W_o columns
 *   of its output-projection tiles name them).
 */
import type { AttentionOp, LinearOp, Region, Task } from '@fleet/core';
import type { KvChunk } from './decode-ops.js';

/** Names and element sizes of the buffers regions point into. */
export interface RegionNames {
  bufferName(r: Region): string;
  elementBytes(tensor: string): number;
}

/** An output-projection tile: output row `m`, columns [n0, n1), summed over attention columns [k0, k1). */
export interface OutputPartial {
  m: number;
  n0: number;
  n1: number;
  k0: number;
  k1: number;
}

/** Half-open interval union, sorted. */
function merge(list: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...list].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

export class ClusterPlan {
  /** Cluster index of each of the block's tasks (by task id). */
  readonly clusterOf = new Map<number, number>();
  /** QKV-projection output columns computed for each request row, merged. */
  readonly qkvCols = new Map<number, Array<[number, number]>>();
  /** Flash-decoding chunks of each `request:kvHead` unit, in sequence order. */
  readonly chunks = new Map<string, KvChunk[]>();

  constructor(
    private readonly names: RegionNames,
    readonly qkv: LinearOp,
    readonly att: AttentionOp,
    readonly out: LinearOp,
    tasks: readonly Task[],
  ) {
    const parent = tasks.map((_, i) => i);
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
    const owner = new Map<string, number>();
    const cols = new Map<number, Array<[number, number]>>();
    const chunkDims = new Map<string, Map<string, Uint8Array>>();
    tasks.forEach((task, i) => {
      const units = new Set<string>();
      for (const tile of task.tiles) {
        for (const [r, n0, n1] of this.qkvRows(task, tile.reads)) {
          const list = cols.get(r) ?? [];
          list.push([n0, n1]);
          cols.set(r, list);
        }
        for (const c of this.kvReads(task, tile.reads)) {
          units.add(c.unit);
          const byChunk = chunkDims.get(c.unit) ?? new Map<string, Uint8Array>();
          const key = `${c.t0}:${c.t1}`;
          const dims = byChunk.get(key) ?? new Uint8Array(att.headDim);
          dims.fill(1, c.d0, c.d1);
          byChunk.set(key, dims);
          chunkDims.set(c.unit, byChunk);
        }
        for (const p of this.outputPartials(task, tile.reads, tile.writes)) for (const g of this.groupsOf(p)) units.add(`${p.m}:${g}`);
      }
      for (const u of units) {
        const o = owner.get(u);
        if (o === undefined) owner.set(u, i);
        else parent[find(i)] = find(o);
      }
    });
    tasks.forEach((task, i) => {
      this.clusterOf.set(task.id, find(i));
    });
    for (const [r, list] of cols) this.qkvCols.set(r, merge(list));
    for (const [unit, byChunk] of chunkDims) {
      const list: KvChunk[] = [];
      for (const [key, dims] of byChunk) {
        const [t0, t1] = key.split(':').map(Number) as [number, number];
        if (dims.includes(0)) throw new Error(`${out.id}: positions ${t0}..${t1 - 1} of K-cache entry ${unit} are read over only part of the head dimension`);
        list.push({ t0, t1 });
      }
      this.chunks.set(
        unit,
        list.sort((a, b) => a.t0 - b.t0 || a.t1 - b.t1),
      );
    }
  }

  /** KV heads whose attention output columns [k0, k1) of an output-projection tile span. */
  groupsOf(p: OutputPartial): number[] {
    const { headDim: d, heads, kvHeads } = this.att;
    const group = heads / kvHeads;
    const out: number[] = [];
    for (let h = Math.floor(p.k0 / d); h < Math.ceil(p.k1 / d); h++) {
      const g = Math.floor(h / group);
      if (out[out.length - 1] !== g) out.push(g);
    }
    return out;
  }

  /** [request, first column, end column) of each W_qkv read of a tile, per activation row it reads (whole rows of both). */
  private qkvRows(task: Task, reads: readonly Region[]): Array<[number, number, number]> {
    const w = reads.filter((r) => this.names.bufferName(r) === this.qkv.weight);
    if (w.length === 0) return [];
    const k = this.qkv.k;
    const xName = this.qkv.inputs[0]!;
    const x = reads.find((r) => this.names.bufferName(r) === xName);
    const xe = this.names.elementBytes(xName);
    const xRows = x?.rows ?? 1;
    if (!x || x.bytes !== k * xe || x.offset % (k * xe) !== 0 || (xRows > 1 && x.strideBytes !== k * xe)) {
      throw new Error(`task ${task.name}: a tile reading ${this.qkv.weight} must read whole rows of ${xName}`);
    }
    const r0 = x.offset / (k * xe);
    const we = this.names.elementBytes(this.qkv.weight);
    return w.flatMap((reg) => {
      const e = reg.offset / we;
      const rows = reg.rows === undefined ? reg.bytes / we / k : reg.bytes === k * we && reg.strideBytes === k * we ? reg.rows : NaN;
      if (e % k !== 0 || !Number.isInteger(rows))
        throw new Error(`task ${task.name}: reads part of a row of ${this.qkv.weight} (a split-K QKV projection inside a fused block is not modelled)`);
      return Array.from({ length: xRows }, (_, i): [number, number, number] => [r0 + i, e / k, e / k + rows]);
    });
  }

  /** K-cache slices of a tile: unit `request:kvHead`, positions [t0, t1), head-dim elements [d0, d1). */
  private kvReads(task: Task, reads: readonly Region[]): Array<KvChunk & { unit: string; d0: number; d1: number }> {
    const { kCache, kvLen, kvHeads, headDim: d } = this.att;
    const eb = this.names.elementBytes(kCache);
    const out: Array<KvChunk & { unit: string; d0: number; d1: number }> = [];
    for (const r of reads) {
      if (this.names.bufferName(r) !== kCache) continue;
      const e = r.offset / eb;
      const entry = Math.floor(e / (kvLen * d));
      const within = e - entry * kvLen * d;
      const t0 = Math.floor(within / d);
      const d0 = within % d;
      const len = r.bytes / eb;
      let t1: number;
      let d1: number;
      if (r.rows !== undefined && r.rows > 1) {
        if (r.strideBytes !== d * eb || d0 + len > d)
          throw new Error(`task ${task.name}: a strided read of ${kCache} must take one head-dim slice per position`);
        t1 = t0 + r.rows;
        d1 = d0 + len;
      } else if (d0 === 0 && len % d === 0) {
        t1 = t0 + len / d;
        d1 = d;
      } else if (d0 + len <= d) {
        t1 = t0 + 1;
        d1 = d0 + len;
      } else {
        throw new Error(`task ${task.name}: a read of ${kCache} at element ${e} covers neither whole head vectors nor one slice of one`);
      }
      out.push({ unit: `${Math.floor(entry / kvHeads)}:${entry % kvHeads}`, t0, t1, d0, d1 });
    }
    return out;
  }

  /** Output-projection tiles: each output row a write names (one, or a strided run) and the W_o rows × attention columns the tile reads. */
  outputPartials(task: Task, reads: readonly Region[], writes: readonly Region[]): OutputPartial[] {
    const name = this.out.outputs[0]!;
    const out: OutputPartial[] = [];
    for (const w of writes) {
      if (this.names.bufferName(w) !== name) continue;
      const { n, k } = this.out;
      const oe = this.names.elementBytes(name);
      const len = w.bytes / oe;
      const e = w.offset / oe;
      const m0 = Math.floor(e / n);
      const n0 = e % n;
      const mRows = w.rows ?? 1;
      if (n0 + len > n || (mRows > 1 && w.strideBytes !== n * oe))
        throw new Error(`task ${task.name}: a write of ${name} must lie within one row (or the same columns of consecutive rows)`);
      const ranges: Array<[number, number]> = [];
      const we = this.names.elementBytes(this.out.weight);
      for (const r of reads) {
        if (this.names.bufferName(r) !== this.out.weight) continue;
        const re = r.offset / we;
        const row0 = Math.floor(re / k);
        const k0 = re % k;
        const cols = r.rows === undefined && k0 === 0 ? k : r.bytes / we;
        const rows = r.rows === undefined ? r.bytes / we / cols : r.rows;
        if (row0 !== n0 || rows !== len || (r.rows !== undefined && r.strideBytes !== k * we)) {
          throw new Error(
            `task ${task.name}: writes ${name} columns ${n0}..${n0 + len - 1} of row ${m0} but reads ${this.out.weight} rows ${row0}..${row0 + rows - 1}`,
          );
        }
        ranges.push([k0, k0 + cols]);
      }
      if (ranges.length === 0) throw new Error(`task ${task.name}: writes ${name} without reading ${this.out.weight}`);
      const merged = merge(ranges);
      for (let m = m0; m < m0 + mRows; m++) for (const [k0, k1] of merged) out.push({ m, n0, n1: n0 + len, k0, k1 });
    }
    return out;
  }
}
