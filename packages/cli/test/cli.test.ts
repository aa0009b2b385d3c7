import { itRejectsUsage, run } from './helpers.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const quick = ['--sample-layers', '1', '--decode', '16'];

describe('fleet compare', () => {
  it('prints the JSON contract', async () => {
    const r = await run(['compare', '--json', '--batch', '1,8', '--backends', 'mi350,h100', '--policies', 'fleet-mtile,mirage', ...quick]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.schemaVersion).toBe(1);
    expect(j.model).toBe('qwen3-8b');
    expect(j.results).toHaveLength(2 * 2 * 2);
    const ok = j.results.find((x: { backend: string; policy: string; batch: number }) => x.backend === 'mi350' && x.policy === 'fleet-mtile' && x.batch === 8);
    for (const k of [
      'backend',
      'policy',
      'batch',
      'promptTokens',
      'decodeTokens',
      'status',
      'tpotMs',
      'l2HitRate',
      'hbmReadBytes',
      'fabricReadBytes',
      'hbmWriteBytes',
      'tasksPerLayer',
    ])
      expect(ok).toHaveProperty(k);
    expect(ok.status).toBe('ok');
    // the MALL sits between the fabric and DRAM: every DRAM read crossed the fabric, not every fabric read reaches DRAM
    expect(ok.fabricReadBytes).toBeGreaterThanOrEqual(ok.hbmReadBytes);
    expect(ok.l2HitRate).toBeGreaterThanOrEqual(0);
    expect(ok.l2HitRate).toBeLessThanOrEqual(1);
    // H100 has no memory-side cache: what leaves the L2 is what DRAM serves
    const h100 = j.results.find((x: { backend: string; policy: string; batch: number }) => x.backend === 'h100' && x.policy === 'mirage' && x.batch === 8);
    expect(h100.fabricReadBytes).toBe(h100.hbmReadBytes);
    // on MI350 the MALL serves some L2 misses (data another XCD fetched): fabric reads exceed DRAM reads
    const mirage = j.results.find((x: { backend: string; policy: string; batch: number }) => x.backend === 'mi350' && x.policy === 'mirage' && x.batch === 8);
    expect(mirage.fabricReadBytes).toBeGreaterThan(mirage.hbmReadBytes);
    const unsupported = j.results.find((x: { backend: string; policy: string }) => x.backend === 'h100' && x.policy === 'fleet-mtile');
    expect(unsupported.status).toBe('unsupported');
    expect(unsupported.reason.length).toBeGreaterThan(10);
  });

  it('gives byte-identical output for the same input', async () => {
    const args = ['compare', '--json', '--batch', '4', '--backends', 'mi300x', '--policies', 'kernel-per-op', ...quick];
    const a = await run(args);
    const b = await run(args);
    expect(a.out).toBe(b.out);
  });

  it('a sweep on worker threads prints the same bytes as one run in-process', async () => {
    const args = ['compare', '--json', '--batch', '1,4', '--backends', 'mi300x,h100', '--policies', 'kernel-per-op-graph', ...quick];
    const seq = await run([...args, '--jobs', '1']);
    const par = await run([...args, '--jobs', '2']);
    expect(par.code).toBe(0);
    expect(par.out).toBe(seq.out);
  });

  it('prints a readable table by default', async () => {
    const r = await run(['compare', '--batch', '1', '--backends', 'h100', '--policies', 'kernel-per-op-graph', ...quick]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/TPOT ms/);
    expect(r.out).toMatch(/h100\s+kernel-per-op-graph/);
    expect(r.out).toMatch(/layers simulated/);
  });

  it('accepts a Hugging Face config.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-cli-'));
    const cfg = {
      model_type: 'llama',
      hidden_size: 1024,
      num_hidden_layers: 4,
      num_attention_heads: 8,
      num_key_value_heads: 8,
      intermediate_size: 2816,
      vocab_size: 32000,
      torch_dtype: 'bfloat16',
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(cfg));
    const r = await run(['compare', '--json', '--model', join(dir, 'config.json'), '--batch', '1', '--backends', 'mi350', '--policies', 'mirage', ...quick]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).results[0].status).toBe('ok');
  });
});

describe('bad input: one line on stderr, exit code 2', () => {
  const cases: [string, string[], RegExp][] = [
    ['unknown model', ['compare', '--model', 'gpt-17'], /gpt-17/],
    ['unknown backend', ['compare', '--backends', 'tpu9'], /unknown backend 'tpu9'.*mi350/],
    ['unknown policy', ['compare', '--policies', 'magic'], /unknown policy 'magic'/],
    ['batch 0', ['compare', '--batch', '0'], /--batch: '0'/],
    ['negative batch', ['compare', '--batch', '-3'], /--batch/],
    ['non-numeric batch', ['compare', '--batch', 'many'], /--batch: 'many'/],
    ['unknown flag', ['compare', '--frobnicate'], /unknown option/],
    ['zero jobs', ['compare', '--jobs', '0'], /--jobs: '0'/],
    ['malformed config path', ['compare', '--model', '/nonexistent/config.json'], /config\.json|nonexistent/],
  ];
  itRejectsUsage(cases);
});

describe('fleet backends / models', () => {
  it('lists the three backends with their API version', async () => {
    const r = await run(['backends', '--json']);
    expect(r.code).toBe(0);
    const names = JSON.parse(r.out).backends.map((b: { name: string; apiVersion: string }) => `${b.name}@${b.apiVersion}`);
    expect(names).toEqual(expect.arrayContaining(['mi350@2.0', 'mi300x@2.0', 'h100@2.0']));
  });

  it('lists model presets', async () => {
    const r = await run(['models', '--json']);
    const names = JSON.parse(r.out).models.map((m: { name: string }) => m.name);
    expect(names).toEqual(expect.arrayContaining(['qwen3-8b', 'llama2-7b', 'llama3-8b', 'llama3-70b', 'qwen2.5-32b', 'gemma2-9b']));
  });
});
