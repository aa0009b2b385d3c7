/**
 * Register tiles: a tile of codes distributed over threads by a layout. A tile can be
 * reinterpreted at no cost as another element type and layout whenever every thread holds
 * the same number of bits: the registers stay as they are, only their reading changes
 * (Tilus loads packed i6 weights as bytes — 4 i6 values per thread over 32 threads are 24
 * bits, the same registers as 3 u8 values per thread — and reinterprets them).
 */
import type { Layout } from './layout.js';

/** An element type as registers see it: a name and a width in bits (1..32). */
export interface BitType {
  name: string;
  bits: number;
}

export interface RegisterTile {
  type: BitType;
  layout: Layout;
  /** Codes by [thread · locals + local]. */
  codes: Uint32Array;
}

/** Load codes of a logical tile (row-major, one code per element) into registers. */
export function loadTile(type: BitType, layout: Layout, logical: ArrayLike<number>): RegisterTile {
  if (logical.length !== layout.size) throw new RangeError(`loadTile: ${logical.length} codes for a tile of ${layout.size}`);
  const codes = new Uint32Array(layout.threads * layout.locals);
  for (let t = 0; t < layout.threads; t++) for (let i = 0; i < layout.locals; i++) codes[t * layout.locals + i] = logical[layout.index(t, i)]!;
  return { type, layout, codes };
}

/** Store a tile back to its row-major logical codes (the first holder of a replicated element wins). */
export function storeTile(tile: RegisterTile): Uint32Array {
  const out = new Uint32Array(tile.layout.size);
  const written = new Uint8Array(tile.layout.size);
  const { threads, locals } = tile.layout;
  for (let t = 0; t < threads; t++) {
    for (let i = 0; i < locals; i++) {
      const x = tile.layout.index(t, i);
      if (written[x]) continue;
      written[x] = 1;
      out[x] = tile.codes[t * locals + i]!;
    }
  }
  return out;
}

/** Bits each thread holds. */
export function bitsPerThread(type: BitType, layout: Layout): number {
  return type.bits * layout.locals;
}

/**
 * The same registers read as `type` in `layout`. Thread t's bits are the concatenation of
 * its codes, local 0 in the least significant bits; they are re-sliced into `type.bits`-wide
 * codes. Requires equal thread counts and equal bits per thread.
 */
export function reinterpret(tile: RegisterTile, type: BitType, layout: Layout): RegisterTile {
  const from = bitsPerThread(tile.type, tile.layout);
  const to = bitsPerThread(type, layout);
  if (tile.layout.threads !== layout.threads || from !== to) {
    throw new RangeError(
      `cannot reinterpret ${tile.type.name} ${tile.layout.expr} (${tile.layout.threads} threads × ${from} bits) as ${type.name} ${layout.expr} (${layout.threads} threads × ${to} bits)`,
    );
  }
  const codes = new Uint32Array(layout.threads * layout.locals);
  const bits = new Uint8Array(from);
  for (let t = 0; t < layout.threads; t++) {
    for (let i = 0; i < tile.layout.locals; i++) {
      const c = tile.codes[t * tile.layout.locals + i]!;
      for (let b = 0; b < tile.type.bits; b++) bits[i * tile.type.bits + b] = Math.floor(c / 2 ** b) % 2;
    }
    for (let i = 0; i < layout.locals; i++) {
      let c = 0;
      for (let b = 0; b < type.bits; b++) c += bits[i * type.bits + b]! * 2 ** b;
      codes[t * layout.locals + i] = c;
    }
  }
  return { type, layout, codes };
}
