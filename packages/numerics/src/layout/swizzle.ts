/**
 * Shared-memory layouts: a row-major tile and its swizzled form. Shared memory has 32 banks
 * of 4 bytes; when the threads of a warp read the same 16-byte column chunk of 8
 * consecutive 128-byte rows (an `ldmatrix` or a transposed load) every access lands in the
 * same 4 banks — an 8-way conflict. XOR-ing the chunk index with the row index (mod 8)
 * spreads them over all 32 banks. This is CuTe's Swizzle<B, M, S> as Tilus uses it:
 * offset ⊕ ((offset & yMask) >> S), yMask = (2^B − 1) << (M + S), on element offsets.
 */

export interface SwizzleParams {
  /** Bits of the row index mixed in (B). */
  bits: number;
  /** Low element-offset bits left alone: the 16-byte vector (M = log2(16 / element bytes)). */
  base: number;
  /** Distance from the chunk bits to the row bits (S). */
  shift: number;
}

/** Apply a swizzle to an element offset. */
export function swizzleOffset(offset: number, p: SwizzleParams): number {
  const yMask = ((1 << p.bits) - 1) << (p.base + p.shift);
  return offset ^ ((offset & yMask) >>> p.shift);
}

export interface SharedLayout {
  rows: number;
  cols: number;
  elementBytes: number;
  swizzle: SwizzleParams | null;
  /** Element offset of logical (row, col). */
  offset(row: number, col: number): number;
}

export function sharedRowMajor(rows: number, cols: number, elementBytes: number): SharedLayout {
  return { rows, cols, elementBytes, swizzle: null, offset: (r, c) => r * cols + c };
}

/**
 * Row-major with the swizzle for its row width: the 16-byte chunk index is XOR-ed with the
 * index of the 128-byte line holding the row (rows of 128 bytes or more: the row index) —
 * Tilus's B = 1, 2, 3 for 32-, 64- and 128-byte rows with S = 3. Eight consecutive rows then
 * cover all eight 16-byte bank groups. Needs rows % 8 = 0 and rows of at least two whole
 * 16-byte chunks (a power of two of them).
 */
export function sharedRowMajorSwizzle(rows: number, cols: number, elementBytes: number): SharedLayout {
  const rowBytes = cols * elementBytes;
  const chunks = rowBytes / 16;
  if (rows % 8 !== 0 || !Number.isInteger(chunks) || chunks < 2 || (chunks & (chunks - 1)) !== 0) {
    throw new RangeError(`swizzle: need rows % 8 = 0 and a power-of-two number (≥ 2) of 16-byte chunks per row (got ${rows} rows of ${rowBytes} bytes)`);
  }
  const chunkBits = Math.log2(chunks);
  const p: SwizzleParams = { bits: Math.min(3, chunkBits), base: Math.log2(16 / elementBytes), shift: Math.max(3, chunkBits) };
  return { rows, cols, elementBytes, swizzle: p, offset: (r, c) => swizzleOffset(r * cols + c, p) };
}

/** Shared-memory bank (4-byte words, 32 banks) of an element. */
export function bankOf(layout: SharedLayout, row: number, col: number): number {
  return Math.floor((layout.offset(row, col) * layout.elementBytes) / 4) % 32;
}
