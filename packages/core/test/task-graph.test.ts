import { describe, expect, it } from 'vitest';
import { uniqueReadBytes, type Region, type TaskGraph } from '../src/graph/task-graph.js';

function graph(reads: Region[][], writes: Region[][] = []): TaskGraph {
  return {
    policy: 't',
    style: 'kernel-per-op',
    buffers: [0, 1, 2].map((id) => ({ id, name: `b${id}`, bytes: 1 << 20, kind: 'weight' as const })),
    tasks: reads.map((r, i) => ({
      id: i,
      name: `t${i}`,
      opId: 'op',
      kind: 'linear',
      layer: 0,
      level: 'cu',
      partition: null,
      waits: [],
      signal: null,
      tiles: [{ reads: r, writes: writes[i] ?? [], flops: 0, unit: 'vector' as const }],
    })),
    events: [],
    kernels: [],
    layers: [0],
  };
}
const r = (buffer: number, offset: number, bytes: number, rows?: number, strideBytes?: number): Region => ({
  buffer,
  offset,
  bytes,
  rows,
  strideBytes,
  policy: 'default',
});

describe('uniqueReadBytes', () => {
  it('counts overlapping reads once, per buffer, over strided rows', () => {
    // [0,100) ∪ [50,150) = 150; rows at 0, 1000, 2000 of 10 B each (one overlaps [0,100)) = 20 more; another buffer: 7
    expect(uniqueReadBytes(graph([[r(0, 0, 100)], [r(0, 50, 100), r(0, 0, 10, 3, 1000)], [r(1, 0, 7)]]))).toBe(150 + 20 + 7);
  });

  it('leaves out buffers the graph writes (their reads may be served by the writes)', () => {
    expect(uniqueReadBytes(graph([[r(0, 0, 100), r(2, 0, 64)]], [[r(2, 0, 64)]]))).toBe(100);
  });

  it('widens rows to whole lines when asked', () => {
    // [10,20) and [300,301): lines [0,128) and [256,384)
    expect(uniqueReadBytes(graph([[r(0, 10, 10), r(0, 300, 1)]]), 128)).toBe(256);
  });
});
