import { collectiveCost } from '@fleet/core';
import { NCCL_H100_COMM_CHANNELS, NCCL_H100_GRAPH_CHANNELS, ncclHopper } from '@fleet/family-hopper';
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
});
