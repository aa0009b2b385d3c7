import { describe, it, expect } from 'vitest';
import { Engine } from '../src/engine/engine.js';
import { MemorySystem, l2HitRate, addCounters, layerPeriodicLayout, zeroCounters, type TileTraffic } from '../src/memory/memory-system.js';
import type { AccessPolicy } from '../src/topology/topology.js';
import type { BufferSpec, Region, Tile } from '../src/graph/task-graph.js';
import { KiB, testTopology, type TestTopologyOptions } from './helpers.js';

const G = 4096;
const buffers: BufferSpec[] = [
  { id: 0, name: 'w', bytes: 1024 * KiB, kind: 'weight' },
  { id: 1, name: 'x', bytes: 100, kind: 'activation' },
  { id: 2, name: 'y', bytes: 64 * KiB, kind: 'activation' },
];

function system(o: TestTopologyOptions = {}, granularityBytes = G) {
  const topology = testTopology(o);
  const ms = new MemorySystem(new Engine(), topology, buffers, { granularityBytes }, () => {});
  return { ms, topology };
}

function region(buffer: number, offset: number, bytes: number, policy: AccessPolicy = 'default', extra: Partial<Region> = {}): Region {
  return { buffer, offset, bytes, policy, ...extra };
}

function tile(reads: Region[], writes: Region[] = []): Tile {
  return { reads, writes, flops: 0, unit: 'vector' };
}

function resolve(ms: MemorySystem, t: Tile, partition: number, bucket = 1): TileTraffic {
  const out: TileTraffic = { l2Bytes: -1, llcBytes: -1, hbmBytes: -1, latencyNs: -1, readLatencyByteNs: -1, dramReadLatencyByteNs: -1 };
  ms.resolveTile(t, partition, bucket, out);
  return out;
}

describe('MemorySystem structure', () => {
  it('has one L2 and one L2 bandwidth resource per partition, an LLC and HBM', () => {
    const { ms } = system();
    expect(ms.l2.length).toBe(2);
    expect(ms.l2Bandwidth.length).toBe(2);
    expect(ms.l2Index(0)).toBe(0);
    expect(ms.l2Index(1)).toBe(1);
    expect(ms.llc).not.toBeNull();
    expect(ms.llcBandwidth!.bandwidthBytesPerNs).toBe(400);
    expect(ms.hbmBandwidth.bandwidthBytesPerNs).toBe(300); // achievable, not peak
    expect(ms.l2[0]!.capacityBytes).toBe(64 * KiB);
    expect(ms.blockBytes).toBe(G);
  });

  it('tracks blocks of at least one cache line', () => {
    const { ms } = system({}, 32);
    expect(ms.blockBytes).toBe(128); // the L2 line
  });

  it('tracks blocks of at most 128 lines, so each valid bit is one line', () => {
    const { ms } = system({}, 16 * KiB);
    expect(ms.blockBytes).toBe(128 * 128);
    expect(ms.sectorBytes).toBe(128);
    expect(system({}, 64 * KiB).ms.blockBytes).toBe(128 * 128);
  });

  it('a shared L2 is modelled as its halves, each near half of the partitions, with half the capacity', () => {
    const { ms, topology } = system({ sharedL2: true });
    expect(ms.l2.length).toBe(2);
    expect(ms.l2Bandwidth.length).toBe(2);
    expect(ms.l2Index(0)).toBe(0);
    expect(ms.l2Index(1)).toBe(1);
    expect(ms.l2[0]!.capacityBytes).toBe(topology.memory.l2.capacityBytes / 2);
  });
});

describe('MemorySystem reads', () => {
  it('a cold read misses everywhere and pays HBM latency; a second read from the same partition hits L2', () => {
    const { ms } = system();
    const t = tile([region(0, 0, 16 * KiB)]);
    const first = resolve(ms, t, 0);
    expect(first).toMatchObject({ l2Bytes: 16 * KiB, llcBytes: 16 * KiB, hbmBytes: 16 * KiB, latencyNs: 500 });
    const second = resolve(ms, t, 0);
    expect(second).toMatchObject({ l2Bytes: 16 * KiB, llcBytes: 0, hbmBytes: 0, latencyNs: 100 });
    const c = ms.countersOf(1);
    expect(c.l2).toEqual({ hitBytes: 16 * KiB, missBytes: 16 * KiB, bypassBytes: 0, writeBackBytes: 0 });
    expect(c.llc).toEqual({ hitBytes: 0, missBytes: 16 * KiB, bypassBytes: 0, writeBackBytes: 0 });
    expect(c.hbmReadBytes).toBe(16 * KiB);
    expect(c.hbmWriteBytes).toBe(0);
    expect(l2HitRate(c)).toBe(0.5);
  });

  it('the other partition misses its own L2 but hits the LLC', () => {
    const { ms } = system();
    const t = tile([region(0, 0, 16 * KiB)]);
    resolve(ms, t, 0);
    const other = resolve(ms, t, 1);
    expect(other).toMatchObject({ l2Bytes: 16 * KiB, llcBytes: 16 * KiB, hbmBytes: 0, latencyNs: 300 });
    const c = ms.countersOf(1);
    expect(c.l2.missBytes).toBe(32 * KiB);
    expect(c.l2.hitBytes).toBe(0);
    expect(c.llc.hitBytes).toBe(16 * KiB);
    expect(c.hbmReadBytes).toBe(16 * KiB);
    // and now partition 1 hits its own L2
    expect(resolve(ms, t, 1).latencyNs).toBe(100);
  });

  it('with a shared L2 the other partition hits the same instance', () => {
    const { ms } = system({ sharedL2: true });
    const t = tile([region(0, 0, 16 * KiB)]);
    resolve(ms, t, 0);
    const other = resolve(ms, t, 1);
    expect(other.llcBytes).toBe(0);
    expect(other.hbmBytes).toBe(0);
    expect(ms.countersOf(1).l2.hitBytes).toBe(16 * KiB);
  });

  it('a shared L2 charges farExtraLatencyNs for the far half: one partition is near, the other far', () => {
    const { ms } = system({ sharedL2: true });
    const t = tile([region(0, 0, G)]); // one block
    resolve(ms, t, 0);
    const lat = [resolve(ms, t, 0).latencyNs, resolve(ms, t, 1).latencyNs].sort((a, b) => a - b);
    expect(lat).toEqual([100, 140]);
  });

  it('a region bigger than L2 (but within the LLC) read twice misses L2 both times and hits the LLC the second time', () => {
    const { ms } = system();
    const t = tile([region(0, 0, 128 * KiB)]);
    resolve(ms, t, 0, 1);
    const second = resolve(ms, t, 0, 2);
    expect(second.hbmBytes).toBe(0);
    expect(ms.countersOf(1).l2.missBytes).toBe(128 * KiB);
    const c2 = ms.countersOf(2);
    expect(c2.l2).toEqual({ hitBytes: 0, missBytes: 128 * KiB, bypassBytes: 0, writeBackBytes: 0 });
    expect(c2.llc.hitBytes).toBe(128 * KiB);
    expect(c2.hbmReadBytes).toBe(0);
  });

  it('a region bigger than the LLC read twice goes to HBM both times', () => {
    const { ms } = system();
    const t = tile([region(0, 0, 512 * KiB)]);
    resolve(ms, t, 0, 1);
    resolve(ms, t, 0, 2);
    for (const b of [1, 2]) {
      const c = ms.countersOf(b);
      expect(c.l2.hitBytes).toBe(0);
      expect(c.llc.hitBytes).toBe(0);
      expect(c.hbmReadBytes).toBe(512 * KiB);
    }
  });

  it('without an LLC an L2 miss reads HBM directly', () => {
    const { ms } = system({ noLlc: true });
    expect(ms.llc).toBeNull();
    expect(ms.llcBandwidth).toBeNull();
    const t = tile([region(0, 0, 8 * KiB)]);
    expect(resolve(ms, t, 0)).toMatchObject({ l2Bytes: 8 * KiB, llcBytes: 0, hbmBytes: 8 * KiB, latencyNs: 500 });
    expect(resolve(ms, t, 1).hbmBytes).toBe(8 * KiB);
    expect(ms.countersOf(1).hbmReadBytes).toBe(16 * KiB);
    expect(ms.countersOf(1).llc).toEqual({ hitBytes: 0, missBytes: 0, bypassBytes: 0, writeBackBytes: 0 });
  });

  it('streaming reads within one L2 turnover do not evict a small default working set', () => {
    // The 64 KiB L2 holds 16 blocks; a streaming block is stamped 16 accesses into the past.
    const { ms } = system();
    const small = tile([region(2, 0, 8 * KiB)]);
    resolve(ms, small, 0, 1);
    resolve(ms, tile([region(0, 0, 48 * KiB, 'streaming')]), 0, 1);
    resolve(ms, small, 0, 2);
    expect(ms.countersOf(2).l2.hitBytes).toBe(8 * KiB);
    // with default policy a larger sweep flushes it
    const b = system().ms;
    resolve(b, small, 0, 1);
    resolve(b, tile([region(0, 0, 512 * KiB)]), 0, 1);
    resolve(b, small, 0, 2);
    expect(b.countersOf(2).l2.hitBytes).toBe(0);
  });

  it('a streaming sweep of many turnovers ages out data nobody touched', () => {
    const { ms } = system();
    const small = tile([region(2, 0, 8 * KiB)]);
    resolve(ms, small, 0, 1);
    resolve(ms, tile([region(0, 0, 512 * KiB, 'streaming')]), 0, 1);
    resolve(ms, small, 0, 2);
    expect(ms.countersOf(2).l2.hitBytes).toBe(0);
  });

  it('strided regions touch rows × bytes, block by block', () => {
    const { ms } = system();
    // 4 rows of 1 KiB, 8 KiB apart: 4 distinct blocks, 1 KiB each.
    const t = tile([region(0, 512, 1024, 'default', { rows: 4, strideBytes: 8 * KiB })]);
    const out = resolve(ms, t, 0);
    expect(out.l2Bytes).toBe(4 * KiB);
    expect(ms.countersOf(1).l2.missBytes).toBe(4 * KiB);
    // two rows over the same bytes (stride 0): the second row hits what the first brought in
    const { ms: ms2 } = system();
    resolve(ms2, tile([region(0, 0, 1024, 'default', { rows: 2, strideBytes: 0 })]), 0);
    expect(ms2.countersOf(1).l2).toMatchObject({ missBytes: 1024, hitBytes: 1024 });
  });

  it('different bytes of one block are not reuse (sectored blocks); the same bytes are', () => {
    const { ms } = system();
    resolve(ms, tile([region(0, 0, 1024)]), 0, 1);
    const other = resolve(ms, tile([region(0, 2048, 1024)]), 0, 2);
    expect(ms.countersOf(2).l2).toMatchObject({ hitBytes: 0, missBytes: 1024 });
    expect(other.hbmBytes).toBe(1024);
    resolve(ms, tile([region(0, 0, 1024)]), 0, 3);
    expect(ms.countersOf(3).l2).toMatchObject({ hitBytes: 1024, missBytes: 0 });
  });

  it('a read of part of a line fetches the whole line; the rest of it then hits', () => {
    // at the default 16 KiB granularity: were a valid bit 4 lines, the other three would hit unfetched
    const { ms } = system({}, 16 * KiB);
    const first = resolve(ms, tile([region(0, 0, 32)]), 0, 1);
    expect(first.hbmBytes).toBe(128);
    expect(ms.countersOf(1).l2).toMatchObject({ hitBytes: 0, missBytes: 32 });
    expect(ms.countersOf(1).fabricReadBytes).toBe(128);
    resolve(ms, tile([region(0, 32, 96)]), 0, 2);
    expect(ms.countersOf(2).l2).toMatchObject({ hitBytes: 96, missBytes: 0 });
    // the next line was not fetched: it misses
    const next = resolve(ms, tile([region(0, 128, 128)]), 0, 3);
    expect(next.hbmBytes).toBe(128);
    expect(ms.countersOf(3).hbmReadBytes).toBe(128);
  });

  it('a read half in L2 counts half hit, half miss', () => {
    const { ms } = system();
    resolve(ms, tile([region(0, 0, 1024)]), 0, 1);
    const out = resolve(ms, tile([region(0, 0, 2048)]), 0, 2);
    expect(ms.countersOf(2).l2).toMatchObject({ hitBytes: 1024, missBytes: 1024 });
    expect(out.latencyNs).toBe(500);
  });

  it('a region crossing a block boundary counts its bytes in both blocks', () => {
    const { ms } = system();
    const out = resolve(ms, tile([region(0, G - 100, 300)]), 0);
    expect(out.l2Bytes).toBe(300);
    expect(ms.countersOf(1).l2.missBytes).toBe(300);
    expect(ms.l2[0]!.contains(0)).toBe(true);
    expect(ms.l2[0]!.contains(1)).toBe(true);
  });

  it('buffers start on fresh blocks: a tiny buffer does not share a block with its neighbour', () => {
    const { ms } = system();
    resolve(ms, tile([region(1, 0, 100)]), 0);
    // buffer 2 starts right after buffer 1's (rounded-up) block: a cold miss
    resolve(ms, tile([region(2, 0, 100)]), 0);
    expect(ms.countersOf(1).l2.missBytes).toBe(200);
    expect(ms.countersOf(1).l2.hitBytes).toBe(0);
  });
});

describe('MemorySystem writes', () => {
  it('nontemporal writes bypass L2 and are counted as bypassBytes', () => {
    const { ms } = system();
    const out = resolve(ms, tile([], [region(2, 0, 8 * KiB, 'nontemporal')]), 0);
    expect(out.l2Bytes).toBe(0);
    expect(out.llcBytes).toBe(8 * KiB);
    expect(out.hbmBytes).toBe(0); // the LLC absorbs the write
    const c = ms.countersOf(1);
    expect(c.l2).toEqual({ hitBytes: 0, missBytes: 0, bypassBytes: 8 * KiB, writeBackBytes: 0 });
    const firstBlockOfY = (1024 * KiB + G) / G; // after w (1 MiB) and x (one block)
    expect(ms.l2[0]!.contains(firstBlockOfY)).toBe(false);
    expect(ms.l2[0]!.contains(firstBlockOfY + 1)).toBe(false);
    expect(ms.llc!.contains(firstBlockOfY)).toBe(true);
    expect(ms.l2[0]!.dirtyBytes).toBe(0);
    expect(ms.llc!.dirtyBytes).toBe(8 * KiB);
  });

  it('nontemporal writes without an LLC go to HBM', () => {
    const { ms } = system({ noLlc: true });
    const out = resolve(ms, tile([], [region(2, 0, 8 * KiB, 'nontemporal')]), 0);
    expect(out.hbmBytes).toBe(8 * KiB);
    expect(ms.countersOf(1).hbmWriteBytes).toBe(8 * KiB);
    expect(ms.countersOf(1).l2.bypassBytes).toBe(8 * KiB);
  });

  it('default writes allocate dirty in L2 without memory traffic; writeBackL2 flushes them to the memory side', () => {
    const { ms } = system();
    const out = resolve(ms, tile([], [region(2, 0, 8 * KiB)]), 0, 1);
    expect(out).toMatchObject({ l2Bytes: 8 * KiB, llcBytes: 0, hbmBytes: 0, latencyNs: 100 });
    expect(ms.countersOf(1).l2.missBytes).toBe(8 * KiB);
    expect(ms.l2[0]!.dirtyBytes).toBe(8 * KiB);
    const wb: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
    expect(ms.writeBackL2(0, 3, wb)).toBe(8 * KiB);
    expect(wb.l2Bytes).toBe(8 * KiB);
    expect(wb.llcBytes).toBe(8 * KiB);
    expect(wb.latencyNs).toBe(300);
    expect(ms.countersOf(3).l2.writeBackBytes).toBe(8 * KiB);
    expect(ms.countersOf(3).llc.missBytes).toBe(8 * KiB);
    expect(ms.l2[0]!.dirtyBytes).toBe(0);
    // partition 1's L2 is untouched, and a second write-back has nothing to do
    expect(ms.writeBackL2(1, 3, wb)).toBe(0);
    expect(ms.writeBackL2(0, 3, wb)).toBe(0);
    expect(wb).toMatchObject({ l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0 });
  });

  it('write-back without an LLC writes HBM', () => {
    const { ms } = system({ noLlc: true });
    resolve(ms, tile([], [region(2, 0, 8 * KiB)]), 0, 1);
    const wb: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
    expect(ms.writeBackL2(0, 1, wb)).toBe(8 * KiB);
    expect(wb.hbmBytes).toBe(8 * KiB);
    expect(wb.latencyNs).toBe(500);
    expect(ms.countersOf(1).hbmWriteBytes).toBe(8 * KiB);
  });

  it('evicting dirty L2 blocks writes them back to the memory side', () => {
    const { ms } = system();
    resolve(ms, tile([], [region(2, 0, 8 * KiB)]), 0, 1);
    // sweep 512 KiB of weights through the same L2 with default policy
    const out = resolve(ms, tile([region(0, 0, 512 * KiB)]), 0, 2);
    const c = ms.countersOf(2);
    expect(c.l2.writeBackBytes).toBe(8 * KiB);
    expect(ms.l2[0]!.dirtyBytes).toBe(0);
    // the written-back bytes travel to the LLC alongside the misses
    expect(out.llcBytes).toBe(512 * KiB + 8 * KiB);
  });

  it('a read that hits a block written in L2 stays on chip', () => {
    const { ms } = system();
    resolve(ms, tile([], [region(2, 0, 4 * KiB)]), 0, 1);
    const out = resolve(ms, tile([region(2, 0, 4 * KiB)]), 0, 1);
    expect(out).toMatchObject({ l2Bytes: 4 * KiB, llcBytes: 0, hbmBytes: 0, latencyNs: 100 });
  });
});

describe('MemorySystem counters', () => {
  it('keeps counters per bucket; untouched buckets in between are zero', () => {
    const { ms } = system();
    resolve(ms, tile([region(0, 0, 4 * KiB)]), 0, 1);
    resolve(ms, tile([region(0, 64 * KiB, 8 * KiB)]), 0, 3);
    const all = ms.allCounters();
    expect(all.length).toBe(4);
    expect(all[0]).toEqual(zeroCounters());
    expect(all[2]).toEqual(zeroCounters());
    expect(all[1]!.l2.missBytes).toBe(4 * KiB);
    expect(all[3]!.l2.missBytes).toBe(8 * KiB);
    expect(ms.countersOf(3)).toBe(all[3]);
  });

  it('addCounters sums (with a scale) and l2HitRate handles zero traffic', () => {
    const a = zeroCounters();
    expect(l2HitRate(a)).toBe(0);
    const b = zeroCounters();
    b.l2.hitBytes = 3;
    b.l2.missBytes = 1;
    b.llc.writeBackBytes = 2;
    b.hbmReadBytes = 5;
    addCounters(a, b, 2);
    addCounters(a, b);
    expect(a.l2.hitBytes).toBe(9);
    expect(a.llc.writeBackBytes).toBe(6);
    expect(a.hbmReadBytes).toBe(15);
    expect(l2HitRate(a)).toBe(0.75);
  });

  it('every byte of a tile is accounted at L2 as hit, miss or bypass', () => {
    const { ms } = system();
    const t = tile(
      [region(0, 0, 100 * KiB, 'streaming'), region(1, 0, 100), region(0, 3, 5000, 'nontemporal', { rows: 3, strideBytes: 7000 })],
      [region(2, 10, 9000), region(2, 20 * KiB, 3000, 'nontemporal')],
    );
    resolve(ms, t, 0);
    resolve(ms, t, 1);
    const c = ms.countersOf(1);
    const tileBytes = 100 * KiB + 100 + 3 * 5000 + 9000 + 3000;
    expect(c.l2.hitBytes + c.l2.missBytes + c.l2.bypassBytes).toBe(2 * tileBytes);
    expect(c.l2.bypassBytes).toBe(2 * (3 * 5000 + 3000));
  });
});

describe('MemorySystem sectors and bypass (regressions)', () => {
  it('a non-temporal read still pays the latency of the level that serves it', () => {
    const { ms, topology } = system();
    const t = resolve(ms, tile([region(0, 0, 4096, 'nontemporal')]), 0);
    expect(t.latencyNs).toBe(topology.memory.hbm.latencyNs);
  });

  it('only the sectors L2 missed are looked up in the LLC', () => {
    const { ms } = system();
    resolve(ms, tile([region(0, 0, 128)]), 0);
    resolve(ms, tile([region(0, 0, 256)]), 0);
    const c = ms.countersOf(1);
    // 128 B hit in L2; the other 128 B were never fetched: LLC miss, read from HBM.
    expect(c.l2.hitBytes).toBe(128);
    expect(c.llc.hitBytes).toBe(0);
    expect(c.hbmReadBytes).toBe(256);
  });

  it('a write-back makes only the dirty sectors valid in the LLC', () => {
    const { ms } = system();
    resolve(ms, tile([], [region(2, 0, 128)]), 0);
    const out: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
    expect(ms.writeBackL2(0, 1, out)).toBe(128);
    resolve(ms, tile([region(2, 0, 4096)]), 1);
    const c = ms.countersOf(1);
    expect(c.llc.hitBytes).toBe(128); // the written-back bytes; the rest of the block was never there
    expect(c.hbmReadBytes).toBe(4096 - 128);
  });

  it('a non-temporal store invalidates the writer partition’s L2 copy', () => {
    const { ms } = system();
    resolve(ms, tile([region(2, 0, 4096)]), 0);
    resolve(ms, tile([], [region(2, 0, 4096, 'nontemporal')]), 0);
    const before = ms.countersOf(1).l2.hitBytes;
    resolve(ms, tile([region(2, 0, 4096)]), 0);
    expect(ms.countersOf(1).l2.hitBytes).toBe(before);
  });
});

describe('MemorySystem latency-weighted reads', () => {
  it('weighs each read byte by the latency of the level that served it; writes add nothing', () => {
    const { ms, topology } = system();
    const cold = resolve(ms, tile([region(0, 0, 4096)], [region(2, 0, 4096)]), 0);
    expect(cold.readLatencyByteNs).toBe(4096 * topology.memory.hbm.latencyNs);
    const warm = resolve(ms, tile([region(0, 0, 4096)]), 0);
    expect(warm.readLatencyByteNs).toBe(4096 * topology.memory.l2.latencyNs);
    const other = resolve(ms, tile([region(0, 0, 4096)]), 1);
    expect(other.readLatencyByteNs).toBe(4096 * topology.memory.llc!.latencyNs);
  });
});

describe('layer-periodic layout and layer-relative state', () => {
  const layered: BufferSpec[] = [
    { id: 0, name: 'x', bytes: 3 * G, kind: 'activation' },
    { id: 1, name: 'L0.w', bytes: 8 * G, kind: 'weight' },
    { id: 2, name: 'L0.kv', bytes: 2 * G, kind: 'kv-cache' },
    { id: 3, name: 'L1.w', bytes: 8 * G, kind: 'weight' },
    { id: 4, name: 'L1.kv', bytes: 2 * G, kind: 'kv-cache' },
    { id: 5, name: 'head', bytes: G, kind: 'weight' },
  ];

  it('puts each role at the same offset of every layer slot, the rest in slot 0', () => {
    const { bases, periodBlocks } = layerPeriodicLayout(layered, G);
    expect(periodBlocks).toBe(16); // 3 + 8 + 2 + 1 blocks, rounded up to a power of two
    expect(bases[3]! - bases[1]!).toBe(16 * G);
    expect(bases[4]! - bases[2]!).toBe(16 * G);
    expect(bases[0]).toBe(0);
    expect(bases[5]! / G).toBeLessThan(16);
    const starts = bases.map((b) => b / G).sort((a, b) => a - b);
    expect(new Set(starts).size).toBe(layered.length); // no two buffers share a block
  });

  it('falls back to a sequential layout when the slots would overflow 31-bit block ids', () => {
    const many: BufferSpec[] = Array.from({ length: 4 }, (_, l) => ({ id: l, name: `L${l * 200}.w`, bytes: 2 ** 24 * G, kind: 'weight' as const }));
    const { bases, periodBlocks } = layerPeriodicLayout(many, G);
    expect(periodBlocks).toBeNull();
    expect(bases).toEqual([0, 2 ** 24 * G, 2 ** 25 * G, 3 * 2 ** 24 * G]);
  });

  it('the same accesses one layer later leave the same layer-relative state; a different one does not', () => {
    // Six layers of 40-block weights stream through a 16-block L2 and a 64-block LLC.
    const six: BufferSpec[] = [{ id: 0, name: 'x', bytes: 3 * G, kind: 'activation' }];
    for (let l = 0; l < 6; l++) {
      six.push({ id: 1 + 2 * l, name: `L${l}.w`, bytes: 40 * G, kind: 'weight' }, { id: 2 + 2 * l, name: `L${l}.kv`, bytes: 2 * G, kind: 'kv-cache' });
    }
    const run = (odd: number | null) => {
      const ms = new MemorySystem(new Engine(), testTopology(), six, { granularityBytes: G }, () => {});
      const states: number[][] = [];
      for (let l = 0; l < 6; l++) {
        resolve(ms, tile([region(0, 0, 3 * G), region(1 + 2 * l, 0, 40 * G, 'streaming'), region(2 + 2 * l, 0, 2 * G)], [region(0, 0, G)]), 0);
        if (l === odd) resolve(ms, tile([region(0, 0, 100, 'streaming')]), 0);
        states.push(Array.from(ms.layerRelativeState(l + 1)!()));
      }
      return states;
    };
    const same = run(null);
    const steady = same.findIndex((s, i) => i > 0 && JSON.stringify(s) === JSON.stringify(same[i - 1]));
    expect(steady).toBeGreaterThan(0);
    expect(steady).toBeLessThan(4);
    for (let i = steady; i < 6; i++) expect(same[i]).toEqual(same[steady]);
    // One extra access in layer 4: its boundary state differs.
    const odd = run(4);
    expect(odd[3]).toEqual(same[3]);
    expect(odd[4]).not.toEqual(same[4]);
  });
});

describe('MemorySystem hits on lines still being filled', () => {
  it('a waiting hit pays the rest of the fill; a plain hit the L2 latency; both count as hits', () => {
    const topology = testTopology();
    const engine = new Engine();
    const ms = new MemorySystem(engine, topology, buffers, { granularityBytes: G, tracksFills: true }, () => {});
    const read = tile([region(0, 0, 1024)]);
    const out = (wait: boolean): TileTraffic => {
      const o: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
      ms.resolveTile(read, 0, 1, o, 0, wait);
      return o;
    };
    const miss = out(true);
    const missLatency = miss.latencyNs;
    expect(missLatency).toBeGreaterThan(topology.memory.l2.latencyNs);
    // Same instant: the fill has not landed.
    expect(out(true).readLatencyByteNs).toBeCloseTo(1024 * missLatency);
    expect(out(false).readLatencyByteNs).toBeCloseTo(1024 * topology.memory.l2.latencyNs);
    const c = ms.countersOf(1);
    expect(c.l2.hitBytes).toBe(2048);
    expect(c.l2.missBytes).toBe(1024);
  });

  it('once the fill has landed a waiting hit pays the L2 latency', () => {
    const topology = testTopology();
    const engine = new Engine();
    const ms = new MemorySystem(engine, topology, buffers, { granularityBytes: G, tracksFills: true }, () => {});
    const read = tile([region(0, 0, 1024)]);
    const o: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
    ms.resolveTile(read, 0, 1, o, 0, true);
    let later = -1;
    const kind = engine.register('later', () => {
      ms.resolveTile(read, 0, 1, o, 0, true);
      later = o.readLatencyByteNs;
    });
    engine.after(10_000, kind);
    engine.run();
    expect(later).toBeCloseTo(1024 * topology.memory.l2.latencyNs);
  });

  it('without tracksFills (no tile waits on fills) nothing is recorded: a waiting hit pays the L2 latency', () => {
    const topology = testTopology();
    const ms = new MemorySystem(new Engine(), topology, buffers, { granularityBytes: G }, () => {});
    const read = tile([region(0, 0, 1024)]);
    const o: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
    ms.resolveTile(read, 0, 1, o, 0, true);
    ms.resolveTile(read, 0, 1, o, 0, true);
    expect(o.readLatencyByteNs).toBeCloseTo(1024 * topology.memory.l2.latencyNs);
  });
});

describe('MemorySystem fills land at the position of the miss in its stream', () => {
  /** A leader misses 8 blocks at t = 0 with `inFlight` bytes outstanding; a follower reads them at `at`. */
  function follow(inFlight: number, at: number) {
    const topology = testTopology();
    const engine = new Engine();
    const ms = new MemorySystem(engine, topology, buffers, { granularityBytes: G, tracksFills: true }, () => {});
    const read = tile([region(0, 0, 8 * G)]);
    const lead: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
    ms.resolveTile(read, 0, 1, lead, 0, true, inFlight);
    const follower: TileTraffic = { ...lead };
    const kind = engine.register('follow', () => ms.resolveTile(read, 0, 1, follower, 0, true, inFlight));
    engine.after(at, kind);
    engine.run();
    return { lead, follower, l2: topology.memory.l2.latencyNs };
  }

  it('a follower one miss latency behind still waits on the blocks the leader streams later', () => {
    // The leader's stream of 32 KiB at 1 KiB in flight lasts ≈ 32 miss latencies.
    const probe = follow(1024, 0);
    const missLatency = probe.lead.latencyNs;
    const { follower, l2 } = follow(1024, 2 * missLatency);
    expect(follower.readLatencyByteNs).toBeGreaterThan(8 * G * l2 * 2);
    // All of a step's fills landing one latency after its start: the late follower hits outright.
    const instant = follow(Infinity, 2 * missLatency);
    expect(instant.follower.readLatencyByteNs).toBeCloseTo(8 * G * instant.l2);
  });

  it('a follower in lockstep pays what the leader pays, block by block', () => {
    const { lead, follower } = follow(1024, 0);
    expect(follower.readLatencyByteNs).toBeCloseTo(lead.readLatencyByteNs, 0);
  });
});
