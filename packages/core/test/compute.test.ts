import { describe, expect, it } from 'vitest';
import { exposedStallNs, latencyBoundNs, occupancy, unionResources, type ComputeResources } from '../src/index.js';

const CU: ComputeResources = {
  waveSize: 64,
  simds: 4,
  maxWavesPerSimd: 8,
  registersPerSimd: 512 * 64,
  registerGranularity: 8,
  sharedBytes: 64 * 1024,
  maxBlocks: 32,
};

describe('occupancy', () => {
  it('registers, shared memory and wave slots each limit the resident workgroups', () => {
    expect(occupancy(CU, { threads: 256, registersPerThread: 64, sharedBytes: 0 })).toEqual({ blocks: 8, wavesPerSimd: 8, limitedBy: 'waves' });
    expect(occupancy(CU, { threads: 256, registersPerThread: 128, sharedBytes: 0 })).toMatchObject({ blocks: 4, wavesPerSimd: 4, limitedBy: 'registers' });
    expect(occupancy(CU, { threads: 256, registersPerThread: 64, sharedBytes: 40 * 1024 })).toMatchObject({ blocks: 1, limitedBy: 'shared' });
    // 129 registers round up to 136: still 3 waves per SIMD fit in 512
    expect(occupancy(CU, { threads: 256, registersPerThread: 129, sharedBytes: 0 }).wavesPerSimd).toBe(3);
  });

  it('a megakernel runs at the occupancy of its most demanding task type', () => {
    const tasks = [
      { threads: 256, registersPerThread: 512, sharedBytes: 16384 },
      { threads: 256, registersPerThread: 64, sharedBytes: 32768 },
    ];
    const u = unionResources(tasks);
    expect(u).toEqual({ threads: 256, registersPerThread: 512, sharedBytes: 32768 });
    expect(occupancy(CU, u).wavesPerSimd).toBe(1);
    expect(occupancy(CU, tasks[1]!).wavesPerSimd).toBeGreaterThan(occupancy(CU, u).wavesPerSimd);
  });
});

describe('tile pipeline', () => {
  it('one context serialises compute and memory; more contexts hide more of the smaller', () => {
    expect(exposedStallNs(100, 300, 1)).toBe(100);
    expect(exposedStallNs(100, 300, 4)).toBe(25);
    expect(exposedStallNs(100, 300, 16)).toBeLessThan(exposedStallNs(100, 300, 2));
    expect(exposedStallNs(100, 300, Infinity)).toBe(0);
  });

  it('a narrower DRAM stream bounds only the DRAM share of the reads', () => {
    expect(latencyBoundNs(1000, 600, { inFlightBytes: 10, overlap: 1 })).toBe(100);
    expect(latencyBoundNs(1000, 600, { inFlightBytes: 100, dramInFlightBytes: 6, overlap: 1 })).toBe(100);
    expect(latencyBoundNs(1000, 600, { inFlightBytes: 1, dramInFlightBytes: 600, overlap: 1 })).toBe(400);
  });

  it('an issue-limited DRAM stream takes its bytes over its rate, whatever their latency', () => {
    const pipe = { inFlightBytes: 100, dramBytesPerNs: 2, overlap: 1 };
    // 3 DRAM bytes (600 byte·ns at a 200 ns latency): 1.5 ns at 2 B/ns; on-chip 400 / 100 = 4 ns
    expect(latencyBoundNs(1000, 600, pipe, 3)).toBe(4);
    expect(latencyBoundNs(1000, 600, pipe, 30)).toBe(15);
    // a slower memory (twice the byte·ns) does not slow it
    expect(latencyBoundNs(1600, 1200, pipe, 30)).toBe(15);
  });
});
