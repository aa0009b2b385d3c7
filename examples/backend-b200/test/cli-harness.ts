/**
 * Runs the `fleet` command in-process in throwaway project directories, to check the backend
 * the way a user meets it: listed in `fleet.config.json`, or installed under node_modules.
 */
import { main } from '@fleet/cli';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** This package's folder, and what `fleet.entry` points at. */
export const exampleDir = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
export const exampleName = '@fleet-examples/backend-b200';
const entry = join(exampleDir, 'dist', 'index.js');

/** The CLI loads the built entry, as an installed package would be loaded. */
export function assertBuilt(): void {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build first (npm run build)`);
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export async function fleet(cwd: string, args: string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), errIsTty: false, cwd });
  return { code, out, err };
}

/** Temporary directories for projects and hand-made backend packages; `dispose()` removes them. */
export class Sandbox {
  readonly root = mkdtempSync(join(tmpdir(), 'fleet-b200-'));
  private n = 0;

  /** A project directory whose `fleet.config.json` lists `backends` (paths or package names). */
  project(backends?: string[]): string {
    const dir = join(this.root, `project-${this.n++}`);
    mkdirSync(dir);
    if (backends) writeFileSync(join(dir, 'fleet.config.json'), JSON.stringify({ backends }));
    return dir;
  }

  /** Install `pkgDir` into `project`'s node_modules the way npm links a workspace or a folder. */
  link(project: string, name: string, pkgDir: string): void {
    const at = join(project, 'node_modules', ...name.split('/'));
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(pkgDir, at, 'dir');
  }

  /**
   * A backend package `name` whose entry is `source` (ESM). `source` may import `$CORE` (the
   * `@fleet/core` this CLI uses) and `$B200` (this package's built entry) by those names.
   */
  backendPackage(name: string, source: string, fleetField: Record<string, unknown> = {}): string {
    const dir = join(this.root, `${this.n++}-${name.replace(/[@/]/g, '_')}`);
    mkdirSync(dir);
    const field = { kind: 'backend', apiVersion: '2.0', entry: './index.js', ...fleetField };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0', type: 'module', fleet: field }));
    writeFileSync(join(dir, 'index.js'), source.replaceAll('$CORE', JSON.stringify(coreUrl)).replaceAll('$B200', JSON.stringify(pathToFileURL(entry).href)));
    return dir;
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The `@fleet/core` entry this package (and the CLI beside it) resolves: one copy for everyone. */
const coreUrl = pathToFileURL(createRequire(import.meta.url).resolve('@fleet/core')).href;

/**
 * Each mistake of the guide's troubleshooting section as a real project: the `fleet backends`
 * result a user gets. Keys are the ids the guide uses (`<!-- error: id -->`).
 */
export const mistakes: Record<string, (s: Sandbox) => Promise<CliResult>> = {
  'api-version': (s) => fleet(s.project([s.backendPackage('@acme/backend-b200-next', 'export { default } from $B200;', { apiVersion: '3.0' })]), ['backends']),
  'topology-schema': (s) =>
    fleet(
      s.project([
        s.backendPackage(
          '@acme/backend-b200-typo',
          `import { ContainerModule, RooflineCostModel, TOKENS, defineBackend } from $CORE;
           import { topology, params, tuning } from $B200;
           const l2 = { ...topology.memory.l2, organisation: 'split' };
           const typo = { ...topology, memory: { ...topology.memory, l2 } };
           export default defineBackend({ name: 'b200', apiVersion: '2.0', module: new ContainerModule(({ bind }) => {
             bind(TOKENS.Topology).toConstantValue(typo);
             bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(topology, params));
             bind(TOKENS.Tuning).toConstantValue(tuning);
           }) });`,
        ),
      ]),
      ['backends'],
    ),
  'missing-binding': (s) =>
    fleet(
      s.project([
        s.backendPackage(
          '@acme/backend-b200-no-cost',
          `import { ContainerModule, TOKENS, defineBackend } from $CORE;
           import { topology, tuning } from $B200;
           export default defineBackend({ name: 'b200', apiVersion: '2.0', module: new ContainerModule(({ bind }) => {
             bind(TOKENS.Topology).toConstantValue(topology);
             bind(TOKENS.Tuning).toConstantValue(tuning);
           }) });`,
        ),
      ]),
      ['backends'],
    ),
  'duplicate-name': (s) => fleet(s.project([exampleDir, s.backendPackage('@acme/backend-b200-copy', 'export { default } from $B200;')]), ['backends']),
};
