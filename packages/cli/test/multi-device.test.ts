import { run } from './helpers.js';
import { describe, expect, it } from 'vitest';

describe('fleet collective over a node', () => {
  it('reports the library, algorithm, protocol and bus bandwidth; latency grows with bytes', async () => {
    const lat: number[] = [];
    for (const bytes of ['8K', '1M', '64M']) {
      const r = await run(['collective', '--backend', 'h100', '--op', 'all-reduce', '--bytes', bytes, '--devices', '8', '--json']);
      expect(r.code, r.err).toBe(0);
      const j = JSON.parse(r.out) as { latencyUs: number; algorithm: string; protocol: string; busBandwidthGBps: number; library: string; onChip: boolean };
      // the engine's custom all-reduce is named as such, not as NCCL
      expect(j.library).toBe(['one-shot', 'two-shot'].includes(j.algorithm) ? 'vllm-custom-allreduce' : 'nccl');
      expect(j.onChip).toBe(false);
      expect(j.busBandwidthGBps).toBeGreaterThan(0);
      lat.push(j.latencyUs);
    }
    expect(lat[1]!).toBeGreaterThan(lat[0]!);
    expect(lat[2]!).toBeGreaterThan(lat[1]!);
  });

  it('--no-custom-all-reduce prices the library alone and names its protocol, channels and own estimate; --proto forces one', async () => {
    const at = async (...extra: string[]) => {
      const r = await run(['collective', '--backend', 'h100', '--op', 'all-reduce', '--bytes', '64K', '--devices', '2', '--json', ...extra]);
      expect(r.code, r.err).toBe(0);
      return JSON.parse(r.out) as { library: string; protocol: string; channels: number; libraryEstimateUs: number; collectiveUs: number };
    };
    const lib = await at('--no-custom-all-reduce');
    expect(lib.library).toBe('nccl');
    expect([lib.protocol, lib.channels]).toEqual(['LL', 8]);
    expect(lib.libraryEstimateUs).toBeGreaterThan(0);
    const simple = await at('--no-custom-all-reduce', '--proto', 'Simple');
    expect([simple.protocol, simple.channels]).toEqual(['Simple', 2]);
    expect(simple.collectiveUs).toBeGreaterThan(lib.collectiveUs);
    const bad = await run(['collective', '--backend', 'h100', '--op', 'reduce', '--bytes', '8K', '--proto', 'LL']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--proto/);
  });

  it('a graph launch costs less than an eager one', async () => {
    const at = async (mode: string) =>
      (
        JSON.parse(
          (await run(['collective', '--backend', 'h200', '--op', 'all-gather', '--bytes', '32K', '--devices', '4', '--mode', mode, '--json'])).out,
        ) as { latencyUs: number }
      ).latencyUs;
    expect(await at('graph')).toBeLessThan(await at('eager'));
  });

  it('the cluster collectives are unchanged by the new ops', async () => {
    const r = await run(['collective', '--backend', 'h100', '--op', 'reduce', '--bytes', '8192', '--cluster', '4', '--json']);
    expect(r.code, r.err).toBe(0);
    expect((JSON.parse(r.out) as { onChip: boolean }).onChip).toBe(true);
  });
});

describe('fleet compare --tp', () => {
  it('llama3-70b: too small a TP does not fit, with the numbers; a larger TP runs and is faster', async () => {
    const r = await run([
      'compare',
      '--model',
      'llama3-70b',
      '--backends',
      'h100',
      '--policies',
      'kernel-per-op-graph',
      '--batch',
      '1',
      '--tp',
      '1,8',
      '--sample-layers',
      '2',
      '--json',
    ]);
    expect(r.code, r.err).toBe(0);
    const rows = (JSON.parse(r.out) as { results: Array<{ tp: number; status: string; reason?: string; tpotMs?: number; perDeviceBytes: number }> }).results;
    const one = rows.find((x) => x.tp === 1)!;
    const eight = rows.find((x) => x.tp === 8)!;
    expect(one.status).toBe('unsupported');
    expect(one.reason).toMatch(/does not fit: .*\d+\.\d GB.*h100 has 85\.0 GB/);
    expect(eight.status).toBe('ok');
    expect(eight.perDeviceBytes).toBeLessThan(one.perDeviceBytes / 7);
  });

  it('--no-custom-all-reduce prices NCCL alone: a small-batch TP step is slower than with the engine kernel', async () => {
    const tpot = async (...extra: string[]) => {
      const r = await run(['compare', '--backends', 'h200', '--policies', 'kernel-per-op-graph', '--batch', '8', '--tp', '4', '--json', ...extra]);
      expect(r.code, r.err).toBe(0);
      return (JSON.parse(r.out) as { results: Array<{ tpotMs: number }> }).results[0]!.tpotMs;
    };
    expect(await tpot('--no-custom-all-reduce')).toBeGreaterThan(await tpot());
  });

  it('fleet verify --tp 2 computes the logits of one device', async () => {
    const r = await run(['verify', '--tp', '2', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out) as { tp: number; results: Array<{ status: string; maxRelError: number }> };
    expect(j.tp).toBe(2);
    expect(j.results[0]!.status).toBe('pass');
  });
});
