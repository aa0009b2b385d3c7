/**
 * A policy that cannot honour an option refuses the row with the reason (named by its flag),
 * instead of reporting numbers labelled with an option it ignored.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_POLICIES, CLUSTER_KNOBS, parseWeightType, SCHEDULE_KNOBS, type PolicyOverrides } from '@fleet/ops';
import { run, writeTinyModel } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'fleet-options-'));
const model = writeTinyModel(dir);
const base = ['--model', join(dir, model), '--sample-layers', '1', '--decode', '8', '--batch', '1'];

interface Row {
  policy: string;
  weights: string;
  status: string;
  reason?: string;
  hbmReadBytes?: number;
}

async function rows(args: string[]): Promise<Row[]> {
  const r = await run(['compare', ...base, ...args, '--json']);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { results: Row[] }).results;
}

describe('policies refuse options they cannot honour', () => {
  it('clusterfusion refuses low-bit weights instead of reading bf16 bytes', async () => {
    const rs = await rows(['--backends', 'h100', '--policies', 'clusterfusion,kernel-per-op-graph', '--weights', 'u4g128']);
    const cf = rs.find((r) => r.policy === 'clusterfusion')!;
    expect(cf.status).toBe('unsupported');
    expect(cf.reason).toMatch(/16-bit weights only \(--weights u4g128\)/);
    expect(cf.hbmReadBytes).toBeUndefined();
    // A policy that honours the weight type still runs it.
    expect(rs.find((r) => r.policy === 'kernel-per-op-graph')!.status).toBe('ok');
  });

  it('a chiplet-task override is refused by policies without chiplet-tasks, with the flags they do use', async () => {
    const rs = await rows(['--backends', 'mi350', '--policies', 'mirage,kernel-per-op,fleet-mtile', '--traversal', 'n-major']);
    expect(rs.find((r) => r.policy === 'fleet-mtile')!.status).toBe('ok');
    for (const p of ['mirage', 'kernel-per-op']) {
      const r = rs.find((x) => x.policy === p)!;
      expect(r.status).toBe('unsupported');
      expect(r.reason).toMatch(/has no use for --traversal/);
      expect(r.reason).toMatch(/--weight-cache/);
    }
  });

  it('every built-in policy either runs an option or refuses it: no override is silently dropped', () => {
    // A representative value of each knob; a policy's refusal must name exactly the knobs it does not read.
    const values: Required<PolicyOverrides> = {
      weightPolicy: 'nontemporal',
      storePolicy: 'streaming',
      fuseActivation: true,
      traversal: 'n-major',
      twoLevelCounting: false,
      expertPlacement: 'owner',
      attentionMapping: 'swizzled-head-first',
      clusterSize: 2,
      clusterDataflow: 'split-head',
      dsmem: false,
    };
    const chipletTaskKnobs = SCHEDULE_KNOBS.filter((k) => !CLUSTER_KNOBS.includes(k));
    const honoured: Record<string, string[]> = {
      'kernel-per-op': ['weightPolicy', 'storePolicy'],
      'kernel-per-op-graph': ['weightPolicy', 'storePolicy'],
      mirage: ['weightPolicy', 'storePolicy', 'fuseActivation'],
      'fleet-mtile': chipletTaskKnobs,
      'fleet-msplit': chipletTaskKnobs,
      'fleet-ksplit': chipletTaskKnobs,
      'fleet-wave-ksplit': chipletTaskKnobs,
      clusterfusion: [...CLUSTER_KNOBS],
    };
    for (const p of BUILTIN_POLICIES) {
      expect(Object.keys(honoured), `audit ${p.name}`).toContain(p.name);
      for (const k of SCHEDULE_KNOBS) {
        const why = p.refusesOptions?.({ overrides: { [k]: values[k] } }) ?? null;
        if (honoured[p.name]!.includes(k)) expect(why, `${p.name} ${k}`).toBeNull();
        else expect(why, `${p.name} ${k}`).toMatch(new RegExp(`\`${k}\``));
      }
      const lowBit = p.refusesOptions?.({ weights: parseWeightType('u4g128') }) ?? null;
      if (p.name === 'clusterfusion') expect(lowBit).not.toBeNull();
      else expect(lowBit).toBeNull();
    }
  });

  it('--phase mixed refuses tensor parallelism instead of ignoring it', async () => {
    const r = await run(['compare', ...base, '--phase', 'mixed', '--tp', '2']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--phase mixed simulates one device/);
  });

  it('the table names the weight type: a weights column and a heading line', async () => {
    const r = await run(['compare', ...base, '--backends', 'h100', '--policies', 'kernel-per-op', '--weights', 'u4g128']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/decoder-layer linear weights: u4g128/);
    const header = r.out.split('\n').find((l) => l.startsWith('backend'))!;
    expect(header).toMatch(/\bweights\b/);
    const csv = await run(['compare', ...base, '--backends', 'h100', '--policies', 'kernel-per-op', '--weights', 'u4g128', '--format', 'csv']);
    const [head, first] = csv.out.split('\r\n');
    const cols = head!.split(',');
    expect(first!.split(',')[cols.indexOf('weights')]).toBe('u4g128');
    expect(cols).toContain('layersExtrapolated');
  });
});
