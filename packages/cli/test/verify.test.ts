import { run } from './helpers.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel } from '@fleet/core';
import { checkpointTensorsOf, randomWeights, writeSafetensors } from '@fleet/functional';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

interface Row {
  backend: string;
  policy: string;
  status: string;
  reason?: string;
  maxRelError: number | null;
  steps: { tasks: number; maxRelError: number }[];
}

describe('fleet verify', () => {
  it('passes every policy that every installed backend supports (tiny model, JSON)', async () => {
    const r = await run(['verify', '--json', '--steps', '1']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out) as { schemaVersion: number; model: string; tolerance: number; results: Row[] };
    expect(j.schemaVersion).toBe(1);
    expect(j.model).toBe('tiny');
    const backends = new Set(j.results.map((x) => x.backend));
    for (const b of ['mi350', 'mi300x', 'h100']) expect(backends.has(b)).toBe(true);
    for (const x of j.results) {
      if (x.status === 'unsupported') {
        expect(x.reason!.length).toBeGreaterThan(10);
        expect(x.maxRelError).toBeNull();
        continue;
      }
      expect(x.status, `${x.backend} ${x.policy}: ${x.reason}`).toBe('pass');
      expect(x.maxRelError!).toBeLessThanOrEqual(j.tolerance);
      expect(x.steps[0]!.tasks).toBeGreaterThan(10);
    }
    const passed = j.results.filter((x) => x.status === 'pass').map((x) => `${x.backend}/${x.policy}`);
    for (const want of [
      'mi350/fleet-mtile',
      'mi350/fleet-msplit',
      'mi300x/mirage',
      'h100/mirage',
      'h100/kernel-per-op',
      'mi300x/kernel-per-op-graph',
      'h100/clusterfusion',
    ])
      expect(passed).toContain(want);
    expect(j.results.find((x) => x.backend === 'h100' && x.policy === 'fleet-mtile')!.status).toBe('unsupported');
  }, 60_000);

  it('prints a table, byte-identical across runs', async () => {
    const args = ['verify', '--backend', 'mi300x', '--policy', 'mirage,kernel-per-op', '--batch', '3', '--context', '20'];
    const a = await run(args);
    const b = await run(args);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    expect(a.out).toMatch(/mi300x\s+mirage\s+pass/);
    expect(a.out).toMatch(/2 passed, 0 failed/);
  });

  it('exits 1 with one line on stderr when a dependency is dropped', async () => {
    const r = await run(['verify', '--backend', 'mi350', '--policy', 'fleet-mtile,kernel-per-op', '--drop-dependency', 'lm_head', '--json']);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/verification failed for 2 of 2 runs/);
    const j = JSON.parse(r.out) as { results: Row[] };
    expect(j.results.every((x) => x.status === 'fail' && x.maxRelError! > 0.5)).toBe(true);
  });

  it('verifies ClusterFusion on H100 over two steps, and fails it when the fused kernel stops waiting for the norm', async () => {
    const ok = await run(['verify', '--backend', 'h100', '--policy', 'clusterfusion', '--batch', '2', '--steps', '2', '--json']);
    expect(ok.code, ok.err).toBe(0);
    const j = JSON.parse(ok.out) as { tolerance: number; results: (Row & { steps: { cacheRelError: number }[] })[] };
    expect(j.results).toHaveLength(1);
    expect(j.results[0]!.status).toBe('pass');
    expect(j.results[0]!.steps).toHaveLength(2);
    for (const s of j.results[0]!.steps) {
      expect(s.maxRelError).toBeLessThanOrEqual(j.tolerance);
      expect(s.cacheRelError).toBeLessThanOrEqual(j.tolerance);
    }
    const bad = await run(['verify', '--backend', 'h100', '--policy', 'clusterfusion', '--drop-dependency', 'L1.qkv_proj', '--steps', '1']);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/h100\s+clusterfusion\s+fail/);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
  });

  it('verifies a config.json + safetensors checkpoint with its own weights', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-verify-'));
    dirs.push(dir);
    const cfg = {
      model_type: 'llama',
      hidden_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 1,
      intermediate_size: 192,
      vocab_size: 128,
      torch_dtype: 'bfloat16',
    };
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(cfg));
    const spec = loadModel(path.join(dir, 'config.json'));
    writeSafetensors(path.join(dir, 'model.safetensors'), checkpointTensorsOf(spec, randomWeights(spec, 3)));
    const r = await run(['verify', '--model', dir, '--backend', 'h100', '--policy', 'mirage,kernel-per-op-graph', '--json', '--steps', '1']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out) as { weights: string; results: Row[] };
    expect(j.weights).toBe('checkpoint');
    expect(j.results.map((x) => x.status)).toEqual(['pass', 'pass']);
  });

  const bad: [string, string[], RegExp][] = [
    ['batch 0', ['verify', '--batch', '0'], /--batch: '0'/],
    ['unknown policy', ['verify', '--policy', 'magic'], /unknown policy 'magic'/],
    ['unknown backend', ['verify', '--backend', 'tpu9'], /unknown backend 'tpu9'/],
    ['negative tolerance', ['verify', '--tolerance', '-1'], /--tolerance: '-1'/],
    ['a preset too large to run', ['verify', '--model', 'qwen3-8b'], /too large to run functionally/],
    [
      'an op that starts no stage',
      ['verify', '--backend', 'mi350', '--policy', 'mirage', '--drop-dependency', 'L9.nothing'],
      /no stage of policy mirage starts at op 'L9.nothing'/,
    ],
    [
      'an op inside a kernel',
      ['verify', '--backend', 'h100', '--policy', 'clusterfusion', '--drop-dependency', 'L0.rope'],
      /no stage of policy clusterfusion starts at op 'L0.rope' \(stages start at embed, L0.attn_norm, L0.qkv_proj/,
    ],
  ];
  for (const [name, args, pattern] of bad) {
    it(`bad input (${name}): one line, exit 2`, async () => {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(pattern);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    });
  }
});
