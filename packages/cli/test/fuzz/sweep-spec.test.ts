/**
 * Fuzzing sweep specs: any JSON value as a spec, or as one of its lists' values, must either
 * expand into jobs or be refused with one line naming the field — never a stack trace, a
 * hang or another error type. Valid specs must expand into the full cartesian product.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { FleetError, type BackendRegistry } from '@fleet/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBackends } from '../../src/backends.js';
import { expandSweep, SWEEP_AXES } from '../../src/index.js';
import { run } from '../helpers.js';

// Keys with control characters are clipped in the message; the test wants them whole.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters it looks for
const CONTROL = /[\u0000-\u001f\u007f]/;

const SEED = process.env.FLEET_FUZZ_SEED === undefined ? 0x5eed : Number(process.env.FLEET_FUZZ_SEED);
const fuzz = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });
const cwd = mkdtempSync(join(tmpdir(), 'fleet-spec-fuzz-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const KEYS = SWEEP_AXES.map((a) => a.specKey);
let registry: BackendRegistry;
beforeAll(async () => {
  registry = await loadBackends(cwd);
});

/** Expand, or the one-line refusal; anything else fails the test. */
function tryExpand(spec: unknown): { jobs: number } | { error: string } {
  try {
    return { jobs: expandSweep(spec, registry, 'spec.yaml', cwd).jobs.length };
  } catch (e) {
    expect(e, `${JSON.stringify(spec)}: error type`).toBeInstanceOf(FleetError);
    const err = e as FleetError;
    expect(err.exitCode).toBe(2);
    expect(err.message).not.toContain('\n');
    expect(err.message.startsWith('spec.yaml: ')).toBe(true);
    expect(err.message.length).toBeLessThan(600);
    return { error: err.message };
  }
}

describe('sweep spec fuzzing', () => {
  it('any JSON value as the spec: jobs or a one-line error', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => void tryExpand(v)),
      fuzz(150),
    );
  });

  it('a known field with any value: refused errors name that field', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KEYS), fc.jsonValue({ maxDepth: 2 }), (key, value) => {
        const r = tryExpand({ batch: [1], sampleLayers: [1], [key]: value });
        if ('error' in r) expect(r.error, `${key}: ${JSON.stringify(value)}`).toMatch(new RegExp(`^spec\\.yaml: ${key}\\b`));
      }),
      fuzz(120),
    );
  });

  it('an unknown field is named, with the allowed ones', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !KEYS.includes(k) && !CONTROL.test(k)),
        (key) => {
          const r = tryExpand({ [key]: [1] });
          expect('error' in r && r.error).toContain(`unknown field '${key.length > 60 ? '' : key}`);
          expect('error' in r && r.error).toContain('allowed: model, backends, policies, batch');
        },
      ),
      fuzz(100),
    );
  });

  it('valid lists expand into their full product', () => {
    const sub = <T>(xs: readonly T[]) => fc.uniqueArray(fc.constantFrom(...xs), { minLength: 1, maxLength: xs.length });
    fc.assert(
      fc.property(
        sub(['mi350', 'mi300x', 'h100']),
        sub(['mirage', 'fleet-mtile', 'kernel-per-op']),
        fc.uniqueArray(fc.integer({ min: 1, max: 4096 }), { minLength: 1, maxLength: 4 }),
        sub(['bf16', 'u4g128', 'i6g128']),
        sub([null, 'on', 'off']),
        (backends, policies, batch, weights, twoLevel) => {
          const r = tryExpand({ backends, policies, batch, weights, twoLevel });
          expect(r).toEqual({ jobs: backends.length * policies.length * batch.length * weights.length * twoLevel.length });
        },
      ),
      fuzz(100),
    );
  });
});

describe('fleet sweep: bad specs and flags on the command line', () => {
  const cases: [string, string, string[], RegExp][] = [
    ['bad.yaml', 'batch: [1, 0]\n', [], /^fleet: .*bad\.yaml: batch\[1\]: must be an integer in 1\.\.4096 \(got 0\)$/],
    ['bad.json', '{"backends": ["mi350", "b900"]}', [], /backends\[1\]: "b900" is not one of mi350, mi300x, h100/],
    ['bad2.yaml', 'policies: fast\n', [], /policies: "fast" is not one of kernel-per-op, .*clusterfusion/],
    ['bad3.yaml', 'traversal: [zigzag]\n', [], /traversal\[0\]: "zigzag" is not one of m-tile, m-split, n-major, null/],
    ['bad4.yaml', 'batch: [1\n', [], /bad4\.yaml: not valid YAML: /],
    ['bad5.json', '{"batch": [1,}', [], /bad5\.json: not valid JSON: /],
    ['bad6.yaml', 'weights: [u4g100]\n', [], /weights\[0\]: .*'u4g100'.*allowed: 32, 64, 128, 256/],
    ['bad7.yaml', 'model: [./missing.json]\n', [], /model\[0\]: .*missing\.json.*no such file/],
    ['ok.yaml', 'batch: [1]\n', ['--workers', '0'], /^fleet: --workers: '0' is not an integer in 1\.\.1024$/],
    ['ok.yaml', 'batch: [1]\n', ['--format', 'xml'], /--format.*xml.*jsonl, csv/],
    ['ok.yaml', 'batch: [1]\n', ['--queue', 'localhost:6379'], /^fleet: --queue: 'localhost:6379' is not a redis:\/\/ or rediss:\/\/ URL$/],
    ['ok.yaml', 'batch: [1]\n', ['--queue', 'redis://127.0.0.1:1', '--workers', '2'], /--workers: not used with --queue/],
    ['ok.yaml', 'batch: [1]\n', ['--queue-name', 'a b'], /--queue-name: 'a b' must be/],
  ];
  it.each(cases)('%s %j %j', async (file, content, flags, message) => {
    writeFileSync(join(cwd, file), content);
    const r = await run(['sweep', file, '--out', 'out.jsonl', ...flags], cwd);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trimEnd().split('\n'), r.err).toHaveLength(1);
    expect(r.err.trimEnd()).toMatch(message);
    expect(r.err).not.toMatch(/\bat .*:\d+:\d+|internal error/);
  });

  it('fleet worker: bad flags are one line, exit 2', async () => {
    for (const [args, message] of [
      [['worker', '--queue', 'nope'], /--queue: 'nope' is not a URL/],
      [['worker', '--queue', 'redis://127.0.0.1:6379', '--concurrency', 'x'], /--concurrency: 'x' is not an integer/],
      [['worker', '--queue', 'redis://127.0.0.1:6379', '--lock-duration', '5'], /--lock-duration: '5' is not an integer in 100\.\.3600000/],
    ] as const) {
      const r = await run([...args], cwd);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});
