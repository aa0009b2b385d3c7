import { itRejectsUsage, run } from './helpers.js';
import { describe, expect, it } from 'vitest';

const small = ['--seq', '8192', '--heads', '16', '--batch', '1'];
const CONTRACT = ['backend', 'mapping', 'heads', 'kvHeads', 'seq', 'batch', 'headDim', 'l2HitRate', 'timeMs'];

describe('fleet attention', () => {
  for (const backend of ['mi300x', 'mi350', 'h100']) {
    it(`prints the JSON contract on ${backend}`, async () => {
      const r = await run(['attention', '--json', '--backend', backend, ...small]);
      expect(r.code).toBe(0);
      const j = JSON.parse(r.out);
      expect(j.schemaVersion).toBe(1);
      expect(j.results.map((x: { mapping: string }) => x.mapping)).toEqual([
        'naive-block-first',
        'swizzled-block-first',
        'naive-head-first',
        'swizzled-head-first',
      ]);
      for (const row of j.results) {
        for (const k of CONTRACT) expect(row).toHaveProperty(k);
        expect(row.backend).toBe(backend);
        expect(row.l2HitRate).toBeGreaterThan(0);
        expect(row.l2HitRate).toBeLessThanOrEqual(1);
        expect(row.timeMs).toBeGreaterThan(0);
        expect(row.sampled.note.length).toBeGreaterThan(10);
      }
      expect(j.results.find((x: { mapping: string }) => x.mapping === 'swizzled-head-first').relativeThroughput).toBe(1);
      expect(j.sampling.note).toMatch(/Sampling/);
    });
  }

  it('defaults to MI300X, takes a mapping subset, GQA and the backward pass', async () => {
    const r = await run([
      'attention',
      '--json',
      '--mapping',
      'naive-block-first,swizzled-block-first',
      '--kv-heads',
      '8',
      '--heads',
      '32',
      '--seq',
      '8192',
      '--pass',
      'bwd',
    ]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.backend).toBe('mi300x');
    expect(j.results).toHaveLength(2);
    expect(j.results[0]).toMatchObject({ heads: 32, kvHeads: 8, pass: 'bwd' });
  });

  it('prints a table with the sampling note', async () => {
    const r = await run(['attention', ...small, '--head-dim', '64']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/swizzled-head-first\s+\d+\.\d%/);
    expect(r.out).toMatch(/time\/SHF/);
    expect(r.out).toMatch(/Sampling:/);
  });

  it('gives byte-identical output for the same input', async () => {
    const a = await run(['attention', '--json', ...small]);
    const b = await run(['attention', '--json', ...small]);
    expect(a.out).toBe(b.out);
  });
});

describe('fleet attention: bad input is one line on stderr, exit code 2', () => {
  const cases: [string, string[], RegExp][] = [
    ['unknown mapping', ['attention', '--mapping', 'diagonal'], /--mapping: unknown mapping 'diagonal'.*swizzled-head-first/],
    ['kv heads not dividing heads', ['attention', '--heads', '12', '--kv-heads', '8'], /--kv-heads: 8 does not divide --heads 12/],
    ['zero sequence', ['attention', '--seq', '0'], /--seq: '0'/],
    ['non-numeric heads', ['attention', '--heads', 'many'], /--heads: 'many'/],
    ['unknown backend', ['attention', '--backend', 'tpu9'], /unknown backend 'tpu9'/],
    ['unknown pass', ['attention', '--pass', 'sideways'], /sideways/],
  ];
  itRejectsUsage(cases);
});
