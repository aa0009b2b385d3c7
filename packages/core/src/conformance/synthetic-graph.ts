import type { BufferSpec, ExecutionStyle, Task, TaskGraph, Tile } from '../graph/task-graph.js';
import type { Topology } from '../topology/topology.js';

/**
 * A small vendor-neutral task graph for conformance tests: a GEMV over a 64 MiB weight
 * (N-split into one chiplet-task per partition, or workgroups of a kernel) followed by an
 * elementwise op that depends on it.
 */
export function syntheticGraph(topology: Topology, style: ExecutionStyle): TaskGraph {
  const P = topology.partitions.computeUnits.length;
  const K = 4096;
  const N = 8192;
  const tileN = 64;
  const rowBytes = K * 2;
  const buffers: BufferSpec[] = [
    { id: 0, name: 'w', bytes: N * rowBytes, kind: 'weight' },
    { id: 1, name: 'x', bytes: K * 2, kind: 'activation' },
    { id: 2, name: 'y', bytes: N * 2, kind: 'activation' },
  ];
  const gemvTile = (n0: number): Tile => ({
    reads: [
      { buffer: 0, offset: n0 * rowBytes, bytes: tileN * rowBytes, policy: 'streaming' },
      { buffer: 1, offset: 0, bytes: K * 2, policy: 'default' },
    ],
    writes: [{ buffer: 2, offset: n0 * 2, bytes: tileN * 2, policy: 'default' }],
    flops: 2 * tileN * K,
    unit: 'matrix',
  });
  const ewTile = (i: number, n: number): Tile => ({
    reads: [{ buffer: 2, offset: (i * N * 2) / n, bytes: (N * 2) / n, policy: 'default' }],
    writes: [{ buffer: 2, offset: (i * N * 2) / n, bytes: (N * 2) / n, policy: 'default' }],
    flops: N / n,
    unit: 'vector',
  });
  const tasks: Task[] = [];
  /** A one-tile workgroup task of layer 0, the next id; `sync` says what it waits for and signals, or its kernel. */
  const cuTask = (name: string, opId: string, kind: Task['kind'], tile: Tile, sync: Pick<Task, 'waits' | 'signal' | 'kernel'>): Task => ({
    id: tasks.length,
    name,
    opId,
    kind,
    layer: 0,
    level: 'cu',
    partition: null,
    tiles: [tile],
    ...sync,
  });
  const tilesN = N / tileN;
  if (style === 'persistent') {
    const perPart = Math.ceil(tilesN / P);
    for (let p = 0; p < P; p++) {
      const tiles: Tile[] = [];
      for (let t = p * perPart; t < Math.min(tilesN, (p + 1) * perPart); t++) tiles.push(gemvTile(t * tileN));
      tasks.push({ id: tasks.length, name: `gemv.x${p}`, opId: 'gemv', kind: 'linear', layer: 0, level: 'chiplet', partition: p, tiles, waits: [], signal: 0 });
    }
    for (let i = 0; i < P; i++) {
      tasks.push(cuTask(`ew.${i}`, 'ew', 'residual', ewTile(i, P), { waits: [0], signal: 1 }));
    }
    return {
      policy: 'synthetic',
      style,
      buffers,
      tasks,
      events: [
        { id: 0, name: 'gemv-done', threshold: P },
        { id: 1, name: 'ew-done', threshold: P },
      ],
      kernels: [],
      layers: [0],
    };
  }
  for (let t = 0; t < tilesN; t++) {
    tasks.push(cuTask(`gemv.wg${t}`, 'gemv', 'linear', gemvTile(t * tileN), { waits: [], signal: null, kernel: 0 }));
  }
  for (let i = 0; i < P; i++) {
    tasks.push(cuTask(`ew.wg${i}`, 'ew', 'residual', ewTile(i, P), { waits: [], signal: null, kernel: 1 }));
  }
  return {
    policy: 'synthetic',
    style,
    buffers,
    tasks,
    events: [],
    kernels: [
      { id: 0, name: 'gemv', opIds: ['gemv'], layer: 0, tasks: tasks.filter((t) => t.kernel === 0).map((t) => t.id) },
      { id: 1, name: 'ew', opIds: ['ew'], layer: 0, tasks: tasks.filter((t) => t.kernel === 1).map((t) => t.id) },
    ],
    layers: [0],
  };
}
