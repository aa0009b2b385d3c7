import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, it, expect } from 'vitest';
import { crossCheckTensors, loadModel, readSafetensorsHeader, type ModelSpec } from '../../src/model/index.js';
import { TINY_CONFIG, fleetErrorOf, layout, removeTempDirs, tempDir, tinyTensors, writeRaw, writeSafetensors, writeTinyModel } from './fixtures.js';

function file(): string {
  return path.join(tempDir(), 'model.safetensors');
}

afterAll(removeTempDirs);

describe('safetensors headers', () => {
  it('reads the header of a valid file, metadata apart', () => {
    const f = file();
    const tensors = tinyTensors();
    writeSafetensors(f, tensors);
    const h = readSafetensorsHeader(f);
    const size = fs.statSync(f).size;
    expect(h.path).toBe(f);
    expect(h.headerBytes % 8).toBe(0);
    expect(h.dataBytes).toBe(size - 8 - h.headerBytes);
    expect(h.metadata).toEqual({ format: 'pt' });
    expect(h.tensors.length).toBe(tensors.length);
    expect(h.tensors[1]).toEqual({
      name: 'model.layers.0.self_attn.q_proj.weight',
      dtype: 'BF16',
      shape: [64, 64],
      dataOffsets: [256 * 64 * 2, 256 * 64 * 2 + 64 * 64 * 2],
    });
  });

  it('loads a tiny checkpoint directory and cross-checks it', () => {
    const dir = writeTinyModel();
    expect(loadModel(dir)).toMatchObject({ name: dir, hiddenSize: 64, numLayers: 2, numKvHeads: 2, headDim: 16, qkNorm: true });
  });

  it('merges tensors spread over several shards', () => {
    const dir = writeTinyModel();
    const tensors = tinyTensors();
    writeSafetensors(path.join(dir, 'model.safetensors'), tensors.slice(0, 10));
    writeSafetensors(path.join(dir, 'model-2.safetensors'), tensors.slice(10));
    expect(loadModel(dir).numLayers).toBe(2);
    writeSafetensors(path.join(dir, 'model-3.safetensors'), tensors.slice(3, 4));
    const msg = fleetErrorOf(() => loadModel(dir));
    expect(msg).toContain("'model.layers.0.self_attn.v_proj.weight' appears twice");
    expect(msg).toContain('model-3.safetensors');
  });

  it('rejects a file shorter than 8 bytes', () => {
    const f = file();
    fs.writeFileSync(f, Buffer.from([1, 2, 3]));
    expect(fleetErrorOf(() => readSafetensorsHeader(f))).toBe(`${f}: file is 3 bytes, shorter than the 8-byte safetensors header length`);
  });

  it('rejects a truncated file (header length beyond the file)', () => {
    const f = file();
    writeSafetensors(f, tinyTensors());
    const full = fs.readFileSync(f);
    fs.writeFileSync(f, full.subarray(0, 40));
    expect(fleetErrorOf(() => readSafetensorsHeader(f))).toMatch(/header length \d+ goes beyond the end of the file \(40 bytes\)/);
  });

  it('rejects a header over 100 MB without reading it', () => {
    const f = file();
    const len = Buffer.alloc(16);
    len.writeBigUInt64LE(2n ** 62n);
    fs.writeFileSync(f, len);
    expect(fleetErrorOf(() => readSafetensorsHeader(f))).toContain('exceeds the 100000000-byte limit');
  });

  it('rejects invalid JSON and non-object headers', () => {
    const f = file();
    writeRaw(f, '{"a": {"dtype": "F32",', 0);
    expect(fleetErrorOf(() => readSafetensorsHeader(f))).toContain(`${f}: header is not valid JSON`);
    writeRaw(f, '[1, 2]', 0);
    expect(fleetErrorOf(() => readSafetensorsHeader(f))).toContain('header must be a JSON object');
    writeRaw(f, { w: 'F32' }, 0);
    expect(fleetErrorOf(() => readSafetensorsHeader(f))).toContain("tensor 'w': entry must be an object");
  });

  it('rejects an unknown dtype, naming the allowed ones', () => {
    const f = file();
    writeRaw(f, { w: { dtype: 'F4', shape: [2], data_offsets: [0, 1] } }, 1);
    const msg = fleetErrorOf(() => readSafetensorsHeader(f));
    expect(msg).toContain(`${f}: tensor 'w': unknown dtype "F4"`);
    expect(msg).toContain('BF16');
    expect(msg).toContain('F8_E5M2');
  });

  it('rejects bad shapes, bad offsets and wrong byte lengths', () => {
    const f = file();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ dtype: 'F32', shape: [2, -1], data_offsets: [0, 0] }, 0, 'shape [2,-1] must be an array of non-negative integers'],
      [{ dtype: 'F32', shape: '2', data_offsets: [0, 8] }, 8, 'must be an array of non-negative integers'],
      [{ dtype: 'F32', shape: [2], data_offsets: [8, 0] }, 8, 'must be [begin, end]'],
      [{ dtype: 'F32', shape: [2], data_offsets: [0] }, 8, 'must be [begin, end]'],
      [{ dtype: 'F32', shape: [2, 3], data_offsets: [0, 8] }, 8, 'span 8 bytes but shape [2,3] of F32 needs 24 bytes'],
      [{ dtype: 'F32', shape: [4], data_offsets: [0, 16] }, 8, 'go beyond the data section (8 bytes)'],
    ];
    for (const [entry, dataBytes, expected] of cases) {
      writeRaw(f, { w: entry }, dataBytes);
      const msg = fleetErrorOf(() => readSafetensorsHeader(f));
      expect(msg).toContain(`${f}: tensor 'w'`);
      expect(msg).toContain(expected);
    }
  });

  it('rejects overlapping tensors', () => {
    const f = file();
    writeRaw(
      f,
      {
        a: { dtype: 'F32', shape: [4], data_offsets: [0, 16] },
        b: { dtype: 'F32', shape: [2], data_offsets: [8, 16] },
        empty: { dtype: 'F32', shape: [0], data_offsets: [4, 4] },
      },
      16,
    );
    expect(fleetErrorOf(() => readSafetensorsHeader(f))).toBe(`${f}: tensor 'b' data_offsets [8, 16] overlap tensor 'a' [0, 16]`);
  });

  it('rejects a checkpoint whose shapes disagree with config.json', () => {
    const dir = writeTinyModel({ ...TINY_CONFIG, intermediate_size: 96 });
    const msg = fleetErrorOf(() => loadModel(dir));
    expect(msg).toContain("tensor 'model.layers.0.mlp.gate_proj.weight' has shape [128, 64]");
    expect(msg).toContain('expects [96, 64]');
    expect(msg).toContain(path.join(dir, 'model.safetensors'));
  });

  it('rejects a checkpoint with a missing tensor', () => {
    const dir = writeTinyModel(
      undefined,
      tinyTensors().filter((t) => t.name !== 'model.layers.1.self_attn.k_norm.weight'),
    );
    const msg = fleetErrorOf(() => loadModel(dir));
    expect(msg).toBe(`${dir}: missing tensor 'model.layers.1.self_attn.k_norm.weight' (expected shape [16], found none in the safetensors files)`);
  });

  it('needs lm_head only when embeddings are not tied, and allows extra tensors', () => {
    const spec = loadModel(writeTinyModel());
    const tensors = tinyTensors().filter((t) => t.name !== 'lm_head.weight');
    const tied: ModelSpec = { ...spec, tieWordEmbeddings: true };
    expect(() => crossCheckTensors(tied, [...tensors, { name: 'rotary.inv_freq', shape: [8] }], 'ckpt')).not.toThrow();
    expect(fleetErrorOf(() => crossCheckTensors(spec, tensors, 'ckpt'))).toContain("missing tensor 'lm_head.weight'");
  });

  it('does not read the data section', () => {
    const f = file();
    const { header } = layout(tinyTensors());
    // A sparse 64 GiB data section: reading it would exhaust memory, so only the header can be touched.
    writeRaw(f, header, 0);
    fs.truncateSync(f, fs.statSync(f).size + 2 ** 36);
    expect(readSafetensorsHeader(f).tensors.length).toBe(tinyTensors().length);
  });
});
