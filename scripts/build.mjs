#!/usr/bin/env node
// Builds every TypeScript project of the workspace (packages/*, examples/*) in one `tsc -b`,
// so a new in-tree package is built without being listed anywhere. Extra arguments go to tsc
// (e.g. --verbose, --clean). Then precompiles the JSON Schemas (scripts/build-validators.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const projects = ['packages', 'examples'].flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, group, d.name, 'tsconfig.json')))
    .map((d) => `${group}/${d.name}`)
    .sort(),
);
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const args = process.argv.slice(2);
try {
  execFileSync(process.execPath, [tsc, '-b', ...projects, ...args], { cwd: root, stdio: 'inherit' });
  // The JSON Schemas as Ajv standalone code, so commands need not compile them at start-up.
  if (!args.includes('--clean')) execFileSync(process.execPath, [join(root, 'scripts', 'build-validators.mjs')], { cwd: root, stdio: 'inherit' });
} catch (e) {
  // tsc has printed its diagnostics; end with its status, not a stack trace.
  process.exit(typeof e.status === 'number' ? e.status : 1);
}
