import { describe, expect, it } from 'vitest';
import { Engine, MemorySystem, type BufferSpec, type TileTraffic } from '@fleet/core';
import { OURS, H100_SXM5 as topology } from '../src/index.js';

/**
 * H100's L2 is one 50 MB cache in two halves: each line has a home half; a requester on the
 * other side pays the far-half latency the first time and then reads a near copy. (Our
 * measurement: a first read from the far side costs 474 vs 292 cycles, later reads 292.)
 */
describe('H100 partitioned L2', () => {
  const G = 4096;
  const buffers: BufferSpec[] = [{ id: 0, name: 'w', bytes: 1024 * G, kind: 'weight' }];
  const fresh = () => new MemorySystem(new Engine(), topology, buffers, { granularityBytes: G }, () => {});
  const read = (m: MemorySystem, block: number, partition: number): TileTraffic => {
    const out: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
    m.resolveTile({ reads: [{ buffer: 0, offset: block * G, bytes: 128, policy: 'default' }], writes: [], flops: 0, unit: 'vector' }, partition, 1, out);
    return out;
  };
  const { latencyNs: near, farExtraLatencyNs: far } = topology.memory.l2;

  it('puts 66 SMs near each half, one 18-SM and three 16-SM GPCs on each side, as measured', () => {
    const cus = topology.partitions.computeUnits;
    const P = cus.length;
    // core's requester half: GPC p is near half ⌊p · halves / P⌋
    const side = (p: number) => Math.floor((p * topology.memory.l2.halves!) / P);
    const sms = [0, 1].map((h) => cus.filter((_, p) => side(p) === h).reduce((a, b) => a + b, 0));
    expect(sms).toEqual([OURS.l2Sides.smsNearHalfOfSm0, OURS.l2Sides.smsNearHalfOfSm2]);
    for (const h of [0, 1]) expect(cus.filter((_, p) => side(p) === h).sort((a, b) => b - a)).toEqual([18, 16, 16, 16]);
  });

  it('models the L2 as two halves: GPCs 0–3 are near half 0, GPCs 4–7 near half 1', () => {
    const m = fresh();
    expect(m.l2).toHaveLength(2);
    for (let p = 0; p < 8; p++) expect(m.l2Index(p)).toBe(p < 4 ? 0 : 1);
  });

  it('serves a first read from the far side at near + far extra, then from a near copy', () => {
    const m = fresh();
    let homeNear0 = 0;
    let homeNear7 = 0;
    for (let b = 0; b < 256; b++) {
      read(m, b, 0); // bring it in (HBM), homed in one half, copied near GPC 0
      expect(read(m, b, 0).latencyNs).toBe(near); // GPC 0 now always reads near
      const first7 = read(m, b, 7).latencyNs; // GPC 7, the other side
      expect([near, near + far!]).toContain(first7);
      expect(read(m, b, 7).latencyNs).toBe(near); // replicated: near from now on
      if (first7 === near) homeNear7++;
      else homeNear0++;
    }
    // homes are spread over both halves
    expect(homeNear0).toBeGreaterThan(64);
    expect(homeNear7).toBeGreaterThan(64);
  });

  it('a store goes to the home half and makes the other copy stale', () => {
    const m = fresh();
    read(m, 5, 0);
    read(m, 5, 7); // both halves hold the line now
    const out: TileTraffic = { l2Bytes: 0, llcBytes: 0, hbmBytes: 0, latencyNs: 0, readLatencyByteNs: 0, dramReadLatencyByteNs: 0 };
    m.resolveTile({ reads: [], writes: [{ buffer: 0, offset: 5 * G, bytes: 128, policy: 'default' }], flops: 0, unit: 'vector' }, 0, 1, out);
    const a = read(m, 5, 0).latencyNs;
    const z = read(m, 5, 7).latencyNs;
    // exactly one side still has it near (the home); the other pays the far trip once more
    expect(a + z).toBeCloseTo(2 * near + far!, 6);
  });

  it('holds a line once: a read from the far side hits what the near side fetched, without a second HBM read', () => {
    const m = fresh();
    const first = read(m, 3, 0);
    const other = read(m, 3, 7);
    expect(first.hbmBytes).toBe(128);
    expect(other.hbmBytes).toBe(0);
  });
});
