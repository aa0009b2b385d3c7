/**
 * Tilus's algebraic register layouts. A layout distributes a logical tile of shape S over
 * T threads holding m elements each: it maps (thread t, local index i) to a logical index.
 *
 * - `local(n1..nr)`: one thread holds every element, row-major: f(t, i) = unravel(i).
 * - `spatial(n1..nr)`: one element per thread: f(t, i) = unravel(t).
 * - `columnLocal` / `columnSpatial`: the same with column-major unravelling.
 * - composition h = f ∘ g (written `f.compose(g)` or chained, `local(2,1).spatial(8,4)`):
 *   h(t, i) = f(t / T_g, i / m_g) ⊙ S_g + g(t mod T_g, i mod m_g), T_h = T_f·T_g,
 *   m_h = m_f·m_g, S_h = S_f ⊙ S_g. Associative, not commutative; `local(1)` is the identity,
 *   so layouts form a monoid.
 * - division h / g = f when h = f ∘ g; broadcast prepends unit dimensions so layouts of
 *   different ranks compose; reduce collapses dimensions, turning threads that held
 *   different elements of them into replicas of one element.
 *
 * A layout is stored as its table of logical coordinates, one row per (t, i): layouts in
 * kernels are small (a warp, a block), every operation is exact, and equality is equality
 * of functions — which is what the algebraic laws are about.
 */

export class Layout {
  private constructor(
    readonly shape: readonly number[],
    readonly threads: number,
    readonly locals: number,
    /** Logical coordinates, [(t · locals + i) · rank + d]. */
    private readonly table: Int32Array,
    /** How the layout was built, e.g. `local(2,1).spatial(8,4)`. */
    readonly expr: string,
  ) {}

  /** Build from a function (t, i) → coordinates. */
  static fromFunction(shape: readonly number[], threads: number, locals: number, f: (t: number, i: number) => readonly number[], expr: string): Layout {
    const r = shape.length;
    const table = new Int32Array(threads * locals * r);
    for (let t = 0; t < threads; t++) {
      for (let i = 0; i < locals; i++) {
        const c = f(t, i);
        for (let d = 0; d < r; d++) {
          const v = c[d]!;
          if (!(Number.isInteger(v) && v >= 0 && v < shape[d]!)) throw new RangeError(`${expr}: (t=${t}, i=${i}) maps outside shape [${shape.join(', ')}]`);
          table[(t * locals + i) * r + d] = v;
        }
      }
    }
    return new Layout([...shape], threads, locals, table, expr);
  }

  get rank(): number {
    return this.shape.length;
  }

  /** Logical elements of the tile. */
  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  /** Logical coordinates held by thread t at local index i. */
  at(t: number, i: number): number[] {
    const r = this.rank;
    const o = (t * this.locals + i) * r;
    return Array.from(this.table.subarray(o, o + r));
  }

  /** Row-major linear index of the element at (t, i). */
  index(t: number, i: number): number {
    const r = this.rank;
    const o = (t * this.locals + i) * r;
    let x = 0;
    for (let d = 0; d < r; d++) x = x * this.shape[d]! + this.table[o + d]!;
    return x;
  }

  /** h = this ∘ inner. */
  compose(inner: Layout): Layout {
    const r = Math.max(this.rank, inner.rank);
    const f = broadcast(this, r);
    const g = broadcast(inner, r);
    const shape = f.shape.map((s, d) => s * g.shape[d]!);
    return Layout.fromFunction(
      shape,
      f.threads * g.threads,
      f.locals * g.locals,
      (t, i) => {
        const a = f.at(Math.floor(t / g.threads), Math.floor(i / g.locals));
        const b = g.at(t % g.threads, i % g.locals);
        return a.map((x, d) => x * g.shape[d]! + b[d]!);
      },
      `${this.expr}.${inner.expr}`,
    );
  }

  local(...shape: number[]): Layout {
    return this.compose(local(...shape));
  }

  spatial(...shape: number[]): Layout {
    return this.compose(spatial(...shape));
  }

  columnLocal(...shape: number[]): Layout {
    return this.compose(columnLocal(...shape));
  }

  columnSpatial(...shape: number[]): Layout {
    return this.compose(columnSpatial(...shape));
  }

  /** Same shape, thread count, local count and (t, i) → index map. */
  equals(o: Layout): boolean {
    if (this.threads !== o.threads || this.locals !== o.locals || this.rank !== o.rank) return false;
    if (this.shape.some((s, d) => s !== o.shape[d])) return false;
    for (let k = 0; k < this.table.length; k++) if (this.table[k] !== o.table[k]) return false;
    return true;
  }

  /** f with this = f ∘ g, or `null` when no such layout exists. */
  divide(g: Layout): Layout | null {
    const r = Math.max(this.rank, g.rank);
    const h = broadcast(this, r);
    const gg = broadcast(g, r);
    if (h.threads % gg.threads !== 0 || h.locals % gg.locals !== 0) return null;
    if (h.shape.some((s, d) => s % gg.shape[d]! !== 0)) return null;
    const shape = h.shape.map((s, d) => s / gg.shape[d]!);
    const g0 = gg.at(0, 0);
    let f: Layout;
    try {
      f = Layout.fromFunction(
        shape,
        h.threads / gg.threads,
        h.locals / gg.locals,
        (t, i) => h.at(t * gg.threads, i * gg.locals).map((x, d) => (x - g0[d]!) / gg.shape[d]!),
        this.expr.endsWith(`.${g.expr}`) ? this.expr.slice(0, -g.expr.length - 1) : `(${this.expr})/(${g.expr})`,
      );
    } catch {
      return null;
    }
    // Non-integer or out-of-range coordinates were rejected above; the rest must recompose.
    return f.compose(gg).equals(h) ? f : null;
  }

  /** Every (t, i) that holds each logical element (row-major index); replicas share one. */
  holders(): { t: number; i: number }[][] {
    const out: { t: number; i: number }[][] = Array.from({ length: this.size }, () => []);
    for (let t = 0; t < this.threads; t++) for (let i = 0; i < this.locals; i++) out[this.index(t, i)]!.push({ t, i });
    return out;
  }

  /** Every element held by exactly one (t, i). */
  isBijective(): boolean {
    return this.threads * this.locals === this.size && this.holders().every((h) => h.length === 1);
  }

  toString(): string {
    return this.expr;
  }
}

function checkShape(shape: readonly number[], what: string): void {
  if (shape.length === 0 || !shape.every((n) => Number.isInteger(n) && n >= 1))
    throw new RangeError(`${what}(${shape.join(',')}): dimensions must be positive integers`);
}

function unravel(x: number, shape: readonly number[], columnMajor: boolean): number[] {
  const c = new Array<number>(shape.length);
  if (columnMajor) {
    for (let d = 0; d < shape.length; d++) {
      c[d] = x % shape[d]!;
      x = Math.floor(x / shape[d]!);
    }
  } else {
    for (let d = shape.length - 1; d >= 0; d--) {
      c[d] = x % shape[d]!;
      x = Math.floor(x / shape[d]!);
    }
  }
  return c;
}

const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** One thread holds all elements, row-major. */
export function local(...shape: number[]): Layout {
  checkShape(shape, 'local');
  return Layout.fromFunction(shape, 1, size(shape), (_t, i) => unravel(i, shape, false), `local(${shape.join(',')})`);
}

/** One element per thread, threads row-major. */
export function spatial(...shape: number[]): Layout {
  checkShape(shape, 'spatial');
  return Layout.fromFunction(shape, size(shape), 1, (t) => unravel(t, shape, false), `spatial(${shape.join(',')})`);
}

/** One thread holds all elements, column-major. */
export function columnLocal(...shape: number[]): Layout {
  checkShape(shape, 'column_local');
  return Layout.fromFunction(shape, 1, size(shape), (_t, i) => unravel(i, shape, true), `column_local(${shape.join(',')})`);
}

/** One element per thread, threads column-major. */
export function columnSpatial(...shape: number[]): Layout {
  checkShape(shape, 'column_spatial');
  return Layout.fromFunction(shape, size(shape), 1, (t) => unravel(t, shape, true), `column_spatial(${shape.join(',')})`);
}

/** `threads` threads all holding the one element of a unit tile of rank `rank`. */
export function replicated(threads: number, rank = 1): Layout {
  return Layout.fromFunction(new Array<number>(rank).fill(1), threads, 1, () => new Array<number>(rank).fill(0), `replicated(${threads})`);
}

/** The identity of composition. */
export const IDENTITY: Layout = local(1);

export function compose(...layouts: Layout[]): Layout {
  if (layouts.length === 0) return IDENTITY;
  return layouts.slice(1).reduce((h, g) => h.compose(g), layouts[0]!);
}

/** f = h / g, or `null`. */
export function divide(h: Layout, g: Layout): Layout | null {
  return h.divide(g);
}

/** Prepend unit dimensions up to `rank` (the layout's function is unchanged). */
export function broadcast(l: Layout, rank: number): Layout {
  if (l.rank === rank) return l;
  if (l.rank > rank) throw new RangeError(`cannot broadcast a rank-${l.rank} layout to rank ${rank}`);
  const pad = rank - l.rank;
  const shape = [...new Array<number>(pad).fill(1), ...l.shape];
  return Layout.fromFunction(shape, l.threads, l.locals, (t, i) => [...new Array<number>(pad).fill(0), ...l.at(t, i)], l.expr);
}

/**
 * Collapse `dims` to size 1 (a reduction's result layout): each thread keeps one local per
 * distinct remaining coordinate, in local order; threads that held different elements of a
 * reduced dimension now replicate the same result. Every thread must keep the same count.
 */
export function reduce(l: Layout, dims: readonly number[]): Layout {
  const r = new Set(dims);
  for (const d of r) if (!(d >= 0 && d < l.rank)) throw new RangeError(`reduce: dimension ${d} out of range 0..${l.rank - 1}`);
  const shape = l.shape.map((s, d) => (r.has(d) ? 1 : s));
  const perThread: number[][][] = [];
  for (let t = 0; t < l.threads; t++) {
    const seen = new Map<string, number[]>();
    for (let i = 0; i < l.locals; i++) {
      const c = l.at(t, i).map((x, d) => (r.has(d) ? 0 : x));
      const key = c.join(',');
      if (!seen.has(key)) seen.set(key, c);
    }
    perThread.push([...seen.values()]);
  }
  const m = perThread[0]!.length;
  if (perThread.some((p) => p.length !== m)) throw new RangeError(`reduce(${l.expr}): threads keep different numbers of elements`);
  return Layout.fromFunction(shape, l.threads, m, (t, i) => perThread[t]![i]!, `reduce(${l.expr}, [${[...r].join(',')}])`);
}
