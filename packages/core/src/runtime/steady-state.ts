/**
 * The state a runtime offers at a quiescent layer boundary. `runtime` is its own part as
 * labelled and `memory` the caches' (computed only when the runtime parts agree).
 * `canonical`, where given, is the same state with the workers relabelled by a symmetry of
 * the machine (interchangeable workers of one partition, a scheduler's round-robin cursor
 * rotated to its canonical value), and `equivariant` says
 * whether the layer that just ended ran in a way that such relabellings map onto itself
 * (see `PersistentRuntime`).
 */
export interface BoundaryState {
  runtime: readonly number[];
  memory: () => ArrayLike<number>;
  canonical?: { runtime: readonly number[]; memory: () => ArrayLike<number> };
  equivariant?: boolean;
}

/**
 * Finds the first decoder layer that begins and ends in the same machine state. A runtime
 * offers the state at each layer boundary it reaches while quiescent (nothing in flight that
 * the next layer could see, except what the state names); when boundary l's state equals
 * boundary l-1's, layer l-1 mapped one layer-relative state onto itself, so every later
 * layer with the same ops repeats it exactly (the simulation is deterministic and its clock
 * is translation-exact, see `onGrid`).
 *
 * Up to symmetry: when boundary l's state is boundary l-1's with the workers relabelled (the
 * canonical forms agree) and layer l-1 ran equivariantly, layer l is layer l-1 under that
 * relabelling — the same times, the same memory accesses at the same instants, the end state
 * relabelled once more — and by induction so is every later layer with the same ops.
 */
export class SteadyStateProbe {
  /** The first layer proven to repeat, or null. */
  steadyFrom: number | null = null;
  /** Whether the proof needed a relabelling of workers (the states were not equal as labelled). */
  upToSymmetry = false;
  private last: {
    boundary: number;
    runtime: readonly number[];
    memory: () => ArrayLike<number>;
    canonical: { runtime: readonly number[]; memory: () => ArrayLike<number> } | null;
  } | null = null;

  /**
   * The state at the start of layer `boundary` (the layer after the one that just ended), or
   * null where the runtime is not quiescent there (the chain of comparisons restarts).
   */
  offer(boundary: number, state: BoundaryState | null): void {
    if (this.steadyFrom !== null) return;
    if (state === null) {
      this.last = null;
      return;
    }
    const memory = once(state.memory);
    const c = state.canonical;
    const canonical = c ? { runtime: c.runtime, memory: c.memory === state.memory ? memory : once(c.memory) } : null;
    const last = this.last;
    if (last && last.boundary === boundary - 1) {
      const same = equalStates(last.runtime, state.runtime) && equalStates(last.memory(), memory());
      const symmetric =
        !same &&
        state.equivariant === true &&
        last.canonical !== null &&
        canonical !== null &&
        equalStates(last.canonical.runtime, canonical.runtime) &&
        equalStates(last.canonical.memory(), canonical.memory());
      if (same || symmetric) {
        this.steadyFrom = boundary - 1;
        this.upToSymmetry = symmetric;
        this.last = null;
        return;
      }
    }
    this.last = { boundary, runtime: state.runtime, memory, canonical };
  }
}

/** `f`, evaluated on the first call only. */
export function once<T>(f: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = f();
      done = true;
    }
    return value;
  };
}

/** Whether two state vectors hold the same numbers. */
export function equalStates(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
