import { run } from './helpers.js';
import { describe, expect, it } from 'vitest';
import { gatherTrafficBytes, reduceTrafficBytes } from '@fleet/core';
import { parseBytes } from '../src/commands/collective.js';

describe('fleet collective', () => {
  it('prints { latencyUs, onChip, … } with the seeds §3 traffic', async () => {
    const r = await run(['collective', '--backend', 'h100', '--op', 'reduce', '--bytes', '32K', '--cluster', '4', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.onChip).toBe(true);
    expect(j.latencyUs).toBeGreaterThan(0);
    expect(j.trafficBytes).toBe(reduceTrafficBytes(32768, 4));
    expect(j.rounds).toBe(2);
    const g = JSON.parse((await run(['collective', '--backend', 'h100', '--op', 'gather', '--bytes', '1024', '--cluster', '16', '--json'])).out);
    expect(g.trafficBytes).toBe(gatherTrafficBytes(1024, 16));
  });

  it('goes through global memory with --off-chip, and shows both with --both (DSMEM faster for large messages)', async () => {
    const off = JSON.parse(
      (await run(['collective', '--backend', 'h100', '--op', 'reduce', '--bytes', '65536', '--cluster', '4', '--off-chip', '--json'])).out,
    );
    expect(off.onChip).toBe(false);
    const both = JSON.parse((await run(['collective', '--backend', 'h100', '--op', 'reduce', '--bytes', '65536', '--cluster', '4', '--both', '--json'])).out);
    expect(both.results.map((x: { onChip: boolean }) => x.onChip)).toEqual([true, false]);
    expect(both.results[1].latencyUs).toBe(off.latencyUs);
    expect(both.onChipSpeedup).toBeGreaterThan(1);
  });

  it('grows with the cluster size at a fixed message', async () => {
    const at = async (c: number) =>
      JSON.parse((await run(['collective', '--backend', 'h100', '--op', 'gather', '--bytes', '4096', '--cluster', String(c), '--json'])).out)
        .latencyUs as number;
    expect(await at(16)).toBeGreaterThan(await at(2));
  });

  it('rejects bad input with one line and exit code 2', async () => {
    for (const args of [
      ['--backend', 'h100', '--op', 'reduce', '--bytes', '1K', '--cluster', '3'],
      ['--backend', 'h100', '--op', 'reduce', '--bytes', 'lots'],
      ['--backend', 'h100', '--op', 'scatter', '--bytes', '1K'],
      ['--backend', 'mi350', '--op', 'reduce', '--bytes', '1K'],
      ['--backend', 'h100', '--op', 'reduce', '--bytes', '1K', '--off-chip', '--both'],
    ]) {
      const r = await run(['collective', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('parses byte counts with binary units', () => {
    expect(parseBytes('--bytes', '32K')).toBe(32768);
    expect(parseBytes('--bytes', '1MiB')).toBe(1 << 20);
    // The range's own end is accepted in its own unit; one byte past it is not.
    expect(parseBytes('--bytes', '1G')).toBe(2 ** 30);
    expect(parseBytes('--bytes', '1GiB')).toBe(2 ** 30);
    expect(() => parseBytes('--bytes', '2G')).toThrow(/1\.\.1GiB/);
    expect(parseBytes('--bytes', '4096')).toBe(4096);
    expect(() => parseBytes('--bytes', '0')).toThrow(/--bytes/);
  });
});
