/**
 * Weight pre-layout: quantized weights are stored tile by tile so that a thread block's
 * load of one BK × BN weight tile is one contiguous, wide read that needs no layout
 * conversion. The stored array is [⌈K/BK⌉, ⌈N/BN⌉, BK·BN·bits/8] bytes; inside a tile the
 * codes run k-major (element (kk, nn) at kk·BN + nn), packed LSB-first. Partial edge tiles
 * are padded with the code of 0 so every tile has the same size.
 */
import { encode, packCodes, unpackCodes } from '@fleet/numerics';
import type { QuantizedMatrix } from './groupwise.js';

export interface PrelayoutTiles {
  bk: number;
  bn: number;
}

/** Default pre-layout tile: 64 K-rows by the linear decomposition's 64 output columns. */
export const DEFAULT_PRELAYOUT: PrelayoutTiles = { bk: 64, bn: 64 };

/** Bytes of one tile; BK·BN·bits must be a whole number of bytes. */
export function prelayoutTileBytes(bits: number, t: PrelayoutTiles = DEFAULT_PRELAYOUT): number {
  const b = t.bk * t.bn * bits;
  if (b % 8 !== 0) throw new RangeError(`a ${t.bk}×${t.bn} tile of ${bits}-bit codes is not a whole number of bytes`);
  return b / 8;
}

/** Bytes of the pre-laid-out codes of an [N, K] weight (edge tiles padded). */
export function prelayoutBytes(n: number, k: number, bits: number, t: PrelayoutTiles = DEFAULT_PRELAYOUT): number {
  return Math.ceil(k / t.bk) * Math.ceil(n / t.bn) * prelayoutTileBytes(bits, t);
}

/** Repack row-major [N, K] codes into tiles. */
export function prelayout(q: QuantizedMatrix, t: PrelayoutTiles = DEFAULT_PRELAYOUT): Uint8Array {
  const { n, k } = q;
  const bits = q.type.bits;
  const tileBytes = prelayoutTileBytes(bits, t);
  const kt = Math.ceil(k / t.bk);
  const nt = Math.ceil(n / t.bn);
  const out = new Uint8Array(kt * nt * tileBytes);
  const codes = unpackCodes(q.packed, bits, n * k);
  const pad = encode(q.type, 0) + q.zeroPoint;
  const tile = new Uint8Array(t.bk * t.bn);
  for (let kb = 0; kb < kt; kb++) {
    for (let nb = 0; nb < nt; nb++) {
      for (let kk = 0; kk < t.bk; kk++) {
        for (let nn = 0; nn < t.bn; nn++) {
          const row = nb * t.bn + nn;
          const col = kb * t.bk + kk;
          tile[kk * t.bn + nn] = row < n && col < k ? codes[row * k + col]! : pad;
        }
      }
      packCodes(tile, bits, out.subarray((kb * nt + nb) * tileBytes, (kb * nt + nb + 1) * tileBytes));
    }
  }
  return out;
}

/** The inverse of `prelayout`: row-major packed [N, K] codes. */
export function unprelayout(bytes: Uint8Array, n: number, k: number, bits: number, t: PrelayoutTiles = DEFAULT_PRELAYOUT): Uint8Array {
  const tileBytes = prelayoutTileBytes(bits, t);
  const kt = Math.ceil(k / t.bk);
  const nt = Math.ceil(n / t.bn);
  if (bytes.length !== kt * nt * tileBytes) throw new RangeError(`pre-laid-out weight has ${bytes.length} bytes, expected ${kt * nt * tileBytes}`);
  const codes = new Uint8Array(n * k);
  for (let kb = 0; kb < kt; kb++) {
    for (let nb = 0; nb < nt; nb++) {
      const tile = unpackCodes(bytes.subarray((kb * nt + nb) * tileBytes), bits, t.bk * t.bn);
      for (let kk = 0; kk < t.bk; kk++) {
        for (let nn = 0; nn < t.bn; nn++) {
          const row = nb * t.bn + nn;
          const col = kb * t.bk + kk;
          if (row < n && col < k) codes[row * k + col] = tile[kk * t.bn + nn]!;
        }
      }
    }
  }
  return packCodes(codes, bits);
}
