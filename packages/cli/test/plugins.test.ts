import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUILTIN_POLICIES } from '@fleet/ops';
import { main, type Io } from '../src/index.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

async function runIn(cwd: string, args: string[]) {
  let out = '';
  let err = '';
  const io: Io = { out: (s) => (out += s), err: (s) => (err += s), errIsTty: false, cwd };
  return { code: await main(args, io), out, err };
}

function configDir(backends: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-config-'));
  writeFileSync(join(dir, 'fleet.config.json'), JSON.stringify({ backends }));
  return dir;
}

describe('third-party backends from fleet.config.json', () => {
  it('a configured backend appears in `fleet backends` and runs in `fleet compare`', async () => {
    const dir = configDir([join(fixtures, 'backend-toy')]);
    const list = await runIn(dir, ['backends', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out).backends.map((b: { name: string }) => b.name)).toContain('toy');
    const cmp = await runIn(dir, ['compare', '--json', '--backends', 'toy', '--batch', '1', '--model', 'llama2-7b', '--sample-layers', '1', '--decode', '8']);
    expect(cmp.code).toBe(0);
    const rows = JSON.parse(cmp.out).results;
    // Every installed policy; each decides from the toy's topology (its chiplet level is the die, not a cluster).
    expect(rows.map((r: { policy: string }) => r.policy)).toEqual(BUILTIN_POLICIES.map((p) => p.name));
    expect(rows.filter((r: { status: string }) => r.status !== 'ok').map((r: { policy: string }) => r.policy)).toEqual(['clusterfusion']);
  });

  it('a package whose package.json and descriptor declare different API versions is refused', async () => {
    const pkg = mkdtempSync(join(tmpdir(), 'fleet-mismatch-'));
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: '@acme/backend-mismatch', version: '1.0.0', type: 'module', fleet: { kind: 'backend', apiVersion: '2.0', entry: './index.js' } }),
    );
    writeFileSync(join(pkg, 'index.js'), "export default { name: 'mismatch', apiVersion: '2.1', module: {} };\n");
    const r = await runIn(configDir([pkg]), ['backends']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'fleet: package @acme/backend-mismatch: package.json declares fleet.apiVersion 2.0 but its descriptor says apiVersion 2.1; make them equal\n',
    );
  });

  it('`fleet backends` labels device memory and its bandwidth, and counts in the singular where there is one', async () => {
    const r = await runIn(configDir([join(fixtures, 'backend-toy')]), ['backends']);
    const toy = r.out.split('\n').find((l) => l.startsWith('toy'))!;
    expect(toy).toMatch(/32 SMs in 4 dies, 8 MiB L2 in 2 halves, 16 GiB device memory at 0\.90 TB\/s achievable \(1\.00 peak\)/);
    expect(r.out).not.toMatch(/\b1 (dies|halves)\b|\bHBM\b/);
  });

  it('a plugin with an unsupported apiVersion is refused with the supported versions', async () => {
    const r = await runIn(configDir([join(fixtures, 'backend-future')]), ['backends']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/apiVersion 3\.0 is not supported; this Fleet supports 2\.0/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it('a malformed config is reported with its field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-config-'));
    writeFileSync(join(dir, 'fleet.config.json'), JSON.stringify({ backend: ['x'] }));
    const r = await runIn(dir, ['backends']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/fleet\.config\.json.*backend/);
  });

  it('a missing package is named', async () => {
    const r = await runIn(configDir(['@nobody/backend-none']), ['backends']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/@nobody\/backend-none.*not installed/);
  });
});

describe('built-in backends', () => {
  it('are the CLI dependencies that declare a fleet field, first and in package.json order', async () => {
    const { readFileSync } = await import('node:fs');
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    const devices = Object.keys(manifest.dependencies).filter((n) => n.startsWith('@fleet/backend-'));
    const list = await runIn(mkdtempSync(join(tmpdir(), 'fleet-builtin-')), ['backends', '--json']);
    expect(list.code).toBe(0);
    const names = JSON.parse(list.out).backends.map((b: { name: string }) => b.name) as string[];
    expect(names.slice(0, devices.length)).toEqual(devices.map((n) => n.replace('@fleet/backend-', '')));
  });
});
