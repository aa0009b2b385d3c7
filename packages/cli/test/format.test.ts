import { run } from './helpers.js';
import { describe, expect, it } from 'vitest';
import { COMPARE_FORMATS, csvField, formatCsv, formatMarkdown, formatTable, RAW_FIELDS } from '../src/format/index.js';
import type { CompareRow } from '../src/index.js';

/** The job columns of both rows: fleet-mtile decoding 16 tokens after 64 at batch 8. */
const decodeJob = (backend: string) =>
  ({ backend, policy: 'fleet-mtile', phase: 'decode', batch: 8, promptTokens: 64, decodeTokens: 16, weights: 'bf16' }) as const;

const rows: CompareRow[] = [
  {
    ...decodeJob('mi350'),
    status: 'ok',
    tpotMs: 6.1234,
    l2HitRate: 0.3456,
    hbmReadBytes: 15_170_000_000,
    fabricReadBytes: 21_380_000_000,
    hbmWriteBytes: 1_400_000,
    tasksPerLayer: 112,
    fencesPerToken: 1908,
    dispatchesPerToken: 1908,
    launchesPerToken: 36,
  },
  {
    ...decodeJob('h100'),
    status: 'unsupported',
    reason: 'needs a "private" L2, per die | not a cluster\nsee docs',
  },
];

/** RFC 4180 reader: enough to check what the writer wrote. */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      out.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return out;
}

describe('CSV', () => {
  it('quotes only what needs quoting', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField(undefined)).toBe('');
    expect(csvField(NaN)).toBe('');
    expect(csvField(0.25)).toBe('0.25');
  });

  it('round-trips every field, raw, with the model first', () => {
    const parsed = parseCsv(formatCsv('qwen3-8b', rows));
    expect(parsed[0]).toEqual(['model', ...RAW_FIELDS]);
    expect(parsed).toHaveLength(1 + rows.length);
    for (const [i, r] of rows.entries()) {
      const rec = Object.fromEntries(parsed[0]!.map((k, j) => [k, parsed[i + 1]![j]]));
      expect(rec.model).toBe('qwen3-8b');
      for (const k of RAW_FIELDS) expect(rec[k]).toBe(r[k] === undefined ? '' : String(r[k]));
    }
  });
});

describe('Markdown', () => {
  it('one header, an alignment row, one line per row, pipes escaped, numbers right-aligned', () => {
    const lines = formatMarkdown(rows).split('\n');
    expect(lines).toHaveLength(2 + rows.length);
    const cells = (l: string) => l.replace(/\\\|/g, '').split('|').length;
    for (const l of lines) expect(cells(l)).toBe(cells(lines[0]!));
    expect(lines[1]).toMatch(/^\| --- \| --- \|( ---: \|){7} --- \|$/);
    expect(lines[3]).toContain('\\|');
    expect(lines[3]).not.toContain('\n');
    expect(lines[2]).toContain('| 6.123 | 34.6% | 15.17 | 21.38 | 1.4 | 112 |');
  });
});

describe('text table', () => {
  it('right-aligns numbers into columns', () => {
    const lines = formatTable(rows).split('\n');
    const tpotEnd = lines[0]!.indexOf('TPOT ms') + 'TPOT ms'.length;
    expect(lines[2]!.slice(0, tpotEnd)).toMatch(/6\.123$/);
    expect(lines[3]!.slice(0, tpotEnd)).toMatch(/-$/);
    expect(lines[3]).toContain('unsupported: needs');
  });
});

describe('fleet compare --format', () => {
  const args = ['compare', '--batch', '1', '--backends', 'mi300x', '--policies', 'mirage', '--sample-layers', '1', '--decode', '16'];

  it('offers table, json, csv and markdown', () => {
    expect([...COMPARE_FORMATS]).toEqual(['table', 'json', 'csv', 'markdown']);
  });

  it('csv and markdown carry the same numbers as --json', async () => {
    const [json, csv, md, viaFormat] = await Promise.all([
      run([...args, '--json']),
      run([...args, '--format', 'csv']),
      run([...args, '--format', 'markdown']),
      run([...args, '--format', 'json']),
    ]);
    for (const r of [json, csv, md, viaFormat]) expect(r.code).toBe(0);
    expect(viaFormat.out).toBe(json.out);
    const results: CompareRow[] = JSON.parse(json.out).results;
    const parsed = parseCsv(csv.out);
    expect(parsed.slice(1).map((r) => Number(r[parsed[0]!.indexOf('tpotMs')]))).toEqual(results.map((r) => r.tpotMs));
    for (const r of results) expect(md.out).toContain(`| ${r.backend} | ${r.policy} | ${r.batch} | ${r.tpotMs!.toFixed(3)} |`);
  }, 60_000);

  it('rejects an unknown format with exit code 2', async () => {
    const r = await run([...args, '--format', 'xml']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/xml/);
  });
});
