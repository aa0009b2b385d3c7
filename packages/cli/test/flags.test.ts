import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FleetError } from '@fleet/core';
import { buildProgram, FLAG_OF_FIELD, main, withFlags, type Io } from '../src/index.js';

async function run(args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const io: Io = { out: () => {}, err: (s) => (err += s), errIsTty: false };
  const code = await main(args, io);
  return { code, err };
}

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('library option fields as CLI flags', () => {
  it('rewrites each quoted field the table knows, and leaves the rest of the message alone', () => {
    expect(withFlags('simulation too large: a 512-token chunk; raise it with `maxSimSteps`, use `chunk`, or simulate fewer layers with `layers`')).toBe(
      'simulation too large: a 512-token chunk; raise it with --max-sim-steps, use --chunk, or simulate fewer layers with --sample-layers',
    );
    expect(withFlags('`kvHeads`: 3 does not divide `heads` 8')).toBe('--kv-heads: 3 does not divide --heads 8');
    expect(withFlags('`toString` and `somethingElse` stay quoted')).toBe('`toString` and `somethingElse` stay quoted');
  });

  it('every flag in the table is a flag of some command', () => {
    const flags = new Set(buildProgram().commands.flatMap((c) => c.options.map((o) => o.long)));
    for (const flag of Object.values(FLAG_OF_FIELD)) expect(flags, flag).toContain(flag);
  });

  it('every option field that a library message quotes has a flag', () => {
    const quoted = new Set<string>();
    for (const pkg of ['core', 'ops', 'numerics', 'functional', 'attention-study']) {
      for (const file of sources(join(__dirname, '..', '..', pkg, 'src'))) {
        for (const line of readFileSync(file, 'utf8').split('\n')) {
          // Messages are template literals (a quoted field is an escaped backtick pair) or a default label.
          if (!/\\`|field = /.test(line)) continue;
          // \`tp\` inside a template literal, or '`weights`' as a default label
          for (const m of line.matchAll(/\\`([A-Za-z][A-Za-z0-9]*)\\`|'`([A-Za-z][A-Za-z0-9]*)`'/g)) quoted.add((m[1] ?? m[2])!);
        }
      }
    }
    expect([...quoted].sort()).toEqual(expect.arrayContaining(['chunk', 'devices', 'maxSimSteps', 'routing', 'tp', 'weights']));
    for (const field of quoted) expect(FLAG_OF_FIELD, field).toHaveProperty(field);
  });

  it('bad input printed by the CLI names the flag, whatever field the library named', async () => {
    const cheap = ['compare', '--backends', 'mi300x', '--policies', 'kernel-per-op', '--batch', '1', '--sample-layers', '1'];
    const tooLarge = await run([...cheap, '--max-sim-steps', '10']);
    expect(tooLarge.code).toBe(2);
    expect(tooLarge.err).toMatch(/^fleet: simulation too large: .*raise it with --max-sim-steps or simulate fewer layers with --sample-layers\n$/);
    const heads = await run(['attention', '--heads', '8', '--kv-heads', '3']);
    expect([heads.code, heads.err]).toEqual([2, 'fleet: --kv-heads: 3 does not divide --heads 8\n']);
    const tp = await run(['verify', '--tp', '3']);
    expect([tp.code, tp.err]).toEqual([2, 'fleet: --tp: 4 attention heads do not split over tp 3 (model tiny)\n']);
  });

  it('keeps the structured field for TypeScript callers', () => {
    expect(new FleetError('`tp` must be an integer', 2, 'tp').field).toBe('tp');
  });
});
