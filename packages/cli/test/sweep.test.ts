import { mkdtempSync, readFileSync, writeFileSync, appendFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBackends } from '../src/backends.js';
import { expandSweep, jobId, SWEEP_AXES, sweepCsvColumns } from '../src/index.js';
import { run, sortedLines, writeTinyModel } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'fleet-sweep-'));
const model = writeTinyModel(dir);
/** 2 models × 2 backends × 2 policies × 2 batch sizes × 2 weight types = 32 jobs, each milliseconds. */
const spec = {
  model: [model, 'llama2-7b'],
  backends: ['mi350', 'h100'],
  policies: ['kernel-per-op', 'fleet-mtile'],
  batch: [1, 4],
  weights: ['bf16', 'u4g128'],
  sampleLayers: 1,
  decode: 8,
};
const JOBS = 32;
writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
writeFileSync(
  join(dir, 'spec.yaml'),
  `# the same spec as spec.json\nmodel: [${model}, llama2-7b]\nbackends: [mi350, h100]\npolicies:\n  - kernel-per-op\n  - fleet-mtile\nbatch: [1, 4]\nweights: [bf16, u4g128]\nsampleLayers: 1\ndecode: 8\n`,
);

describe('fleet sweep (local)', () => {
  let first: { code: number; out: string; err: string };
  let text: string;
  beforeAll(async () => {
    first = await run(['sweep', 'spec.json', '--out', 'a.jsonl', '--workers', '1', '--json'], dir);
    text = readFileSync(join(dir, 'a.jsonl'), 'utf8');
  });

  it('writes one line per configuration: id, the compare contract, the parameters', () => {
    expect(first.code, first.err).toBe(0);
    const summary = JSON.parse(first.out);
    expect(summary).toMatchObject({ jobs: JOBS, ran: JOBS, skipped: 0, failed: 0, format: 'jsonl' });
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(JOBS);
    expect(new Set(lines.map((l) => l.id)).size).toBe(JOBS);
    const ok = lines.find((l) => l.backend === 'mi350' && l.policy === 'fleet-mtile' && l.batch === 4 && l.weights === 'u4g128' && l.model === 'llama2-7b');
    expect(ok).toMatchObject({ status: 'ok', promptTokens: 64, decodeTokens: 8, sampleLayers: 1, positions: 1, weightCache: null });
    for (const k of ['tpotMs', 'l2HitRate', 'hbmReadBytes', 'hbmWriteBytes', 'tasksPerLayer']) expect(typeof ok[k]).toBe('number');
    expect(lines.find((l) => l.backend === 'h100' && l.policy === 'fleet-mtile')).toMatchObject({ status: 'unsupported' });
    // Lines are in the spec's order: model, then backend, policy, batch, ..., weights.
    expect(lines.slice(0, 4).map((l) => [l.model, l.backend, l.policy, l.batch, l.weights])).toEqual([
      [model, 'mi350', 'kernel-per-op', 1, 'bf16'],
      [model, 'mi350', 'kernel-per-op', 1, 'u4g128'],
      [model, 'mi350', 'kernel-per-op', 4, 'bf16'],
      [model, 'mi350', 'kernel-per-op', 4, 'u4g128'],
    ]);
  });

  it('matches `fleet compare --json` for the same configuration', async () => {
    const c = await run(
      [
        'compare',
        '--json',
        '--model',
        'llama2-7b',
        '--backends',
        'mi350',
        '--policies',
        'fleet-mtile',
        '--batch',
        '4',
        '--weights',
        'u4g128',
        '--sample-layers',
        '1',
        '--decode',
        '8',
      ],
      dir,
    );
    const row = JSON.parse(c.out).results[0];
    const line = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.model === 'llama2-7b' && l.backend === 'mi350' && l.policy === 'fleet-mtile' && l.batch === 4 && l.weights === 'u4g128');
    expect(line).toMatchObject(row);
  });

  it('gives the same bytes from YAML, and on worker threads', async () => {
    const y = await run(['sweep', 'spec.yaml', '--out', 'b.jsonl', '--workers', '2'], dir);
    expect(y.code, y.err).toBe(0);
    expect(readFileSync(join(dir, 'b.jsonl'), 'utf8')).toBe(text);
  });

  it('resumes: a rerun skips what the file holds, even with a torn last line', async () => {
    const lines = text.trimEnd().split('\n');
    writeFileSync(join(dir, 'c.jsonl'), `${lines.slice(0, 10).join('\n')}\n${lines[10]!.slice(0, 25)}`);
    const r = await run(['sweep', 'spec.json', '--out', 'c.jsonl', '--workers', '1', '--json'], dir);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ jobs: JOBS, skipped: 10, ran: JOBS - 10 });
    expect(readFileSync(join(dir, 'c.jsonl'), 'utf8')).toBe(text);
    const again = await run(['sweep', 'spec.json', '--out', 'c.jsonl', '--json'], dir);
    expect(JSON.parse(again.out)).toMatchObject({ skipped: JOBS, ran: 0 });
    expect(readFileSync(join(dir, 'c.jsonl'), 'utf8')).toBe(text);
  });

  it('keeps results of jobs the spec no longer lists, after its own', async () => {
    writeFileSync(join(dir, 'd.jsonl'), text);
    writeFileSync(join(dir, 'narrow.json'), JSON.stringify({ ...spec, model: ['llama2-7b'] }));
    const r = await run(['sweep', 'narrow.json', '--out', 'd.jsonl', '--json'], dir);
    expect(JSON.parse(r.out)).toMatchObject({ jobs: JOBS / 2, skipped: JOBS / 2, ran: 0 });
    expect(sortedLines(readFileSync(join(dir, 'd.jsonl'), 'utf8'))).toEqual(sortedLines(text));
  });

  it('writes CSV with --format csv (and resumes from it)', async () => {
    const r = await run(['sweep', 'spec.json', '--out', 'e.csv', '--format', 'csv', '--workers', '1'], dir);
    expect(r.code, r.err).toBe(0);
    const csv = readFileSync(join(dir, 'e.csv'), 'utf8');
    const rows = csv.trimEnd().split('\r\n');
    expect(rows[0]).toBe(sweepCsvColumns().join(','));
    expect(rows).toHaveLength(JOBS + 1);
    const ids = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(rows.slice(1).map((r) => r.split(',')[0])).toEqual(ids);
    // A reason holds commas: it is quoted, and reading the file back still finds every job.
    expect(csv).toMatch(/,unsupported,"[^"]*,/);
    appendFileSync(join(dir, 'e.csv'), 'deadbeef,trunc');
    const again = await run(['sweep', 'spec.json', '--out', 'e.csv', '--json'], dir);
    expect(JSON.parse(again.out)).toMatchObject({ skipped: JOBS, ran: 0 });
    expect(readFileSync(join(dir, 'e.csv'), 'utf8')).toBe(csv);
  });

  it('refuses an output file that is not a sweep’s', async () => {
    writeFileSync(join(dir, 'other.jsonl'), '{"a":1}\n');
    const r = await run(['sweep', 'spec.json', '--out', 'other.jsonl'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^fleet: --out: .*other\.jsonl is not a fleet sweep output/);
    expect(readFileSync(join(dir, 'other.jsonl'), 'utf8')).toBe('{"a":1}\n');
  });

  it('reports a job that fails (bad input) once, keeps the others, exits 2', async () => {
    writeFileSync(
      join(dir, 'tight.json'),
      JSON.stringify({ model: ['llama2-7b'], backends: ['mi350'], policies: ['mirage'], batch: [1], sampleLayers: [1, 3], maxSimSteps: [20000] }),
    );
    const r = await run(['sweep', 'tight.json', '--out', 'f.jsonl', '--workers', '1', '--json'], dir);
    expect(r.code).toBe(2);
    // The first line says how much work there is; then one line per failed job.
    const [count, ...failed] = r.err.trimEnd().split('\n');
    expect(count).toBe('fleet: 2 configurations, 0 already in f.jsonl, 2 to run');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/^fleet: job [0-9a-f]{16} \(llama2-7b mi350 mirage b1\) failed: simulation too large/);
    expect(JSON.parse(r.out)).toMatchObject({ jobs: 2, ran: 1, failed: 1 });
    expect(readFileSync(join(dir, 'f.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(1);
  });

  it('job ids depend only on the parameters (not on the other jobs or the order)', async () => {
    const registry = await loadBackends(dir);
    const a = expandSweep(spec, registry, 'a', dir).jobs;
    const b = expandSweep({ ...spec, batch: [4, 1, 2] }, registry, 'b', dir).jobs;
    const idsA = new Map(a.map((j) => [JSON.stringify(j.params), j.id]));
    for (const j of b) if (idsA.has(JSON.stringify(j.params))) expect(j.id).toBe(idsA.get(JSON.stringify(j.params)));
    expect(b).toHaveLength(48);
    expect(a.map((j) => j.id)).toEqual(a.map((j) => jobId(j.params)));
    // An override that is not set does not enter the id: a new axis whose null means "as before" keeps old ids.
    const over = expandSweep({ ...spec, weightCache: [null, 'streaming'] }, registry, 'c', dir).jobs;
    expect(over.filter((j) => j.params.weightCache === null).map((j) => j.id)).toEqual(a.map((j) => j.id));
    expect(SWEEP_AXES.map((x) => x.specKey)).toContain('prompt');
  });

  it('fleet report --from draws the results', async () => {
    const r = await run(['report', '--from', 'a.jsonl', '--model', 'llama2-7b', '--out', 'rep', '--json'], dir);
    expect(r.code, r.err).toBe(0);
    const files: string[] = JSON.parse(r.out).files;
    expect(files).toContain('charts/tpot-vs-batch.svg');
    expect(files).not.toContain('charts/time-breakdown.svg');
    const points = JSON.parse(readFileSync(join(dir, 'rep', 'charts', 'tpot-vs-batch.vl.json'), 'utf8')).data.values;
    // Weights vary across the file, so they split the series.
    expect(new Set(points.map((p: { series: string }) => p.series))).toEqual(
      new Set([
        'mi350 · kernel-per-op · weights bf16',
        'mi350 · kernel-per-op · weights u4g128',
        'mi350 · fleet-mtile · weights bf16',
        'mi350 · fleet-mtile · weights u4g128',
        'h100 · kernel-per-op · weights bf16',
        'h100 · kernel-per-op · weights u4g128',
      ]),
    );
    expect(points).toHaveLength(12);
    const many = await run(['report', '--from', 'a.jsonl', '--out', 'rep2'], dir);
    expect(many.code).toBe(2);
    expect(many.err).toMatch(/holds results for 2 models .*choose one with --model/);
    expect(existsSync(join(dir, 'rep2')) ? readdirSync(join(dir, 'rep2')) : []).toEqual([]);
  });
});
