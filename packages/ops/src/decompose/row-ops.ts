import type { AccessPolicy, Tile } from '@fleet/core';

/** A byte-range operand of a row-wise op: `bytesPerRow` bytes per row, rows contiguous. */
export interface RowOperand {
  buffer: number;
  bytesPerRow: number;
  /** Bytes every tile reads regardless of rows (a norm weight, a rope table). */
  shared?: boolean;
  policy?: AccessPolicy;
}

/**
 * Split a row-wise op (norm, residual, SiLU·mul, RoPE…) of `rows` rows into `parts` tiles of
 * consecutive rows; each reads and writes its rows of every operand.
 */
export function rowTiles(rows: number, parts: number, reads: readonly RowOperand[], writes: readonly RowOperand[], flopsPerRow: number): Tile[] {
  const n = Math.max(1, Math.min(parts, rows));
  const tiles: Tile[] = [];
  for (let i = 0; i < n; i++) {
    const r0 = Math.floor((i * rows) / n);
    const r1 = Math.floor(((i + 1) * rows) / n);
    const region = (o: RowOperand) =>
      o.shared
        ? { buffer: o.buffer, offset: 0, bytes: o.bytesPerRow, policy: o.policy ?? 'default' }
        : { buffer: o.buffer, offset: r0 * o.bytesPerRow, bytes: (r1 - r0) * o.bytesPerRow, policy: o.policy ?? 'default' };
    tiles.push({ reads: reads.map(region), writes: writes.map(region), flops: (r1 - r0) * flopsPerRow, unit: 'vector' });
  }
  return tiles;
}
