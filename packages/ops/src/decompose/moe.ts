import type { AccessPolicy, AttentionOp, GroupedGemmKernel, GroupedLinearOp, Region, TaskLevel, Tile, TilePipeline } from '@fleet/core';
import { STEP_K, TILE_M, TILE_N } from './linear.js';

/**
 * Task decompositions of MoE and latent-attention ops: grouped GEMMs (only groups with rows
 * read their weight slice), routing bookkeeping, and FlashMLA-style split-KV attention over
 * the latent cache.
 */

const EL = 2;

/** A task before ids and events are assigned (compile.ts's `Draft`). */
export interface TaskDraft {
  name: string;
  level: TaskLevel;
  partition: number | null;
  tiles: Tile[];
}

export interface GroupedBuffers {
  x: number;
  w: number;
  y: number;
}

/** One tile of a grouped GEMM, before it is placed on a worker. */
export interface GroupedTile {
  /** Index into `op.groups`. */
  slot: number;
  /** Weight slice (expert or head). */
  group: number;
  tile: Tile;
}

export interface GroupedTiling {
  tileRows: number;
  tileCols: number;
  /** CTAs sharing a weight tile by multicast (the row tiles of a group are padded to a multiple). */
  clusterRows: number;
  /** Rows loaded are only those that exist (TMA out-of-bounds fill). */
  maskedRows: boolean;
  pipeline?: TilePipeline;
  weightPolicy: AccessPolicy;
  storePolicy: AccessPolicy;
  /** Output columns per input tile column (SiLU·mul in the epilogue halves them). */
  outDivisor?: number;
  /** Output buffer width in elements (default op.n / outDivisor). */
  ldOut?: number;
}

/** Ops' default tiling of a grouped GEMM: 16-row × 64-column tiles, one worker each. */
export function defaultGroupedTiling(weightPolicy: AccessPolicy, storePolicy: AccessPolicy): GroupedTiling {
  return { tileRows: TILE_M, tileCols: TILE_N, clusterRows: 1, maskedRows: true, weightPolicy, storePolicy };
}

/**
 * The tiles of a grouped GEMM in launch order — group by group, row tiles (padded to the
 * cluster), then column tiles — grouped in units of `clusterRows` tiles that share one weight
 * tile: each reads its share of the weight rows, its own input rows (none for a padding
 * tile), and writes its output rows. Weights are [numGroups, n, k] row-major.
 */
export function groupedTileUnits(op: GroupedLinearOp, b: GroupedBuffers, t: GroupedTiling): GroupedTile[][] {
  const units: GroupedTile[][] = [];
  const div = t.outDivisor ?? 1;
  const ldOut = t.ldOut ?? op.n / div;
  let row0 = 0;
  op.groups.forEach((g, slot) => {
    const rowTiles = Math.ceil(g.rows / t.tileRows);
    const padded = Math.ceil(rowTiles / t.clusterRows) * t.clusterRows;
    for (let mp = 0; mp < padded; mp += t.clusterRows) {
      for (let n0 = 0; n0 < op.n; n0 += t.tileCols) {
        const tn = Math.min(t.tileCols, op.n - n0);
        const unit: GroupedTile[] = [];
        for (let j = 0; j < t.clusterRows; j++) {
          const m = mp + j;
          const r0 = m * t.tileRows;
          const rows = Math.max(0, Math.min(t.tileRows, g.rows - r0));
          // Multicast: this CTA loads rows [w0, w1) of the cluster's weight tile.
          const w0 = n0 + Math.floor((tn * j) / t.clusterRows);
          const w1 = n0 + Math.floor((tn * (j + 1)) / t.clusterRows);
          const reads: Region[] = [];
          if (w1 > w0) reads.push({ buffer: b.w, offset: (g.group * op.n + w0) * op.k * EL, bytes: (w1 - w0) * op.k * EL, policy: t.weightPolicy });
          const loadRows = t.maskedRows ? rows : t.tileRows;
          const lay = op.layout;
          if (loadRows > 0) {
            reads.push(
              lay
                ? {
                    buffer: b.x,
                    offset: (r0 * lay.in.rowStride + g.group * lay.in.groupStride + lay.in.offset) * EL,
                    bytes: op.k * EL,
                    rows: loadRows,
                    strideBytes: lay.in.rowStride * EL,
                    policy: 'default',
                  }
                : { buffer: b.x, offset: (row0 + r0) * op.k * EL, bytes: loadRows * op.k * EL, policy: 'default' },
            );
          }
          const out = lay
            ? { at: r0 * lay.out.rowStride + g.group * lay.out.groupStride + lay.out.offset, ld: lay.out.rowStride }
            : { at: (row0 + r0) * ldOut, ld: ldOut };
          const writes: Region[] =
            rows > 0 ? [{ buffer: b.y, offset: (out.at + n0 / div) * EL, bytes: (tn / div) * EL, rows, strideBytes: out.ld * EL, policy: t.storePolicy }] : [];
          const tile: Tile = { reads, writes, flops: 2 * t.tileRows * tn * op.k, unit: 'matrix', steps: Math.max(1, Math.ceil(op.k / STEP_K)) };
          if (t.pipeline) tile.pipeline = t.pipeline;
          unit.push({ slot, group: g.group, tile });
        }
        units.push(unit);
      }
    }
    row0 += g.rows;
  });
  return units;
}

/** A library's fused grouped-GEMM kernel as workgroups: persistent CTAs take cluster units round-robin. */
export function libraryGroupedDrafts(op: GroupedLinearOp, b: GroupedBuffers, kernel: GroupedGemmKernel, t: GroupedTiling): TaskDraft[] {
  const units = groupedTileUnits(op, b, t);
  const c = t.clusterRows;
  const clusters = kernel.ctas > 0 ? Math.max(1, Math.floor(kernel.ctas / c)) : units.length;
  const ctas: Tile[][] = Array.from({ length: Math.min(clusters, units.length) * c }, () => []);
  units.forEach((unit, u) => {
    unit.forEach((gt, j) => {
      ctas[(u % clusters) * c + j]!.push(gt.tile);
    });
  });
  // The scheduler's walk over the problem list delays each CTA's first tile.
  const first = (tiles: Tile[]): Tile[] => (kernel.fixedNs ? [{ ...tiles[0]!, fixedNs: (tiles[0]!.fixedNs ?? 0) + kernel.fixedNs }, ...tiles.slice(1)] : tiles);
  return ctas.filter((tiles) => tiles.length > 0).map((tiles, i) => ({ name: `${op.id}.cta${i}`, level: 'cu', partition: null, tiles: first(tiles) }));
}

/**
 * A grouped GEMM as chiplet-tasks: `owner` puts every tile of a group on one partition (group
 * g on partition g mod P: its weights, inputs and outputs stay in that partition's L2);
 * `spread` splits each group's columns over all partitions, as a dense chiplet linear does
 * (balanced, but each partition reads every group's inputs).
 */
export function chipletGroupedDrafts(op: GroupedLinearOp, b: GroupedBuffers, t: GroupedTiling, partitions: number, placement: 'owner' | 'spread'): TaskDraft[] {
  const units = groupedTileUnits(op, b, t);
  const per: Tile[][] = Array.from({ length: partitions }, () => []);
  if (placement === 'owner') {
    for (const u of units) for (const gt of u) per[gt.group % partitions]!.push(gt.tile);
  } else {
    // Column tiles of each group dealt over the partitions in contiguous runs.
    const bySlot = new Map<number, GroupedTile[]>();
    for (const u of units) for (const gt of u) bySlot.set(gt.slot, [...(bySlot.get(gt.slot) ?? []), gt]);
    for (const tiles of bySlot.values()) {
      tiles.forEach((gt, i) => {
        per[Math.floor((i * partitions) / tiles.length)]!.push(gt.tile);
      });
    }
  }
  return per.map((tiles, p) => ({ name: `${op.id}.x${p}`, level: 'chiplet' as const, partition: p, tiles })).filter((d) => d.tiles.length > 0);
}

/** One CU-task per tile (persistent megakernels without chiplet tasks; kernel-per-op without a library). */
export function cuGroupedDrafts(op: GroupedLinearOp, b: GroupedBuffers, t: GroupedTiling): TaskDraft[] {
  return groupedTileUnits(op, b, t).flatMap((u, i) =>
    u.map((gt, j) => ({ name: `${op.id}.t${i}${u.length > 1 ? `.${j}` : ''}`, level: 'cu' as const, partition: null, tiles: [gt.tile] })),
  );
}

/**
 * A routing bookkeeping kernel (argsort, histogram, prefix sum, index fill…): one workgroup
 * reading and writing the step's expert indices, `slots` entries of 8 bytes.
 */
export function bookkeepingTile(index: number, slots: number): Tile {
  const bytes = Math.max(8, slots * 8);
  return {
    reads: [{ buffer: index, offset: 0, bytes, policy: 'default' }],
    writes: [{ buffer: index, offset: 0, bytes, policy: 'default' }],
    flops: slots * 4,
    unit: 'vector',
  };
}

/** Tokens per FlashMLA KV block. */
export const MLA_BLOCK = 64;
/** FlashMLA's scheduler charges each request this many blocks of fixed work (its metadata kernel's `fixed_overhead_num_blocks`). */
export const MLA_FIXED_BLOCKS = 5;

export interface MlaBuffers {
  q: number;
  cache: number;
  out: number;
}

/**
 * FlashMLA-style decode over the latent cache: the (request, block) sequence of the batch is
 * cut into `parts` contiguous shares of equal cost (blocks plus a fixed cost per request), one
 * workgroup each; a workgroup streams each block's latent [64 × (rank + rope)] once for all
 * heads (MQA: the heads are the tile's rows), runs QKᵀ over rank + rope and PV over rank, and
 * writes a partial (output + softmax statistics, fp32) for every request it touched. A
 * combine kernel merges the partials of requests that were split. Returns the main and the
 * combine workgroups.
 */
export function mlaDecodeDrafts(
  op: AttentionOp,
  b: MlaBuffers,
  parts: number,
  workspace: (bytes: number) => number,
  pipeline?: TilePipeline,
): { main: TaskDraft[]; combine: TaskDraft[] } {
  const lat = op.latent!;
  const width = lat.rank + lat.ropeDim;
  const H = op.heads;
  const blocks = Math.ceil(op.kvLen / MLA_BLOCK);
  const total = op.batch * (blocks + MLA_FIXED_BLOCKS);
  // FlashMLA's get_mla_metadata: each part takes ⌈total / parts⌉ + fixed blocks, at least twice
  // the fixed cost, so a short batch uses fewer parts than SMs.
  const payload = Math.max(Math.ceil(total / Math.max(1, parts)) + MLA_FIXED_BLOCKS, 2 * MLA_FIXED_BLOCKS);
  const P = Math.max(1, Math.min(parts, Math.ceil(total / payload)));
  const partialBytes = H * (lat.rank + 1) * 4;
  // Partial slots: at most one per (part, request) pair touched; allocate for P + batch.
  const ws = workspace((P + op.batch) * partialBytes);
  const main: TaskDraft[] = [];
  const split = new Map<number, number>(); // request → partials written
  const first = new Map<number, number>(); // request → its first partial slot
  let slot = 0;
  for (let p = 0; p < P; p++) {
    const c0 = Math.floor((p * total) / P);
    const c1 = Math.floor(((p + 1) * total) / P);
    const tiles: Tile[] = [];
    for (let r = Math.floor(c0 / (blocks + MLA_FIXED_BLOCKS)); r < op.batch && r * (blocks + MLA_FIXED_BLOCKS) < c1; r++) {
      const base = r * (blocks + MLA_FIXED_BLOCKS);
      const b0 = Math.max(0, c0 - base);
      const b1 = Math.min(blocks, c1 - base);
      if (b1 <= b0) continue;
      for (let k0 = b0; k0 < b1; k0 += 4) {
        const t0 = k0 * MLA_BLOCK;
        const len = Math.min(Math.min(b1, k0 + 4) * MLA_BLOCK, op.kvLen) - t0;
        if (len <= 0) break;
        const tile: Tile = {
          reads: [
            { buffer: b.q, offset: r * H * width * EL, bytes: H * width * EL, policy: 'default' },
            { buffer: b.cache, offset: (r * op.kvLen + t0) * width * EL, bytes: len * width * EL, policy: 'default' },
          ],
          writes: [],
          flops: 2 * H * len * width + 2 * H * len * lat.rank,
          unit: 'matrix',
        };
        if (pipeline) tile.pipeline = pipeline;
        tiles.push(tile);
      }
      const last = tiles[tiles.length - 1];
      if (last) {
        if (!first.has(r)) first.set(r, slot);
        last.writes.push({ buffer: ws, offset: slot++ * partialBytes, bytes: partialBytes, policy: 'default' });
        split.set(r, (split.get(r) ?? 0) + 1);
      }
    }
    if (tiles.length > 0) main.push({ name: `${op.id}.part${p}`, level: 'cu', partition: null, tiles });
  }
  const combine: TaskDraft[] = [];
  for (let r = 0; r < op.batch; r++) {
    const n = split.get(r) ?? 0;
    combine.push({
      name: `${op.id}.combine.r${r}`,
      level: 'cu',
      partition: null,
      tiles: [
        {
          reads: [{ buffer: ws, offset: (first.get(r) ?? 0) * partialBytes, bytes: Math.max(1, n) * partialBytes, policy: 'default' }],
          writes: [{ buffer: b.out, offset: r * H * lat.rank * EL, bytes: H * lat.rank * EL, policy: 'default' }],
          flops: 4 * Math.max(1, n) * H * lat.rank,
          unit: 'vector',
        },
      ],
    });
  }
  return { main, combine };
}
