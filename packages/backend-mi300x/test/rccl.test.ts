import { collectiveCost } from '@fleet/core';
import { RCCL_MI300X_GRAPH_CHANNELS, rcclCdna } from '@fleet/family-cdna';
import { describe, expect, it } from 'vitest';
import { node } from '../src/index.js';

const MiB = 2 ** 20;
const rccl = (bytes: number, devices: number) => collectiveCost(node, 'all-reduce', bytes, devices, { customAllReduce: false });

describe('RCCL on the MI300X node', () => {
  it('runs LL and Simple only (LL128 is off on gfx94), on the 28 rings of its topology model duplicated once', () => {
    expect(rcclCdna.protocols).toEqual(['LL', 'Simple']);
    expect(rcclCdna.runtime?.channels).toBe(2 * RCCL_MI300X_GRAPH_CHANNELS);
  });

  it('eight GPUs: ring LL up to 256 KiB, ring Simple on all 56 channels from 1 MiB; never LL128', () => {
    for (const kib of [8, 64, 256]) expect([rccl(kib * 1024, 8).algorithm, rccl(kib * 1024, 8).protocol], `${kib} KiB`).toEqual(['ring', 'LL']);
    for (const mib of [1, 8, 64]) expect([rccl(mib * MiB, 8).protocol, rccl(mib * MiB, 8).channels], `${mib} MiB`).toEqual(['Simple', 56]);
    for (let b = 1024; b <= 2 ** 30; b *= 2) expect(rccl(b, 8).protocol).not.toBe('LL128');
  });

  it('a small message keeps its channel’s 256 threads (RCCL does not halve them)', () => {
    const c = rccl(4096, 8);
    expect([c.channels, c.threads]).toEqual([1, 256]);
  });
});
