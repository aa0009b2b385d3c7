// The backend as a user meets it: installed with no change to Fleet, it is listed by
// `fleet backends` and runs in `fleet compare`; each author mistake is one clear line.
import { discoverBackendPackages } from '@fleet/core';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, assertBuilt, exampleDir, exampleName, fleet, mistakes } from './cli-harness.js';

const sandbox = new Sandbox();
beforeAll(assertBuilt);
afterAll(() => sandbox.dispose());

interface Listed {
  name: string;
  apiVersion: string;
  topology: string;
  policies: { policy: string; supported: boolean; reason?: string }[];
}

function listed(out: string): Listed {
  const b200 = (JSON.parse(out) as { backends: Listed[] }).backends.find((b) => b.name === 'b200');
  expect(b200).toBeDefined();
  return b200!;
}

describe('installing the B200 backend', () => {
  it('from fleet.config.json (a path to the package folder): listed with its API version and topology', async () => {
    const r = await fleet(sandbox.project([exampleDir]), ['backends', '--json']);
    expect(r.code).toBe(0);
    const b = listed(r.out);
    expect(b.apiVersion).toBe('2.0');
    expect(b.topology).toMatch(/\b148 SMs in 2 dies\b/);
    expect(b.policies.filter((p) => !p.supported).map((p) => p.policy)).toEqual(['clusterfusion']);
  });

  it('from node_modules (as npm links a workspace or a folder install): discovered by its `fleet` field', async () => {
    const project = sandbox.project();
    sandbox.link(project, exampleName, exampleDir);
    expect(discoverBackendPackages(project).find((p) => p.packageName === exampleName)?.dir).toBe(join(project, 'node_modules', exampleName));
    const r = await fleet(project, ['backends', '--json']);
    expect(r.code).toBe(0);
    expect(listed(r.out).apiVersion).toBe('2.0');
  });

  it('runs in fleet compare: every policy but clusterfusion simulates', async () => {
    const args = ['compare', '--json', '--backends', 'b200', '--batch', '1', '--model', 'llama2-7b', '--sample-layers', '1', '--decode', '8'];
    const r = await fleet(sandbox.project([exampleDir]), args);
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.out) as { results: { policy: string; status: string; tpotMs?: number; reason?: string }[] }).results;
    expect(rows.map((x) => x.policy)).toEqual([
      'kernel-per-op',
      'kernel-per-op-graph',
      'mirage',
      'fleet-mtile',
      'fleet-msplit',
      'fleet-ksplit',
      'fleet-wave-ksplit',
      'clusterfusion',
    ]);
    for (const row of rows.slice(0, 7)) {
      expect(row.status).toBe('ok');
      // llama2-7b streams ≈ 13.5 GB of bf16 weights per token: no faster than the HBM allows
      expect(row.tpotMs!).toBeGreaterThan((13.4e9 / 8e12) * 1e3);
    }
    expect(rows[7]!.status).toBe('unsupported');
  });
});

describe('author mistakes through the CLI: one line on stderr, exit code 2', () => {
  const expected: Record<string, RegExp> = {
    'api-version': /^fleet: package @acme\/backend-b200-next: apiVersion 3\.0 is not supported; this Fleet supports 2\.0–2\.0$/,
    'topology-schema':
      /^fleet: invalid topology from backend b200: \/memory\/l2\/organisation: must be equal to one of the allowed values \(allowed: per-partition, shared\)$/,
    'missing-binding': /^fleet: backend b200 \(@acme\/backend-b200-no-cost\): missing required binding TOKENS\.CostModel$/,
    'duplicate-name': /^fleet: duplicate backend name 'b200': from @fleet-examples\/backend-b200 and @acme\/backend-b200-copy$/,
  };
  it('covers every mistake', () => {
    expect(Object.keys(mistakes).sort()).toEqual(Object.keys(expected).sort());
  });
  for (const [id, pattern] of Object.entries(expected)) {
    it(id, async () => {
      const r = await mistakes[id]!(sandbox);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err.endsWith('\n')).toBe(true);
      expect(r.err.trimEnd()).toMatch(pattern);
    });
  }
});
