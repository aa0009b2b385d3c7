/** Shared by the CLI tests: `fleet` run in-process, a tiny model so jobs cost milliseconds. */
import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { join } from 'node:path';
import { main, type Io } from '../src/index.js';

export interface Run {
  code: number;
  out: string;
  err: string;
}

/** Runs `fleet args` in-process (in `cwd` when given) and collects its exit code and output. */
export async function run(args: string[], cwd?: string): Promise<Run> {
  let out = '';
  let err = '';
  const io: Io = { out: (s) => (out += s), err: (s) => (err += s), errIsTty: false, ...(cwd === undefined ? {} : { cwd }) };
  const code = await main(args, io);
  return { code, out, err };
}

/** A two-layer Llama-shaped config.json in `dir`; returns its file name (relative to `dir`). */
export function writeTinyModel(dir: string): string {
  writeFileSync(
    join(dir, 'tiny.json'),
    JSON.stringify({
      model_type: 'llama',
      hidden_size: 256,
      num_hidden_layers: 2,
      num_attention_heads: 8,
      num_key_value_heads: 2,
      intermediate_size: 512,
      vocab_size: 1000,
    }),
  );
  return 'tiny.json';
}

/** `fleet compare` options that make a valid comparison cost milliseconds: one backend, one policy, one sampled layer. */
export function cheapCompare(model: string): string[] {
  return ['--model', model, '--backends', 'h100', '--policies', 'kernel-per-op', '--sample-layers', '1', '--decode', '8', '--batch', '1'];
}

/** Lines of a JSON Lines file, sorted (for comparing results whatever the order they came in). */
export function sortedLines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

/**
 * One test per case: `fleet args` exits 2 with a single stderr line matching `pattern` and no
 * stack trace.
 */
export function itRejectsUsage(cases: [name: string, args: string[], pattern: RegExp][]): void {
  for (const [name, args, pattern] of cases) {
    it(name, async () => {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(pattern);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).not.toMatch(/\bat .*\.js:\d+/);
    });
  }
}
