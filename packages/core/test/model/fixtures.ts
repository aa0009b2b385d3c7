import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FleetError } from '../../src/errors/fleet-error.js';

/** Test helpers: temp dirs, tiny Hugging Face configs and hand-built safetensors files. */

const created: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-model-'));
  created.push(dir);
  return dir;
}

/** Remove every directory `tempDir` made (call from `afterAll`). */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export const TINY_CONFIG = {
  architectures: ['Qwen3ForCausalLM'],
  model_type: 'qwen3',
  hidden_size: 64,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 16,
  intermediate_size: 128,
  vocab_size: 256,
  hidden_act: 'silu',
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
} as const;

export interface FakeTensor {
  name: string;
  dtype: string;
  shape: number[];
}

/** The tensors of `TINY_CONFIG`, with Hugging Face names, written out by hand. */
export function tinyTensors(): FakeTensor[] {
  const t = (name: string, shape: number[]): FakeTensor => ({ name, dtype: 'BF16', shape });
  const out = [t('model.embed_tokens.weight', [256, 64])];
  for (let i = 0; i < 2; i++) {
    const p = `model.layers.${i}`;
    out.push(
      t(`${p}.self_attn.q_proj.weight`, [64, 64]),
      t(`${p}.self_attn.k_proj.weight`, [32, 64]),
      t(`${p}.self_attn.v_proj.weight`, [32, 64]),
      t(`${p}.self_attn.o_proj.weight`, [64, 64]),
      t(`${p}.self_attn.q_norm.weight`, [16]),
      t(`${p}.self_attn.k_norm.weight`, [16]),
      t(`${p}.mlp.gate_proj.weight`, [128, 64]),
      t(`${p}.mlp.up_proj.weight`, [128, 64]),
      t(`${p}.mlp.down_proj.weight`, [64, 128]),
      t(`${p}.input_layernorm.weight`, [64]),
      t(`${p}.post_attention_layernorm.weight`, [64]),
    );
  }
  out.push(t('model.norm.weight', [64]), t('lm_head.weight', [256, 64]));
  return out;
}

const ITEM_BYTES: Record<string, number> = { BF16: 2, F16: 2, F32: 4 };

/** Header entries for tensors laid out back to back; also returns the data section size. */
export function layout(tensors: FakeTensor[]): { header: Record<string, unknown>; dataBytes: number } {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const t of tensors) {
    const bytes = t.shape.reduce((a, b) => a * b, 1) * (ITEM_BYTES[t.dtype] ?? 2);
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  return { header, dataBytes: offset };
}

/** Write a safetensors file from raw header text (or object) and a zero-filled data section. */
export function writeRaw(file: string, header: string | Record<string, unknown>, dataBytes: number): void {
  const text = typeof header === 'string' ? header : JSON.stringify(header);
  const json = Buffer.from(text.padEnd(Math.ceil(text.length / 8) * 8, ' '), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  fs.writeFileSync(file, Buffer.concat([len, json, Buffer.alloc(dataBytes)]));
}

export function writeSafetensors(file: string, tensors: FakeTensor[]): void {
  const { header, dataBytes } = layout(tensors);
  writeRaw(file, header, dataBytes);
}

/** A checkpoint directory: `config.json` plus one `model.safetensors`. */
export function writeTinyModel(config: Record<string, unknown> = { ...TINY_CONFIG }, tensors: FakeTensor[] = tinyTensors()): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
  return dir;
}

/** Run `fn`, expect a one-line input `FleetError` (exit code 2), and return its message. */
export function fleetErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof FleetError)) throw new Error(`expected a FleetError, got ${String(e)}`);
    if (e.exitCode !== 2) throw new Error(`expected exit code 2, got ${e.exitCode}`);
    if (e.message.includes('\n')) throw new Error(`message is not one line: ${e.message}`);
    return e.message;
  }
  throw new Error('expected a FleetError, nothing was thrown');
}
