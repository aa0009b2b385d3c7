/** Eager and graph-replayed kernel-per-op run the same kernels: the second compile of a step takes the first's task graph. */
import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, loadModel, sameData } from '@fleet/core';
import { backendCompileOptions, KERNEL_PER_OP, KERNEL_PER_OP_GRAPH } from '../src/index.js';
import { mi350Backend } from './helpers.js';

const backend = mi350Backend();
const qwen = loadModel('qwen3-8b');
const opts = () => ({ ...backendCompileOptions(backend), layers: [0, 1] });
const step = (batch: number, contextLen = 77) => buildDecodeGraph(qwen, { batch, contextLen });

describe('kernel-per-op task graphs', () => {
  it("kernel-per-op-graph's is kernel-per-op's for the same step, under its own name: what compiling it afresh gives", () => {
    const eager = KERNEL_PER_OP.compile(step(5), backend, KERNEL_PER_OP.schedule, opts());
    const shared = KERNEL_PER_OP_GRAPH.compile(step(5), backend, KERNEL_PER_OP_GRAPH.schedule, opts());
    expect(shared.policy).toBe('kernel-per-op-graph');
    expect(shared.tasks).toBe(eager.tasks);
    // Four other steps later the first is forgotten: this compile is a fresh one.
    for (const b of [1, 2, 3, 4]) KERNEL_PER_OP.compile(step(b), backend, KERNEL_PER_OP.schedule, opts());
    const fresh = KERNEL_PER_OP_GRAPH.compile(step(5), backend, KERNEL_PER_OP_GRAPH.schedule, opts());
    expect(fresh.tasks).not.toBe(eager.tasks);
    expect(sameData(fresh, shared)).toBe(true);
  });

  it('a step that differs in anything lowering reads is compiled anew', () => {
    const a = KERNEL_PER_OP.compile(step(6, 90), backend, KERNEL_PER_OP.schedule, opts());
    const b = KERNEL_PER_OP_GRAPH.compile(step(6, 91), backend, KERNEL_PER_OP_GRAPH.schedule, opts());
    const c = KERNEL_PER_OP_GRAPH.compile(step(6, 90), backend, { ...KERNEL_PER_OP_GRAPH.schedule, storePolicy: 'streaming' }, opts());
    expect(b.tasks).not.toBe(a.tasks);
    expect(c.tasks).not.toBe(a.tasks);
    expect(sameData(c.tasks, a.tasks)).toBe(false);
  });
});
