import { describe, expect, it } from 'vitest';
import { SteadyStateProbe, type BoundaryState } from '../src/runtime/steady-state.js';

const mem = [1, 2, 3];
/** A boundary whose cursor is `cursor` (canonically 0: the workers are interchangeable). */
const at = (cursor: number, equivariant: boolean, memory = mem): BoundaryState => ({
  runtime: [cursor],
  memory: () => memory,
  canonical: { runtime: [0], memory: () => memory },
  equivariant,
});

describe('SteadyStateProbe', () => {
  it('proves a layer whose end state equals its start state as labelled', () => {
    const p = new SteadyStateProbe();
    p.offer(1, at(3, false));
    p.offer(2, at(3, false));
    expect(p.steadyFrom).toBe(1);
    expect(p.upToSymmetry).toBe(false);
  });

  it('proves a layer whose end state is its start state relabelled, when the layer ran equivariantly', () => {
    const p = new SteadyStateProbe();
    p.offer(1, at(3, true));
    p.offer(2, at(9, true));
    expect(p.steadyFrom).toBe(1);
    expect(p.upToSymmetry).toBe(true);
  });

  it('does not take a relabelling for a repeat when the layer did not run equivariantly', () => {
    const p = new SteadyStateProbe();
    p.offer(1, at(3, true));
    p.offer(2, at(9, false));
    expect(p.steadyFrom).toBeNull();
    // The next layer may still prove itself.
    p.offer(3, at(15, true));
    expect(p.steadyFrom).toBe(2);
  });

  it('needs the caches to agree, and consecutive quiescent boundaries', () => {
    const p = new SteadyStateProbe();
    p.offer(1, at(3, true));
    p.offer(2, at(9, true, [1, 2, 4]));
    expect(p.steadyFrom).toBeNull();
    p.offer(3, null);
    p.offer(4, at(21, true, [1, 2, 4]));
    expect(p.steadyFrom).toBeNull();
  });
});
