import { collectiveCost } from '@fleet/core';
import {
  GRAPH_GAP_NS,
  GRAPH_LAUNCH_NS,
  NCCL_H100_COMM_CHANNELS,
  NCCL_H100_GRAPH_CHANNELS,
  NCCL_H100X2_CALIBRATION,
  NCCL_SWEEP_GRAPH_CALLS,
  ncclHopper,
} from '@fleet/family-hopper';
import { describe, expect, it } from 'vitest';
import { node } from '../src/index.js';

const MiB = 2 ** 20;
const nccl = (bytes: number, devices: number) => collectiveCost(node, 'all-reduce', bytes, devices, { customAllReduce: false });

describe('NCCL on the HGX H100 node', () => {
  it("runs on the ring graph's channels, duplicated once (6 rings at 60 GB/s → 12 at 30 → 24)", () => {
    expect(NCCL_H100_GRAPH_CHANNELS).toBe(12);
    expect(ncclHopper.channels).toBe(NCCL_H100_GRAPH_CHANNELS);
    expect(ncclHopper.runtime?.channels).toBe(NCCL_H100_COMM_CHANNELS);
    expect(NCCL_H100_COMM_CHANNELS).toBe(24);
  });

  it('two GPUs: LL through 1 MiB on as many channels as the message fills, Simple on all 24 from 2 MiB', () => {
    expect([nccl(8192, 2).protocol, nccl(8192, 2).channels]).toEqual(['LL', 1]);
    expect([nccl(128 * 1024, 2).protocol, nccl(128 * 1024, 2).channels]).toEqual(['LL', 16]);
    expect(nccl(MiB, 2).protocol).toBe('LL');
    for (const mib of [2, 8, 64])
      expect([nccl(mib * MiB, 2).algorithm, nccl(mib * MiB, 2).protocol, nccl(mib * MiB, 2).channels]).toEqual(['ring', 'Simple', 24]);
  });

  it('eight GPUs: LL, then LL128 at 4–16 MiB, then Simple', () => {
    expect(nccl(256 * 1024, 8).protocol).toBe('LL');
    expect(nccl(4 * MiB, 8).protocol).toBe('LL128');
    expect(nccl(16 * MiB, 8).protocol).toBe('LL128');
    expect(nccl(64 * MiB, 8).protocol).toBe('Simple');
  });

  it("the engine's custom all-reduce stays apart: taken only where allowed and faster", () => {
    const both = collectiveCost(node, 'all-reduce', 256 * 1024, 8);
    expect(['one-shot', 'two-shot']).toContain(both.algorithm);
    expect(both.library).toBe('vllm-custom-allreduce');
    expect(both.channels).toBe(0);
    expect(nccl(256 * 1024, 8).library).toBe('nccl');
  });

  it("the run reproduces the four two-H100 rows that calibrate it (per call in the sweep's graph: a kernel boundary and its share of the launch)", () => {
    const perCallUs = (GRAPH_GAP_NS + GRAPH_LAUNCH_NS / NCCL_SWEEP_GRAPH_CALLS) / 1000;
    expect(perCallUs).toBeLessThan(1.2);
    for (const row of Object.values(NCCL_H100X2_CALIBRATION)) {
      const only = { ...node, library: { ...node.library, protocols: [row.proto] } };
      const c = collectiveCost(only, 'all-reduce', row.bytes, 2, { customAllReduce: false });
      expect(c.latencyUs + perCallUs, `${row.proto} ${row.bytes}`).toBeCloseTo(row.us, 6);
    }
  });

  it('LL walks each byte 2N − 1 times over N on the ring: four GPUs pay 7/6 of two GPUs per byte at 64 MiB', () => {
    const only = { ...node, library: { ...node.library, protocols: ['LL' as const] } };
    const data = (n: number) => {
      const c = collectiveCost(only, 'all-reduce', 64 * MiB, n, { customAllReduce: false });
      return c.latencyUs - (6.6 + 2 * (n - 1) * 0.6);
    };
    expect(data(4) / data(2)).toBeCloseTo(7 / 6, 9);
  });
});
