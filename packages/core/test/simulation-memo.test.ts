import { describe, expect, it } from 'vitest';
import { syntheticGraph } from '../src/conformance/synthetic-graph.js';
import type { TaskGraph } from '../src/graph/task-graph.js';
import type { PersistentOptions } from '../src/runtime/persistent-runtime.js';
import { sameGraph } from '../src/simulation/memo.js';
import { setSimulationMemo, simulateGraph, simulationMemoStats } from '../src/simulation/simulate.js';
import { testBackend } from './helpers.js';

const persistent: PersistentOptions = { workersPerPartition: 4, chipletAware: true, schedulers: 1, twoLevelCounting: true };
const copy = (g: TaskGraph, policy: string): TaskGraph => ({ ...structuredClone(g), policy });

describe('simulateGraph: results of equal unobserved simulations', () => {
  for (const style of ['persistent', 'kernel-per-op'] as const) {
    it(`a ${style} graph equal to one simulated before (another policy's name) gives the result a fresh simulation gives`, () => {
      const b = testBackend();
      const g = syntheticGraph(b.topology, style);
      const first = simulateGraph(b, g, { persistent });
      const again = simulateGraph(b, copy(g, 'another-policy'), { persistent });
      setSimulationMemo(false);
      try {
        const fresh = simulateGraph(b, copy(g, 'another-policy'), { persistent });
        expect(JSON.stringify(again)).toBe(JSON.stringify(fresh));
        expect(JSON.stringify(first)).toBe(JSON.stringify(fresh));
      } finally {
        setSimulationMemo(true);
      }
    });
  }

  it('hands out copies: changing one result leaves the next one as simulated', () => {
    const b = testBackend();
    const g = syntheticGraph(b.topology, 'persistent');
    const a = simulateGraph(b, g, { persistent });
    const expected = JSON.stringify(a);
    a.counters[1]!.l2.hitBytes = -1;
    a.layerEndNs[1] = -1;
    expect(JSON.stringify(simulateGraph(b, g, { persistent }))).toBe(expected);
  });

  it('tells graphs apart by any field but the policy name', () => {
    const b = testBackend();
    const g = syntheticGraph(b.topology, 'persistent');
    expect(sameGraph(g, copy(g, 'x'))).toBe(true);
    const moved = copy(g, g.policy);
    moved.tasks[moved.tasks.length - 1]!.tiles[0]!.reads[0]!.offset += 64;
    expect(sameGraph(g, moved)).toBe(false);
    const slower = copy(g, g.policy);
    slower.tasks[0]!.tiles[0]!.flops *= 1e6;
    expect(sameGraph(g, slower)).toBe(false);
    // A different result too, not a remembered one.
    expect(simulateGraph(b, slower, { persistent }).timeNs).not.toBe(simulateGraph(b, g, { persistent }).timeNs);
  });

  it("a kernel-per-op run in the other launch mode is the remembered run with each launch's gap changed, to the bit", () => {
    const b = testBackend();
    for (const [first, second, scale] of [
      ['eager', 'graph', 1],
      ['graph', 'eager', 2],
    ] as const) {
      // A graph of its own each way round (more compute in one tile), so the first run is fresh.
      const g = syntheticGraph(b.topology, 'kernel-per-op');
      g.tasks[0]!.tiles[0]!.flops *= scale;
      const seen = simulateGraph(b, copy(g, `first-${first}`), { launchMode: first });
      const shifted = simulationMemoStats().shifted;
      const derived = simulateGraph(b, copy(g, `then-${second}`), { launchMode: second });
      expect(simulationMemoStats().shifted).toBe(shifted + 1);
      setSimulationMemo(false);
      try {
        const fresh = simulateGraph(b, copy(g, 'fresh'), { launchMode: second });
        expect(JSON.stringify(derived)).toBe(JSON.stringify(fresh));
        // The two modes do differ, by the launches' gaps alone.
        expect(derived.timeNs).not.toBe(seen.timeNs);
        expect(derived.counters).toEqual(seen.counters);
      } finally {
        setSimulationMemo(true);
      }
    }
  });
});
