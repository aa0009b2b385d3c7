import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bankOf,
  columnLocal,
  columnSpatial,
  compose,
  IDENTITY,
  intType,
  Layout,
  loadTile,
  local,
  mmaM16n8k16,
  packCodes,
  reduce,
  reinterpret,
  replicated,
  Rng,
  sharedRowMajor,
  sharedRowMajorSwizzle,
  spatial,
  storeTile,
  uintType,
  unpackCodes,
} from '../../src/index.js';

const PRIMS = { local, spatial, columnLocal, columnSpatial };

/** Random primitive layouts of rank 2 with small dimensions. */
const primitive = fc
  .tuple(fc.constantFrom(...(Object.keys(PRIMS) as (keyof typeof PRIMS)[])), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 2 }))
  .map(([k, a, b]) => PRIMS[k](a, b));
/** Compositions of one or two primitives (at most 36 elements, so triple products stay small). */
const layoutArb = fc.array(primitive, { minLength: 1, maxLength: 2 }).map((ls) => compose(...ls));

describe('layout algebra', () => {
  it('composition is associative', () => {
    fc.assert(
      fc.property(layoutArb, layoutArb, layoutArb, (f, g, h) =>
        f
          .compose(g)
          .compose(h)
          .equals(f.compose(g.compose(h))),
      ),
      { seed: 1, numRuns: 150 },
    );
  });

  it('local(1) is a two-sided identity (a monoid)', () => {
    fc.assert(
      fc.property(layoutArb, (f) => IDENTITY.compose(f).equals(f) && f.compose(IDENTITY).equals(f)),
      { seed: 2, numRuns: 150 },
    );
  });

  it('composition follows h(t, i) = f(t / T_g, i / m_g) ⊙ S_g + g(t mod T_g, i mod m_g)', () => {
    fc.assert(
      fc.property(layoutArb, layoutArb, (f, g) => {
        const h = f.compose(g);
        if (h.threads !== f.threads * g.threads || h.locals !== f.locals * g.locals) return false;
        for (let t = 0; t < h.threads; t++) {
          for (let i = 0; i < h.locals; i++) {
            const a = f.at(Math.floor(t / g.threads), Math.floor(i / g.locals));
            const b = g.at(t % g.threads, i % g.locals);
            const want = a.map((x, d) => x * g.shape[d]! + b[d]!);
            if (h.at(t, i).some((x, d) => x !== want[d])) return false;
          }
        }
        return true;
      }),
      { seed: 3, numRuns: 100 },
    );
  });

  it('division undoes composition: (f ∘ g) / g = f', () => {
    fc.assert(
      fc.property(layoutArb, layoutArb, (f, g) => {
        const q = f.compose(g).divide(g);
        return q?.equals(f);
      }),
      { seed: 4, numRuns: 150 },
    );
  });

  it('is not commutative, and division fails when no quotient exists', () => {
    expect(local(2).spatial(2).equals(spatial(2).local(2))).toBe(false);
    expect(spatial(4).divide(local(2))).toBeNull();
    expect(local(2, 2).divide(local(1, 2))!.equals(local(2, 1))).toBe(true);
  });

  it('composes layouts of different rank by prepending unit dimensions (broadcast)', () => {
    const h = spatial(2, 3).compose(local(4));
    expect(h.shape).toEqual([2, 12]);
    expect(h.at(4, 3)).toEqual([1, 7]);
  });

  it('builds bijections from primitives, and names them', () => {
    fc.assert(
      fc.property(layoutArb, (f) => f.isBijective()),
      { seed: 5, numRuns: 100 },
    );
    expect(local(2, 1).spatial(8, 4).local(1, 2).toString()).toBe('local(2,1).spatial(8,4).local(1,2)');
  });

  it('reduces a dimension into replicas: spatial(8,4) reduced over columns has 4 threads per row result', () => {
    const r = reduce(spatial(8, 4), [1]);
    expect(r.shape).toEqual([8, 1]);
    expect(r.threads).toBe(32);
    expect(r.locals).toBe(1);
    expect(r.holders().map((h) => h.length)).toEqual(new Array(8).fill(4));
    expect(r.at(13, 0)).toEqual([3, 0]);
    // A thread holding a whole row keeps one value of it.
    expect(reduce(spatial(4).local(1, 8), [1]).locals).toBe(1);
    expect(
      replicated(4)
        .compose(spatial(8))
        .holders()
        .every((h) => h.length === 4),
    ).toBe(true);
  });
});

describe('mma.m16n8k16 operand layouts (PTX fragment tables)', () => {
  const { a, b, c } = mmaM16n8k16();
  const g = (lane: number) => lane >> 2;
  const q = (lane: number) => lane % 4;

  it('A (16×16): a0..a7 at rows g, g+8 and columns 2c.., +8', () => {
    expect([a.shape, a.threads, a.locals]).toEqual([[16, 16], 32, 8]);
    for (let lane = 0; lane < 32; lane++) {
      for (let i = 0; i < 8; i++) {
        const row = g(lane) + ((i >> 1) & 1) * 8;
        const col = q(lane) * 2 + (i & 1) + (i >= 4 ? 8 : 0);
        expect(a.at(lane, i)).toEqual([row, col]);
      }
    }
  });

  it('B (16×8): b0..b3 at rows 2c.., +8 and column g', () => {
    for (let lane = 0; lane < 32; lane++) {
      for (let i = 0; i < 4; i++) expect(b.at(lane, i)).toEqual([q(lane) * 2 + (i & 1) + (i >= 2 ? 8 : 0), g(lane)]);
    }
  });

  it('C/D (16×8): c0..c3 at rows g, g+8 and columns 2c..', () => {
    for (let lane = 0; lane < 32; lane++) {
      for (let i = 0; i < 4; i++) expect(c.at(lane, i)).toEqual([g(lane) + (i >= 2 ? 8 : 0), q(lane) * 2 + (i & 1)]);
    }
  });

  it('computes D = A·B from the distributed fragments (a warp-level MMA)', () => {
    const rng = new Rng(8);
    const A = rng.normals(16 * 16);
    const B = rng.normals(16 * 8);
    // What each lane holds, then the tensor core's sum over k, written back through C's layout.
    const fragA = loadTile(
      { name: 'f32', bits: 32 },
      a,
      Array.from(A, (_, i) => i),
    );
    const fragB = loadTile(
      { name: 'f32', bits: 32 },
      b,
      Array.from(B, (_, i) => i),
    );
    const whereA = new Map<number, number>();
    for (let i = 0; i < fragA.codes.length; i++) whereA.set(fragA.codes[i]!, A[fragA.codes[i]!]!);
    const whereB = new Map<number, number>();
    for (let i = 0; i < fragB.codes.length; i++) whereB.set(fragB.codes[i]!, B[fragB.codes[i]!]!);
    expect(whereA.size).toBe(256);
    expect(whereB.size).toBe(128);
    for (let lane = 0; lane < 32; lane++) {
      for (let i = 0; i < 4; i++) {
        const [row, col] = c.at(lane, i);
        let acc = 0;
        for (let kk = 0; kk < 16; kk++) acc += whereA.get(row! * 16 + kk)! * whereB.get(kk * 8 + col!)!;
        let ref = 0;
        for (let kk = 0; kk < 16; kk++) ref += A[row! * 16 + kk]! * B[kk * 8 + col!]!;
        expect(acc).toBe(ref);
      }
    }
  });
});

describe('register tiles reinterpreted as another type and layout', () => {
  it('4 i6 values per thread over 32 threads are the same registers as 3 u8 per thread: the packed bytes', () => {
    const i6 = intType(6);
    const rng = new Rng(4);
    const codes = Array.from({ length: 128 }, () => rng.int(64));
    const tile = loadTile(i6, spatial(32).local(4), codes);
    const bytes = reinterpret(tile, uintType(8), spatial(32).local(3));
    // Thread t's 24 bits hold elements 4t..4t+3, LSB first: bytes 3t..3t+2 of the packed stream.
    expect(Array.from(storeTile(bytes))).toEqual(Array.from(packCodes(codes, 6)));
    // Any layout with 3 bytes per thread reads the same registers.
    const other = reinterpret(tile, uintType(8), local(3).spatial(32));
    expect(Array.from(other.codes)).toEqual(Array.from(bytes.codes));
  });

  it('round-trips A → B → A whenever every thread holds the same number of bits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.nat(1000),
        (bitsA, bitsB, threads, seed) => {
          // Per-thread bits: a common multiple of both widths.
          const lcm = (x: number, y: number): number => (x * y) / gcd(x, y);
          const bits = lcm(bitsA, bitsB);
          const mA = bits / bitsA;
          const mB = bits / bitsB;
          const rng = new Rng(seed);
          const codes = Array.from({ length: threads * mA }, () => rng.int(2 ** bitsA));
          const A = loadTile({ name: `u${bitsA}`, bits: bitsA }, spatial(threads).local(mA), codes);
          const B = reinterpret(A, { name: `u${bitsB}`, bits: bitsB }, columnLocal(mB).spatial(threads));
          const back = reinterpret(B, A.type, A.layout);
          // The bit stream per thread is the same whichever way it is read.
          const streamA = packCodes(codes.slice(0, mA), bitsA);
          const firstB = Array.from({ length: mB }, (_, i) => B.codes[i]!);
          return Array.from(back.codes).every((x, i) => x === A.codes[i]) && Array.from(unpackCodes(streamA, bitsB, mB)).every((x, i) => x === firstB[i]);
        },
      ),
      { seed: 6, numRuns: 200 },
    );
  });

  it('refuses a reinterpretation that changes the bits per thread', () => {
    const tile = loadTile(intType(6), spatial(32).local(4), new Array(128).fill(1));
    expect(() => reinterpret(tile, uintType(8), spatial(32).local(4))).toThrow(/cannot reinterpret/);
  });
});

describe('shared-memory swizzle', () => {
  it('is a permutation that spreads 8 rows reading one 16-byte column chunk over all 8 bank groups', () => {
    for (const [cols, eb] of [
      [64, 2],
      [32, 4],
      [32, 2],
      [16, 2],
      [128, 2],
      [256, 1],
    ] as const) {
      const rows = 16;
      const rowBytes = cols * eb;
      const plain = sharedRowMajor(rows, cols, eb);
      const sw = sharedRowMajorSwizzle(rows, cols, eb);
      const seen = new Set<number>();
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) seen.add(sw.offset(r, c));
      expect(seen.size, `${rowBytes}-byte rows`).toBe(rows * cols);
      const vec = 16 / eb;
      // 16-byte bank group (4 banks) each row's access lands in.
      const groups = (l: typeof plain, chunk: number, r0: number) =>
        new Set(Array.from({ length: 8 }, (_, r) => Math.floor(bankOf(l, r0 + r, chunk * vec) / 4))).size;
      for (let ch = 0; ch < cols / vec; ch++) {
        for (const r0 of [0, 8]) {
          expect(groups(sw, ch, r0), `${rowBytes}-byte rows, chunk ${ch}`).toBe(8);
          expect(groups(plain, ch, r0)).toBe(Math.min(8, Math.max(1, 128 / rowBytes)));
        }
      }
    }
  });

  it('needs whole 16-byte chunks and 8-row blocks', () => {
    expect(() => sharedRowMajorSwizzle(12, 64, 2)).toThrow(/rows % 8/);
    expect(() => sharedRowMajorSwizzle(8, 4, 2)).toThrow(/chunks/);
  });
});

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

void Layout;
