/** What the docs tell users to run must work from a checkout: Fleet's packages are not on the npm registry. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

describe('container examples build from the repository', () => {
  it('compose builds the worker image from the checkout with docs/sweeps/Dockerfile', () => {
    const compose = parse(read('docs/sweeps/compose.yaml')) as {
      services: Record<string, { build?: { context: string; dockerfile: string }; command?: string[] }>;
    };
    const worker = compose.services.worker!;
    expect(worker.build).toBeDefined();
    const context = resolve(root, 'docs/sweeps', worker.build!.context);
    expect(context).toBe(resolve(root));
    expect(existsSync(join(context, worker.build!.dockerfile))).toBe(true);
    expect(worker.command?.[0]).toBe('worker');
  });

  it('the Dockerfile installs the workspace with npm ci and runs the CLI it built', () => {
    const lines = read('docs/sweeps/Dockerfile').split('\n');
    expect(lines).toContain('COPY . .');
    expect(lines).toContain('RUN npm ci --no-audit --no-fund');
    const entry = JSON.parse(lines.find((l) => l.startsWith('ENTRYPOINT '))!.slice('ENTRYPOINT '.length)) as string[];
    expect(entry[1]).toBe('/fleet/packages/cli/bin/fleet.js');
    expect(existsSync(join(root, 'packages/cli/bin/fleet.js'))).toBe(true);
    // What the build makes is ignored; the sources it needs are not.
    const ignored = read('.dockerignore').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
    expect(ignored).not.toContain('packages');
  });

  it('no doc installs a Fleet package from the registry by name', () => {
    const docs = [
      'README.md',
      ...readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
      'docs/sweeps/compose.yaml',
      'docs/sweeps/worker-deployment.yaml',
    ];
    for (const d of docs) expect(read(d), d).not.toMatch(/npm install( -g)? @fleet\//);
  });
});
