/**
 * Compact storage of n-bit codes: element i occupies bits [i·n, i·n + n) of a little-endian
 * bit stream (bit j of the stream is bit j mod 8 of byte ⌊j/8⌋), least-significant bit
 * first. Values of 3, 5, 6 or 7 bits straddle byte boundaries; nothing is padded.
 */
import { decodeTable, encode } from './codec.js';
import type { LowBitType } from './types.js';

/** Bytes that hold `count` codes of `bits` bits. */
export function packedBytes(count: number, bits: number): number {
  return Math.ceil((count * bits) / 8);
}

/** Pack codes (each < 2^bits) into a new byte array, or into `out` at element `start`. */
export function packCodes(codes: ArrayLike<number>, bits: number, out?: Uint8Array, start = 0): Uint8Array {
  const dst = out ?? new Uint8Array(packedBytes(codes.length, bits));
  const mask = (1 << bits) - 1;
  let bit = start * bits;
  for (let i = 0; i < codes.length; i++, bit += bits) {
    const c = codes[i]! & mask;
    const byte = bit >>> 3;
    const shift = bit & 7;
    // Clear then set the (up to two) bytes the code touches.
    const v = c << shift;
    const m = mask << shift;
    dst[byte] = (dst[byte]! & ~m) | (v & 0xff);
    if (shift + bits > 8) dst[byte + 1] = (dst[byte + 1]! & ~(m >>> 8)) | (v >>> 8);
  }
  return dst;
}

/** Unpack `count` codes starting at element `start` of a packed stream. */
export function unpackCodes(bytes: Uint8Array, bits: number, count: number, start = 0, out?: Uint8Array): Uint8Array {
  const dst = out ?? new Uint8Array(count);
  const mask = (1 << bits) - 1;
  let bit = start * bits;
  if ((bit & 7) === 0 && 8 % bits === 0) {
    // Codes that tile bytes exactly (1, 2, 4, 8 bits): whole bytes at a time.
    const per = 8 / bits;
    let byte = bit >>> 3;
    let i = 0;
    for (; i + per <= count; byte++) {
      const v = bytes[byte]!;
      for (let j = 0; j < per; j++) dst[i++] = (v >>> (j * bits)) & mask;
    }
    for (let j = 0; i < count; j++) dst[i++] = (bytes[byte]! >>> (j * bits)) & mask;
    return dst;
  }
  for (let i = 0; i < count; i++, bit += bits) {
    const byte = bit >>> 3;
    const shift = bit & 7;
    const word = shift + bits > 8 ? bytes[byte]! | (bytes[byte + 1]! << 8) : bytes[byte]!;
    dst[i] = (word >>> shift) & mask;
  }
  return dst;
}

/** Encode and pack values. */
export function encodeArray(type: LowBitType, values: ArrayLike<number>): Uint8Array {
  const codes = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) codes[i] = encode(type, values[i]!);
  return packCodes(codes, type.bits);
}

/** Unpack and decode `count` values. */
export function decodeArray(type: LowBitType, bytes: Uint8Array, count: number, start = 0): Float32Array {
  const table = decodeTable(type);
  const codes = unpackCodes(bytes, type.bits, count, start);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = table[codes[i]!]!;
  return out;
}
