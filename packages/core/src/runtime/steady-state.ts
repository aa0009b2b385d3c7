/**
 * Finds the first decoder layer that begins and ends in the same machine state. A runtime
 * offers the state at each layer boundary it reaches while quiescent (nothing in flight that
 * the next layer could see, except what the state names); when boundary l's state equals
 * boundary l-1's, layer l-1 mapped one layer-relative state onto itself, so every later
 * layer with the same ops repeats it exactly (the simulation is deterministic and its clock
 * is translation-exact, see `Engine.at`).
 */
export class SteadyStateProbe {
  /** The first layer proven to repeat, or null. */
  steadyFrom: number | null = null;
  private last: { boundary: number; runtime: readonly number[]; memory: () => readonly number[] } | null = null;

  /**
   * The state at the start of layer `boundary` (the layer after the one that just ended): the
   * runtime's own part, and the memory's (computed only when the runtime parts agree); or
   * null where the runtime is not quiescent there (the chain of comparisons restarts).
   */
  offer(boundary: number, state: { runtime: readonly number[]; memory: () => readonly number[] } | null): void {
    if (this.steadyFrom !== null) return;
    if (state === null) {
      this.last = null;
      return;
    }
    const memory = once(state.memory);
    const last = this.last;
    if (last && last.boundary === boundary - 1 && equal(last.runtime, state.runtime) && equal(last.memory(), memory())) {
      this.steadyFrom = boundary - 1;
      this.last = null;
      return;
    }
    this.last = { boundary, runtime: state.runtime, memory };
  }
}

function once<T>(f: () => T): () => T {
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

function equal(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
