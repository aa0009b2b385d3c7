import { describe, it, expect } from 'vitest';
import { DeadlockError, FleetError } from '../src/errors/fleet-error.js';
import { EventBus } from '../src/protocol/event-bus.js';
import type { SimEvent } from '../src/protocol/events.js';
import { EventCounters, checkTaskGraph } from '../src/runtime/event-counters.js';
import { syntheticGraph } from '../src/conformance/synthetic-graph.js';
import { expectFleetError, graph, task, testTopology } from './helpers.js';

describe('checkTaskGraph', () => {
  it('accepts the synthetic graphs of both styles', () => {
    const t = testTopology();
    expect(() => checkTaskGraph(syntheticGraph(t, 'persistent'), 2)).not.toThrow();
    expect(() => checkTaskGraph(syntheticGraph(t, 'kernel-per-op'), 2)).not.toThrow();
  });

  it('a wait on an event no task signals is a DeadlockError (exit 3) naming the event and the task', () => {
    const g = graph(
      [task(0, { name: 'producer', signal: 0 }), task(1, { name: 'consumer', waits: [0, 1] })],
      [
        { id: 0, name: 'ev-ok', threshold: 1 },
        { id: 1, name: 'ev-orphan', threshold: 1 },
      ],
    );
    const e = expectFleetError(() => checkTaskGraph(g, 2), 3, 'consumer', 'ev-orphan', 'no task signals', 'test-policy');
    expect(e).toBeInstanceOf(DeadlockError);
    const d = e as DeadlockError;
    expect(d.name).toBe('DeadlockError');
    expect(d.blockedTasks).toEqual(['consumer']);
    expect(d.pendingEvents).toEqual(['ev-orphan']);
  });

  it('a threshold above the number of producers is an error naming the event and both counts', () => {
    const g = graph([task(0, { signal: 0 }), task(1, { signal: 0 }), task(2, { waits: [0] })], [{ id: 0, name: 'gather', threshold: 3 }]);
    const e = expectFleetError(() => checkTaskGraph(g, 2), 3, 'gather', 'threshold 3', '2 producer');
    expect(e).toBeInstanceOf(DeadlockError);
    expect((e as DeadlockError).pendingEvents).toEqual(['gather']);
  });

  it('a threshold below the number of producers is also an error (the event would fire early)', () => {
    const g = graph([task(0, { signal: 0 }), task(1, { signal: 0 }), task(2, { signal: 0 })], [{ id: 0, name: 'early', threshold: 1 }]);
    expectFleetError(() => checkTaskGraph(g, 2), 3, 'early', 'threshold 1', '3 producer');
  });

  it('a dependency cycle is an error listing tasks that can never start', () => {
    const g = graph(
      [
        task(0, { name: 'free', signal: 2 }),
        task(1, { name: 'a', waits: [0], signal: 1 }),
        task(2, { name: 'b', waits: [1], signal: 0 }),
        task(3, { name: 'downstream', waits: [1, 2] }),
      ],
      [
        { id: 0, name: 'e0', threshold: 1 },
        { id: 1, name: 'e1', threshold: 1 },
        { id: 2, name: 'e2', threshold: 1 },
      ],
    );
    const e = expectFleetError(() => checkTaskGraph(g, 2), 3, 'dependency cycle', '3 tasks');
    expect(e).toBeInstanceOf(DeadlockError);
    expect([...(e as DeadlockError).blockedTasks].sort()).toEqual(['a', 'b', 'downstream']);
  });

  it('a task that waits on its own event is a cycle', () => {
    const g = graph([task(0, { name: 'selfish', waits: [0], signal: 0 })], [{ id: 0, name: 'me', threshold: 1 }]);
    expectFleetError(() => checkTaskGraph(g, 2), 3, 'dependency cycle', 'selfish');
  });

  it('a chiplet-task bound to a partition the device lacks is an error naming it and the partition count', () => {
    const g = graph([task(0, { name: 'far', level: 'chiplet', partition: 2 })], []);
    expectFleetError(() => checkTaskGraph(g, 2), 3, 'far', 'partition 2', 'has 2');
    const neg = graph([task(0, { name: 'neg', level: 'chiplet', partition: -1 })], []);
    expectFleetError(() => checkTaskGraph(neg, 2), 3, 'neg', 'partition -1');
    expect(() => checkTaskGraph(g, 3)).not.toThrow();
  });

  it('an event id out of range (waited or signalled) is an error naming the task', () => {
    const w = graph([task(0, { name: 'w', waits: [5] })], [{ id: 0, name: 'e', threshold: 1 }]);
    expectFleetError(() => checkTaskGraph(w, 2), 3, 'task w', 'event 5', 'does not exist');
    const s = graph([task(0, { name: 's', signal: 1 })], [{ id: 0, name: 'e', threshold: 1 }]);
    expectFleetError(() => checkTaskGraph(s, 2), 3, 'task s', 'event 1');
  });

  it('an event nobody waits on and nobody signals is allowed', () => {
    const g = graph([task(0)], [{ id: 0, name: 'unused', threshold: 4 }]);
    expect(() => checkTaskGraph(g, 2)).not.toThrow();
  });

  it('DeadlockError is a FleetError with exit code 3', () => {
    const d = new DeadlockError('x', [], []);
    expect(d).toBeInstanceOf(FleetError);
    expect(d).toBeInstanceOf(Error);
    expect(d.exitCode).toBe(3);
    expect(new FleetError('y').exitCode).toBe(2);
  });
});

describe('EventCounters', () => {
  function setup() {
    const g = graph(
      [task(0, { signal: 0 }), task(1, { signal: 0 }), task(2, { signal: 1 }), task(3, { waits: [0] }), task(4, { waits: [0, 1] })],
      [
        { id: 0, name: 'pair', threshold: 2 },
        { id: 1, name: 'single', threshold: 1 },
      ],
    );
    const ready: number[][] = [];
    const counters = new EventCounters(g, (ids) => ready.push([...ids]));
    const bus = new EventBus();
    const events: SimEvent[] = [];
    bus.events$.subscribe((b) => events.push(...b));
    return { g, ready, counters, bus, events };
  }

  it('initially ready: the tasks without waits', () => {
    expect(setup().counters.initiallyReady()).toEqual([0, 1, 2]);
  });

  it('fires an event exactly once, when its count reaches the threshold, and readies its waiters', () => {
    const s = setup();
    s.counters.signal(0, 10, s.bus);
    expect(s.ready).toEqual([]);
    expect(s.counters.fires).toBe(0);
    expect(s.counters.pendingEvents()).toEqual(['pair 1/2', 'single 0/1']);
    s.counters.signal(0, 20, s.bus);
    expect(s.ready).toEqual([[3]]);
    expect(s.counters.fires).toBe(1);
    s.counters.signal(1, 30, s.bus);
    expect(s.ready).toEqual([[3], [4]]);
    // a surplus signal does not fire again
    s.counters.signal(0, 40, s.bus);
    expect(s.counters.fires).toBe(2);
    expect(s.counters.pendingEvents()).toEqual([]);
    s.bus.complete();
    expect(s.events).toEqual([
      { type: 'event-fire', t: 20, event: 0 },
      { type: 'event-fire', t: 30, event: 1 },
    ]);
  });
});
