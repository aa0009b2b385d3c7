import { run } from './helpers.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const quick = ['--sample-layers', '2', '--decode', '1', '--prompt', '127'];

describe('fleet compare on MoE models', () => {
  it('reports the experts each MoE layer reads, growing with batch; skewed routing reads fewer', { timeout: 120_000 }, async () => {
    const r = await run([
      'compare',
      '--json',
      '--model',
      'qwen3-30b-a3b',
      '--batch',
      '1,16',
      '--backends',
      'mi350',
      '--policies',
      'kernel-per-op-graph',
      ...quick,
    ]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { results: { batch: number; activeExperts: number; experts: number; hbmReadBytes: number }[] };
    const [b1, b16] = j.results;
    expect(b1!.activeExperts).toBe(8);
    expect(b1!.experts).toBe(128);
    expect(b16!.activeExperts).toBeGreaterThan(b1!.activeExperts);
    expect(b16!.hbmReadBytes).toBeGreaterThan(b1!.hbmReadBytes);
    const z = await run([
      'compare',
      '--json',
      '--model',
      'qwen3-30b-a3b',
      '--batch',
      '16',
      '--backends',
      'mi350',
      '--policies',
      'kernel-per-op-graph',
      '--routing',
      'zipf:2',
      ...quick,
    ]);
    expect(JSON.parse(z.out).results[0].activeExperts).toBeLessThan(b16!.activeExperts);
    const t = await run(['compare', '--model', 'qwen3-30b-a3b', '--batch', '1', '--backends', 'mi350', '--policies', 'kernel-per-op-graph', ...quick]);
    expect(t.out).toContain('experts 8/128 per MoE layer');
  });

  it('says what does not fit', { timeout: 60_000 }, async () => {
    const r = await run(['compare', '--json', '--model', 'mixtral-8x7b', '--batch', '1', '--backends', 'h100', '--policies', 'kernel-per-op-graph', ...quick]);
    expect(JSON.parse(r.out).results[0].reason).toMatch(/does not fit/);
  });

  it('bad routing and bad MoE configs: one line, exit 2', async () => {
    for (const bad of ['zipf:', 'zipf:-3', 'nosuchfile.json']) {
      const r = await run(['compare', '--model', 'qwen3-30b-a3b', '--routing', bad, '--batch', '1', '--backends', 'mi350']);
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
    const dir = mkdtempSync(join(tmpdir(), 'fleet-moe-'));
    const counts = join(dir, 'counts.json');
    writeFileSync(counts, JSON.stringify([1, 2, 3]));
    const r = await run(['compare', '--model', 'qwen3-30b-a3b', '--routing', counts, '--batch', '1', '--backends', 'mi350']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('has 3 per-expert counts, the model has 128 experts');
    const cfg = join(dir, 'config.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        model_type: 'mixtral',
        hidden_size: 64,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        intermediate_size: 32,
        vocab_size: 100,
        num_local_experts: 4,
        num_experts_per_tok: 5,
      }),
    );
    const c = await run(['compare', '--model', cfg, '--batch', '1', '--backends', 'mi350']);
    expect(c.code).toBe(2);
    expect(c.err).toContain("field 'num_experts_per_tok' (5) must be at most 'num_local_experts' (4)");
  });
});
