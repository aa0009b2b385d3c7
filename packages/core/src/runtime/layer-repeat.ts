import type { Region, Task, Tile } from '../graph/task-graph.js';
import type { MemorySystem } from '../memory/memory-system.js';
import { sameData } from '../simulation/memo.js';

/**
 * Whether task `q` of layer `b` is task `p` of layer `a` repeated: the same kind, level,
 * partition and tiles, every region at the same address but for per-layer buffers, which sit
 * `b - a` whole layer slots later (`layerPeriodicLayout`). What a runtime checks before it
 * stands a proven steady layer in for a later one instead of simulating it.
 */
export function sameLayerTask(mem: MemorySystem, p: Task, q: Task, layersApart: number): boolean {
  if (p.kind !== q.kind || p.level !== q.level || p.partition !== q.partition || p.tiles.length !== q.tiles.length) return false;
  const slot = mem.periodBlocks! * mem.blockBytes;
  const shift = layersApart * slot;
  const sameRegions = (x: readonly Region[], y: readonly Region[]) => {
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) {
      const r = x[i]!;
      const s = y[i]!;
      const at = mem.regionAddress(r);
      if (
        mem.regionAddress(s) !== (at >= slot ? at + shift : at) ||
        r.bytes !== s.bytes ||
        (r.rows ?? 1) !== (s.rows ?? 1) ||
        (r.strideBytes ?? r.bytes) !== (s.strideBytes ?? s.bytes) ||
        r.policy !== s.policy
      )
        return false;
    }
    return true;
  };
  // Every other field of a tile alike: numbers and strings equal, objects (its pipeline) equal as data.
  const sameTile = (x: Tile, y: Tile) => {
    if (!sameRegions(x.reads, y.reads) || !sameRegions(x.writes, y.writes)) return false;
    let n = 0;
    for (const key in x) {
      n++;
      if (key === 'reads' || key === 'writes') continue;
      const u = x[key as keyof Tile];
      const v = y[key as keyof Tile];
      if (!sameData(u, v)) return false;
    }
    for (const _ in y) n--;
    return n === 0;
  };
  for (let j = 0; j < p.tiles.length; j++) if (!sameTile(p.tiles[j]!, q.tiles[j]!)) return false;
  return true;
}
