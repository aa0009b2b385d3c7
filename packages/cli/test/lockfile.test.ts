import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm ci` (the README's first command) must accept the repository's lockfile on every platform.
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const script = join(root, 'scripts/check-lockfile.mjs');
const check = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });

describe('package-lock.json', () => {
  it('locks every optional platform binary and `npm ci --dry-run` accepts it', () => {
    const r = check('--npm');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('holds turbo and all six of its platform packages at the pinned version', () => {
    const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies.turbo as string;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/); // exact: a range could drift to a release without every binary
    const pkgs = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
    for (const p of ['darwin-64', 'darwin-arm64', 'linux-64', 'linux-arm64', 'windows-64', 'windows-arm64']) {
      expect(pkgs[`node_modules/@turbo/${p}`]?.version, p).toBe(pinned);
    }
  });

  it('the check fails when a platform binary is missing from the lockfile', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
    delete lock.packages['node_modules/@turbo/windows-arm64'];
    const file = join(mkdtempSync(join(tmpdir(), 'fleet-lock-')), 'package-lock.json');
    writeFileSync(file, JSON.stringify(lock));
    const r = check('--lockfile', file);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('@turbo/windows-arm64');
  });
});

describe('npm test', () => {
  it('runs every package to the end (turbo --continue), so one failing package does not hide the others', () => {
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.test).toMatch(/^turbo run test\b/);
    expect(scripts.test.split(/\s+/)).toContain('--continue');
  });
});
