/** Sweeps keep every field, count a spec before building it, vary parallelism, and report unwritable output as bad input. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RAW_FIELDS, sweepCsvColumns } from '../src/index.js';
import { run, writeTinyModel } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'fleet-sweep-limits-'));
const model = writeTinyModel(dir);
const small = { model: [model], backends: ['h100'], policies: ['kernel-per-op'], batch: [1], sampleLayers: 1, decode: 8 };

describe('fleet sweep output and limits', () => {
  it('CSV carries every field of the JSON row (ttftMs, tokensPerSecond, stepMs, tp, perDeviceBytes, layersExtrapolated, weights)', async () => {
    const cols = sweepCsvColumns();
    for (const f of RAW_FIELDS) expect(cols, f).toContain(f);
    writeFileSync(join(dir, 'prefill.json'), JSON.stringify({ ...small, phase: 'prefill', prompt: 32 }));
    const r = await run(['sweep', 'prefill.json', '--out', 'p.csv', '--workers', '1'], dir);
    expect(r.code, r.err).toBe(0);
    const [head, line] = readFileSync(join(dir, 'p.csv'), 'utf8').split('\r\n');
    const h = head!.split(',');
    const v = line!.split(',');
    expect(Number(v[h.indexOf('ttftMs')])).toBeGreaterThan(0);
    expect(Number(v[h.indexOf('tokensPerSecond')])).toBeGreaterThan(0);
    expect(v[h.indexOf('weights')]).toBe('bf16');
    expect(v[h.indexOf('tp')]).toBe('1');
    expect(v[h.indexOf('layersExtrapolated')]).toMatch(/^(none|proven|assumed)$/);
    expect(Number(v[h.indexOf('perDeviceBytes')])).toBeGreaterThan(0);
  });

  it('refuses a spec of millions of configurations before building it, naming the count and the flag', async () => {
    const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    writeFileSync(join(dir, 'huge.json'), JSON.stringify({ ...small, batch: range(4096), prompt: range(3200).map((x) => x * 10) }));
    const r = await run(['sweep', 'huge.json', '--out', 'h.jsonl'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/13,107,200 configurations .*--max-jobs/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    // The limit is the user's to raise.
    writeFileSync(join(dir, 'two.json'), JSON.stringify({ ...small, batch: [1, 2] }));
    const low = await run(['sweep', 'two.json', '--out', 't.jsonl', '--max-jobs', '1'], dir);
    expect(low.code).toBe(2);
    expect(low.err).toMatch(/2 configurations .* limit of 1/);
  });

  it('varies tensor parallelism and routing', async () => {
    writeFileSync(join(dir, 'tp.json'), JSON.stringify({ ...small, model: ['llama3-8b'], tp: [1, 2], routing: [null] }));
    const r = await run(['sweep', 'tp.json', '--out', 'tp.jsonl', '--workers', '1'], dir);
    expect(r.code, r.err).toBe(0);
    const lines = readFileSync(join(dir, 'tp.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { tp: number; status: string; perDeviceBytes: number });
    expect(lines.map((l) => l.tp)).toEqual([1, 2]);
    expect(lines.every((l) => l.status === 'ok')).toBe(true);
    expect(lines[1]!.perDeviceBytes).toBeLessThan(lines[0]!.perDeviceBytes);
  });

  it('a missing or unwritable --out is bad input (exit 2) naming the flag, for sweep and report', async () => {
    writeFileSync(join(dir, 'one.json'), JSON.stringify(small));
    const s = await run(['sweep', 'one.json', '--out', 'no-such-folder/out.jsonl'], dir);
    expect(s.code).toBe(2);
    expect(s.err).toMatch(/^fleet: --out: cannot write .*no-such-folder.*: its folder does not exist\n$/);
    writeFileSync(join(dir, 'a-file'), '');
    const rep = await run(
      [
        'report',
        '--model',
        join(dir, model),
        '--backends',
        'h100',
        '--policies',
        'kernel-per-op',
        '--batch',
        '1',
        '--sample-layers',
        '1',
        '--decode',
        '8',
        '--out',
        'a-file/report',
      ],
      dir,
    );
    expect(rep.code).toBe(2);
    expect(rep.err).toMatch(/^fleet: --out: cannot write .*a-file.*\n$/);
  });
});
