import { describe, expect, it } from 'vitest';
import type { TaskGraph } from '../src/graph/task-graph.js';
import { cursorsCanRepeat, schedulerLayout } from '../src/runtime/scheduler-layout.js';

/** A graph of `perLayer` CU-tasks in each of `layers` layers (only what the check reads). */
function graph(layers: number, perLayer: number, chipletTasks = 0): TaskGraph {
  const tasks = [];
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < perLayer; i++) tasks.push({ layer: l, partition: null });
    for (let i = 0; i < chipletTasks; i++) tasks.push({ layer: l, partition: i % 8 });
  }
  return { tasks, layers: Array.from({ length: layers }, (_, l) => l) } as unknown as TaskGraph;
}

describe('schedulerLayout and cursorsCanRepeat', () => {
  // 8 partitions, workers dealt round-robin over them (CDNA's dispatcher), 31 per partition.
  const roundRobin = Array.from({ length: 8 * 31 }, (_, w) => w % 8);

  it('MPK: 8 schedulers of 31 consecutive workers over 8 XCDs have no partition-preserving rotation', () => {
    const layout = schedulerLayout(roundRobin, 8, false, 8);
    expect(layout.schedulerWorkers.map((ws) => ws.length)).toEqual(Array(8).fill(31));
    expect(layout.rotation).toEqual(Array(8).fill(31));
    expect(cursorsCanRepeat(graph(6, 907), layout)).toBe(false);
    // Chiplet-tasks are placed by rank, not by a cursor: they change nothing.
    expect(cursorsCanRepeat(graph(6, 907, 64), layout)).toBe(false);
    expect(cursorsCanRepeat(graph(6, 31 * 29), layout)).toBe(true);
  });

  it('a worker list whose rotation by the partition count keeps every worker home repeats modulo that', () => {
    // 2 schedulers of 128 workers (32 per XCD): rotating a list by 8 keeps each worker on its XCD.
    const wider = Array.from({ length: 8 * 32 }, (_, w) => w % 8);
    const layout = schedulerLayout(wider, 8, false, 2);
    expect(layout.rotation).toEqual([8, 8]);
    expect(cursorsCanRepeat(graph(3, 906), layout)).toBe(false);
    expect(cursorsCanRepeat(graph(3, 904), layout)).toBe(true);
    // 2 schedulers of 124 (31 per XCD): the wrap-around moves workers across XCDs, only the identity is left.
    expect(schedulerLayout(roundRobin, 8, false, 2).rotation).toEqual([124, 124]);
  });

  it('FLEET: one scheduler per partition owning its workers, any cursor is equivalent', () => {
    const layout = schedulerLayout(roundRobin, 8, true, 8);
    expect(layout.partitionWorkers[3]![0]).toBe(3);
    expect(layout.rotation).toEqual(Array(8).fill(1));
    expect(cursorsCanRepeat(graph(6, 907), layout)).toBe(true);
  });
});
