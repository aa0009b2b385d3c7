#!/usr/bin/env node
// Checks that `npm ci` accepts package-lock.json on every platform: each optional dependency
// of every locked package (the per-platform binaries of turbo, rolldown, lightningcss, ...)
// must have its own lock entry. npm only writes entries for the platforms of the machine that
// last regenerated the lockfile when the registry lacks a binary, and `npm ci` then refuses
// the lockfile everywhere. With --npm, also runs `npm ci --dry-run` (offline: it only compares
// package.json with the lockfile).
//
//   node scripts/check-lockfile.mjs [--npm] [--lockfile PATH]   exit 0: fine; 1: problems on stderr
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Problems with the lockfile's optional dependencies, one line each; empty when complete. */
export function missingOptionalDependencies(lock) {
  const pkgs = lock.packages ?? {};
  const problems = [];
  for (const [path, entry] of Object.entries(pkgs)) {
    for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
      const found = resolve(pkgs, path, name);
      if (found === undefined) {
        problems.push(`${path || '(root)'}: optional dependency ${name}@${spec} has no lock entry`);
      } else if (/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec) && pkgs[found].version !== spec) {
        problems.push(`${path || '(root)'}: ${name} is locked at ${pkgs[found].version}, wants ${spec}`);
      }
    }
  }
  return problems;
}

// Node's lookup: the package's own node_modules, then each enclosing node_modules up to the root.
function resolve(pkgs, from, name) {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (candidate in pkgs) return candidate;
    if (!dir) return undefined;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut >= 0 ? dir.slice(0, cut) : '';
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf('--lockfile');
  const file = at >= 0 ? process.argv[at + 1] : join(root, 'package-lock.json');
  const lock = JSON.parse(readFileSync(file, 'utf8'));
  const problems = missingOptionalDependencies(lock);
  if (process.argv.includes('--npm')) {
    try {
      execFileSync('npm', ['ci', '--dry-run', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
      });
    } catch (e) {
      const lines = String(e.stderr ?? '')
        .split('\n')
        .filter((l) => /Missing|Invalid|in sync/.test(l));
      problems.push(`npm ci --dry-run rejects the lockfile${lines.length ? `: ${lines.join('; ')}` : ''}`);
    }
  }
  for (const p of problems) console.error(`lockfile: ${p}`);
  process.exit(problems.length ? 1 : 0);
}
