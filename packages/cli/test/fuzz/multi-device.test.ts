/**
 * Fuzzing of the multi-device flags: `--tp`, `--ep` (compare), `--devices`/`--mode`
 * (collective), `--tp` (verify, trace). Bad values exit 2 with one stderr line naming the
 * flag; valid ones give exactly the rows asked for.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cheapCompare, run as runFleet, writeTinyModel } from '../helpers.js';

const SEED = process.env.FLEET_FUZZ_SEED === undefined ? 0x5eed : Number(process.env.FLEET_FUZZ_SEED);
const fuzz = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });
vi.setConfig({ testTimeout: 120_000 });

const cwd = mkdtempSync(join(tmpdir(), 'fleet-tp-fuzz-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const run = (args: string[]) => runFleet(args, cwd);

function expectRejected(r: { code: number; out: string; err: string }, args: string[], flag: string): void {
  const what = JSON.stringify(args);
  expect(r.code, `${what}: ${r.err}`).toBe(2);
  expect(r.out).toBe('');
  const lines = r.err.replace(/\n$/, '').split('\n');
  expect(lines.length, `${what}: one line`).toBeLessThanOrEqual(2);
  expect(lines[0]).toContain(flag);
  expect(r.err).not.toMatch(/\bat .*:\d+:\d+/);
}

const tinyConfig = join(cwd, writeTinyModel(cwd));
const CHEAP = cheapCompare(tinyConfig);
const bad = fc.oneof(
  fc.constantFrom('0', '-1', '1.5', 'NaN', 'Infinity', '', 'two', '3', '6', '128', '1e3', '2,2'),
  fc.integer({ min: 65, max: 2 ** 40 }).map(String),
);

describe('argument fuzzing: multi-device flags', () => {
  it('a bad --tp list is refused naming --tp', async () => {
    await fc.assert(
      fc.asyncProperty(bad, async (v) => {
        const args = ['compare', ...CHEAP, '--tp', v];
        expectRejected(await run(args), args, '--tp');
      }),
      fuzz(20),
    );
  });

  it('a bad --ep is refused naming --ep', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('0', '-2', 'x', '1.5', '65'), async (v) => {
        const args = ['compare', ...CHEAP, '--ep', v];
        expectRejected(await run(args), args, '--ep');
      }),
      fuzz(5),
    );
  });

  it('bad --devices and --mode of a device collective are refused naming the flag', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(['--devices', '0']), fc.constant(['--devices', '9']), fc.constant(['--devices', 'x']), fc.constant(['--mode', 'lazy'])),
        async (flag) => {
          const args = ['collective', '--backend', 'h100', '--op', 'all-reduce', '--bytes', '8K', ...flag];
          expectRejected(await run(args), args, flag[0]!);
        },
      ),
      fuzz(4),
    );
  });

  it('a --tp the model cannot split is refused by verify, naming --tp', async () => {
    for (const v of ['3', '8', '0']) {
      const args = ['verify', '--tp', v];
      expectRejected(await run(args), args, '--tp');
    }
  });

  it('valid --tp lists give one row per (tp, batch), each carrying tp, ep and devices', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.constantFrom(1, 2, 4, 8), { minLength: 1, maxLength: 3 }), async (tps) => {
        const r = await run(['compare', ...CHEAP, '--json', '--tp', tps.join(',')]);
        expect(r.code, r.err).toBe(0);
        const rows = (JSON.parse(r.out) as { results: Array<{ tp: number; ep: number; devices: number; status: string }> }).results;
        expect(rows.map((x) => x.tp)).toEqual(tps);
        for (const x of rows) expect([x.ep, x.devices]).toEqual([1, x.tp]);
      }),
      fuzz(4),
    );
  });
});
