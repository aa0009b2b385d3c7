import { run } from './helpers.js';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { validateTrace, type ChromeTrace, type TraceEvent } from '@fleet/core';
import { beforeAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'fleet-trace-'));
const load = (file: string): ChromeTrace => JSON.parse(file.endsWith('.gz') ? gunzipSync(readFileSync(file)).toString() : readFileSync(file, 'utf8'));
const ofPh = (t: ChromeTrace, ph: TraceEvent['ph']) => t.traceEvents.filter((e) => e.ph === ph);
const names = (t: ChromeTrace, name: string) => t.traceEvents.filter((e) => e.ph === 'M' && e.name === name).map((e) => String(e.args!.name));

describe('fleet trace: a persistent megakernel (mi350, fleet-mtile)', () => {
  const file = join(dir, 'mtile.json');
  let r: { code: number; out: string; err: string };
  let trace: ChromeTrace;
  beforeAll(async () => {
    r = await run(['trace', '--backend', 'mi350', '--policy', 'fleet-mtile', '--batch', '4', '--layers', '0-0', '-o', file]);
    trace = load(file);
  });

  it('writes the file and says how to open it', () => {
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toContain(file);
    expect(r.out).toContain('ui.perfetto.dev');
  });

  it('is a valid Chrome trace: nesting on every track, paired flows, named tracks', () => {
    expect(Array.isArray(trace.traceEvents)).toBe(true);
    expect(validateTrace(trace)).toEqual([]);
  });

  it('one process per XCD plus the device; a track per scheduler and per worker', () => {
    expect(names(trace, 'process_name')).toEqual(['mi350 · fleet-mtile (device)', ...Array.from({ length: 8 }, (_, p) => `xcd ${p}`)]);
    const threads = names(trace, 'thread_name');
    expect(threads.filter((n) => /^scheduler \d+$/.test(n))).toHaveLength(8);
    expect(threads.filter((n) => /^worker \d+$/.test(n)).length).toBeGreaterThanOrEqual(8);
    // Workers sit in the process of their partition: tids of one process are one partition's.
    const workerPid = new Map(
      ofPh(trace, 'X')
        .filter((e) => e.cat === 'task')
        .map((e) => [e.tid, e.pid]),
    );
    for (const [tid, pid] of workerPid) expect(trace.traceEvents.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.tid === tid)!.pid).toBe(pid);
  });

  it('tasks are slices with op, level, layer and tile count; chiplet-tasks are shared by a partition', () => {
    const tasks = ofPh(trace, 'X').filter((e) => e.cat === 'task');
    expect(tasks.length).toBeGreaterThan(50);
    for (const t of tasks) {
      expect(t.args).toEqual(
        expect.objectContaining({
          op: expect.any(String),
          level: expect.stringMatching(/^(cu|chiplet)$/),
          tiles: expect.any(Number),
          layer: expect.any(Number),
        }),
      );
      expect([-1, 0, 36]).toContain(t.args!.layer);
    }
    const chiplet = tasks.filter((t) => t.args!.level === 'chiplet');
    expect(chiplet.length).toBeGreaterThan(0);
    for (const t of chiplet) expect(t.args!.sharedBy).toBeGreaterThan(1);
    expect(tasks.some((t) => t.name === 'L0.qkv_proj')).toBe(true);
  });

  it('flow arrows: event fired → dispatch → workers; fences and signals as instants; counters', () => {
    const s = ofPh(trace, 's');
    expect(s.filter((e) => e.name === 'ready').length).toBeGreaterThan(10);
    expect(s.filter((e) => e.name === 'dispatched').length).toBe(ofPh(trace, 'X').filter((e) => e.cat === 'task').length);
    expect(ofPh(trace, 'f')).toHaveLength(s.length);
    expect(ofPh(trace, 'i').some((e) => e.cat === 'fence')).toBe(true);
    expect(ofPh(trace, 'i').some((e) => e.cat === 'signal' && e.args!.fires === true)).toBe(true);
    const counters = new Set(ofPh(trace, 'C').map((e) => e.name));
    expect(counters).toEqual(new Set(['busy workers', 'HBM bandwidth in use', 'L2 occupancy']));
  });

  it('describes the run in otherData', () => {
    expect(trace.otherData).toMatchObject({ backend: 'mi350', policy: 'fleet-mtile', model: 'qwen3-8b', batch: 4, layers: '0-0' });
  });

  it('--json says where the step goes, op by op: span and worker time per op, in order', async () => {
    const r = await run(['trace', '--backend', 'mi350', '--policy', 'mirage', '--batch', '2', '--layers', '0-0', '-o', join(dir, 'ops.json'), '--json']);
    expect(r.code).toBe(0);
    const ops: { layer: number; op: string; kind: string; tasks: number; startNs: number; endNs: number; busyNs: number }[] = JSON.parse(r.out).ops;
    const layer = ops.filter((o) => o.layer === 0);
    // The attention stage is named for its first op (q/k norm, RoPE and the KV append run inside it).
    expect(layer.map((o) => o.kind)).toEqual(['rmsnorm', 'linear', 'attention', 'linear', 'rmsnorm', 'linear', 'act-mul', 'linear']);
    const o = layer.find((x) => x.op === 'L0.o_proj')!;
    // MPK's ROCm grid: 64 blocks × 4 K-parts, dependent stages one after another.
    expect(o).toMatchObject({ kind: 'linear', tasks: 256 });
    expect(o.busyNs).toBeGreaterThan(o.endNs - o.startNs);
    for (let i = 1; i < layer.length; i++) expect(layer[i]!.startNs).toBeGreaterThanOrEqual(layer[i - 1]!.endNs);
    expect(ops.find((x) => x.op === 'lm_head')!.tasks).toBe(240);
  });

  it('-o x.json.gz gzips the same bytes; the same input gives the same output', async () => {
    const gz = join(dir, 'mtile.json.gz');
    const r2 = await run(['trace', '--backend', 'mi350', '--policy', 'fleet-mtile', '--batch', '4', '--layers', '0-0', '-o', gz]);
    expect(r2.code).toBe(0);
    expect(readFileSync(gz).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(gunzipSync(readFileSync(gz)).equals(readFileSync(file))).toBe(true);
  });
});

describe('fleet trace: kernel-per-op (h100)', () => {
  it('kernels with nested launches on the device track, workgroups on SM tracks; auto-gzip above --gzip-above', async () => {
    const file = join(dir, 'kpo.json');
    const r = await run(['trace', '--backend', 'h100', '--policy', 'kernel-per-op-graph', '--layers', '1', '--gzip-above', '0.01', '-o', file, '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({ file: `${file}.gz`, gzipped: true, backend: 'h100', layers: '1-1' });
    expect(summary.jsonBytes).toBeGreaterThan(0.01 * 2 ** 20);
    expect(existsSync(file)).toBe(false);
    const trace = load(`${file}.gz`);
    expect(validateTrace(trace)).toEqual([]);
    const kernels = ofPh(trace, 'X').filter((e) => e.cat === 'kernel');
    const launches = ofPh(trace, 'X').filter((e) => e.cat === 'launch');
    expect(kernels.length).toBeGreaterThan(5);
    expect(launches).toHaveLength(kernels.length);
    expect(
      new Set(
        ofPh(trace, 'X')
          .filter((e) => e.cat === 'task')
          .map((e) => e.args!.layer),
      ),
    ).toEqual(new Set([-1, 1, 36]));
    expect(names(trace, 'thread_name').some((n) => /^sm \d+$/.test(n))).toBe(true);
    expect(ofPh(trace, 's')).toHaveLength(0);
    expect(summary.slices).toBe(ofPh(trace, 'X').length);
  });
});

describe('fleet trace: bad input is one line, exit code 2', () => {
  const out = join(dir, 'bad.json');
  const cases: [string, string[], RegExp][] = [
    ['layers out of range', ['--backend', 'mi350', '--policy', 'mirage', '--layers', '30-40', '-o', out], /--layers: '30-40'.*0\.\.35/],
    ['layers not a range', ['--backend', 'mi350', '--policy', 'mirage', '--layers', 'first', '-o', out], /--layers: 'first'/],
    ['unsupported policy', ['--backend', 'h100', '--policy', 'fleet-mtile', '-o', out], /fleet-mtile is unsupported on h100/],
    ['unknown policy', ['--backend', 'mi350', '--policy', 'magic', '-o', out], /unknown policy 'magic'/],
    ['unknown backend', ['--backend', 'tpu9', '--policy', 'mirage', '-o', out], /unknown backend 'tpu9'/],
    ['missing -o', ['--backend', 'mi350', '--policy', 'mirage'], /--out/],
    ['bad --gzip-above', ['--backend', 'mi350', '--policy', 'mirage', '--gzip-above', 'big', '-o', out], /--gzip-above: 'big'/],
  ];
  for (const [name, args, pattern] of cases) {
    it(name, async () => {
      const r = await run(['trace', ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(pattern);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out)).toBe(false);
    });
  }
});
