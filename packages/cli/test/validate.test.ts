import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main, type Io } from '../src/index.js';
import { run } from './helpers.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

describe('fleet validate', () => {
  it('rejects an unknown suite with the list of suites', async () => {
    let err = '';
    const io: Io = { out: () => {}, err: (s) => (err += s), errIsTty: false };
    expect(await main(['validate', '--suite', 'nope'], io)).toBe(2);
    expect(err).toMatch(/unknown suite 'nope' \(known: fleet-mi350/);
  });

  describe('a suite with a miss', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-validate-'));
    writeFileSync(join(dir, 'fleet.config.json'), JSON.stringify({ backends: [join(fixtures, 'extension-suite')] }));

    it('says on stderr which suite runs and its summary; prints readable lines with MAPE and the worst row', async () => {
      const r = await run(['validate', '--suite', 'toy-suite'], dir);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe(
        'fleet: validating toy-suite (2 points)\nfleet: toy-suite: 1 of 2 within tolerance; MAPE 15.0% (2 predicted); worst: +25.0% (±10) a point that misses by a quarter, with a long description…\n',
      );
      const lines = r.out.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^toy-suite: 1 of 2 within tolerance; MAPE 15\.0% \(2 predicted\); worst: \+25\.0%/);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(140);
      expect(lines.at(-1)).toBe('1 of 2 within tolerance (1 missed; --strict exits 1 when any point misses).');
    });

    it('--strict exits 1 when a point misses (the documented status); without it, 0', async () => {
      expect((await run(['validate', '--suite', 'toy-suite', '--strict'], dir)).code).toBe(1);
      expect((await run(['validate', '--suite', 'toy-suite', '--json'], dir)).code).toBe(0);
    });
  });
});
