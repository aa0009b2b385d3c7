/** Shared by the sweep tests: a tiny model and cheap specs, so jobs cost milliseconds. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main, type Io } from '../src/index.js';

export interface Run {
  code: number;
  out: string;
  err: string;
}

export async function run(args: string[], cwd: string): Promise<Run> {
  let out = '';
  let err = '';
  const io: Io = { out: (s) => (out += s), err: (s) => (err += s), errIsTty: false, cwd };
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

/** Lines of a JSON Lines file, sorted (for comparing results whatever the order they came in). */
export function sortedLines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}
