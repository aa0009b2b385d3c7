/**
 * Property-based fuzzing of safetensors headers (`readSafetensorsHeader`) and of checkpoint
 * directories (`loadModel`): random bytes, truncations, wrong header lengths, invalid JSON,
 * mutated entries (dtypes, shapes, offsets, overlaps) and shapes that disagree with the
 * config. A header is accepted exactly when an independent reference check accepts it.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadModel, readSafetensorsHeader, SAFETENSORS_DTYPE_BYTES, type SafetensorsHeader } from '../../src/model/index.js';
import { TINY_CONFIG, removeTempDirs, tempDir, tinyTensors, writeRaw, writeSafetensors, type FakeTensor } from '../model/fixtures.js';
import { FUZZ_TIMEOUT_MS, fuzz, outcome, rejected, rejects } from './oracle.js';

vi.setConfig({ testTimeout: FUZZ_TIMEOUT_MS });
afterAll(removeTempDirs);

const dir = tempDir();
let n = 0;
const nextFile = (): string => path.join(dir, `t${n++}.safetensors`);

/** The format's rules, written independently of the reader: does this header describe a valid file? */
function referenceAccepts(header: unknown, dataBytes: number): boolean {
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return false;
  const spans: Array<[number, number]> = [];
  const uint = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  for (const [name, e] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (typeof e !== 'object' || e === null || Array.isArray(e)) return false;
      if (!Object.values(e).every((v) => typeof v === 'string')) return false;
      continue;
    }
    if (typeof e !== 'object' || e === null || Array.isArray(e)) return false;
    const { dtype, shape, data_offsets: off } = e as Record<string, unknown>;
    if (typeof dtype !== 'string' || !Object.hasOwn(SAFETENSORS_DTYPE_BYTES, dtype)) return false;
    if (!Array.isArray(shape) || !shape.every(uint)) return false;
    if (!Array.isArray(off) || off.length !== 2 || !uint(off[0]) || !uint(off[1]) || off[0] > off[1]) return false;
    const bytes = shape.reduce((a: number, b: number) => a * b, 1) * SAFETENSORS_DTYPE_BYTES[dtype as keyof typeof SAFETENSORS_DTYPE_BYTES];
    if (off[1] - off[0] !== bytes || off[1] > dataBytes) return false;
    if (off[1] > off[0]) spans.push([off[0], off[1]]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < spans.length; i++) if (spans[i]![0] < Math.max(...spans.slice(0, i).map((s) => s[1]))) return false;
  return true;
}

/** What an accepted header promises its users. */
function checkHeader(h: SafetensorsHeader, file: string): void {
  expect(h.path).toBe(file);
  expect(8 + h.headerBytes + h.dataBytes).toBe(fs.statSync(file).size);
  for (const t of h.tensors) {
    expect(t.dataOffsets[1]).toBeLessThanOrEqual(h.dataBytes);
    expect(t.dataOffsets[1] - t.dataOffsets[0]).toBe(t.shape.reduce((a, b) => a * b, 1) * SAFETENSORS_DTYPE_BYTES[t.dtype]);
  }
}

const DTYPES = Object.keys(SAFETENSORS_DTYPE_BYTES);

/** Header entries laid out back to back with the real item sizes, and the data size. */
function layout(tensors: FakeTensor[]): { header: Record<string, unknown>; dataBytes: number } {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const t of tensors) {
    const bytes = t.shape.reduce((a, b) => a * b, 1) * SAFETENSORS_DTYPE_BYTES[t.dtype as keyof typeof SAFETENSORS_DTYPE_BYTES];
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  return { header, dataBytes: offset };
}
const tensor = fc.record({
  name: fc.oneof(fc.constantFrom('w', 'model.norm.weight', '__proto__', 'a\nb', ''), fc.string({ maxLength: 12 })),
  dtype: fc.constantFrom(...DTYPES),
  shape: fc.array(fc.nat({ max: 6 }), { maxLength: 3 }),
});

/** One way of breaking an entry (or none): the reference check decides whether it still is valid. */
const mutation = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  fc.record({ kind: fc.constant('dtype' as const), value: fc.oneof(fc.constantFrom(...DTYPES, 'F4', 'bf16', 'Q4_K', ''), fc.anything()) }),
  fc.record({
    kind: fc.constant('shape' as const),
    value: fc.oneof(fc.array(fc.integer({ min: -2, max: 6 }), { maxLength: 3 }), fc.array(fc.double(), { maxLength: 2 }), fc.anything()),
  }),
  fc.record({ kind: fc.constant('shift' as const), value: fc.integer({ min: -64, max: 64 }) }),
  fc.record({ kind: fc.constant('offsets' as const), value: fc.oneof(fc.array(fc.integer({ min: -8, max: 256 }), { maxLength: 3 }), fc.anything()) }),
  fc.record({ kind: fc.constant('entry' as const), value: fc.anything() }),
);

describe('safetensors fuzzing: readSafetensorsHeader', () => {
  it('random bytes are refused, naming the file', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const f = nextFile();
        fs.writeFileSync(f, bytes);
        const o = outcome(() => readSafetensorsHeader(f));
        if (o.ok) checkHeader(o.value, f);
        else rejected(o, f);
      }),
      fuzz(200),
    );
  });

  it('a valid file truncated anywhere is refused, naming the file', () => {
    const f0 = nextFile();
    writeSafetensors(f0, tinyTensors());
    const full = fs.readFileSync(f0);
    fc.assert(
      fc.property(fc.nat({ max: full.length - 1 }), (cut) => {
        const f = nextFile();
        fs.writeFileSync(f, full.subarray(0, cut));
        rejects(() => readSafetensorsHeader(f), f);
      }),
      fuzz(150),
    );
  });

  it('any header length (u64) is refused, or the file parses consistently', () => {
    const f0 = nextFile();
    writeSafetensors(f0, tinyTensors().slice(0, 4));
    const full = fs.readFileSync(f0);
    const real = full.readBigUInt64LE(0);
    const len = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.bigInt({ min: 0n, max: BigInt(full.length) }),
      fc.constantFrom(real - 1n, real + 1n, real - 8n, 2n ** 63n, 2n ** 64n - 1n),
    );
    fc.assert(
      fc.property(len, (l) => {
        const f = nextFile();
        const b = Buffer.from(full);
        b.writeBigUInt64LE(l, 0);
        fs.writeFileSync(f, b);
        const o = outcome(() => readSafetensorsHeader(f));
        if (o.ok) checkHeader(o.value, f);
        else rejected(o, f);
      }),
      fuzz(150),
    );
  });

  it('invalid or non-object JSON in the header is refused, naming the file', () => {
    const text = fc.oneof(
      fc.string(),
      fc
        .jsonValue()
        .map((v) => JSON.stringify(v))
        .filter((s) => !s.startsWith('{')),
      fc.constantFrom('{', '{"w": ', '{"w": {"dtype": "F32"}', '\u00ff\u00fe', 'null', '[]'),
    );
    fc.assert(
      fc.property(text, (t) => {
        const f = nextFile();
        writeRaw(f, t, 0);
        const o = outcome(() => readSafetensorsHeader(f));
        if (o.ok) checkHeader(o.value, f);
        else rejected(o, f);
      }),
      fuzz(150),
    );
  });

  it('mutated entries (dtype, shape, offsets, overlaps, data size) are accepted exactly when valid', () => {
    const input = fc.record({
      tensors: fc.uniqueArray(tensor, { maxLength: 6, selector: (t) => t.name }),
      mutations: fc.array(fc.tuple(fc.nat(), mutation), { maxLength: 3 }),
      dataDelta: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.integer({ min: -32, max: 32 })),
      metadata: fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string(), fc.anything()), { maxKeys: 2 }),
      ),
    });
    fc.assert(
      fc.property(input, ({ tensors, mutations, dataDelta, metadata }) => {
        const { header, dataBytes } = layout(tensors as FakeTensor[]);
        if (metadata === undefined) delete header.__metadata__;
        else header.__metadata__ = metadata;
        const names = tensors.map((t) => t.name);
        for (const [i, m] of mutations) {
          if (names.length === 0 || m.kind === 'none') continue;
          const name = names[i % names.length]!;
          const entry = { ...(header[name] as Record<string, unknown>) };
          if (m.kind === 'dtype') entry.dtype = m.value;
          else if (m.kind === 'shape') entry.shape = m.value;
          else if (m.kind === 'offsets') entry.data_offsets = m.value;
          else if (m.kind === 'shift' && Array.isArray(entry.data_offsets))
            entry.data_offsets = entry.data_offsets.map((x) => (typeof x === 'number' ? x + m.value : x));
          header[name] = m.kind === 'entry' ? m.value : entry;
        }
        const data = Math.max(0, dataBytes + dataDelta);
        // Round-trip through JSON: what the file holds is what the reference must judge.
        const text = JSON.stringify(header);
        const f = nextFile();
        writeRaw(f, text, data);
        const o = outcome(() => readSafetensorsHeader(f));
        expect(o.ok).toBe(referenceAccepts(JSON.parse(text), data));
        if (o.ok) checkHeader(o.value, f);
        else rejected(o, f);
      }),
      fuzz(300),
    );
  });
});

describe('safetensors fuzzing: checkpoint directories', () => {
  const config = JSON.stringify(TINY_CONFIG);

  function checkpoint(tensors: FakeTensor[]): string {
    const d = path.join(dir, `ckpt-${n++}`);
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, 'config.json'), config);
    writeSafetensors(path.join(d, 'model.safetensors'), tensors);
    return d;
  }

  it('a tensor whose shape disagrees with config.json is refused, naming the tensor and both shapes', () => {
    const all = tinyTensors();
    const change = fc.record({
      i: fc.nat({ max: all.length - 1 }),
      shape: fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 0, maxLength: 2 }),
    });
    fc.assert(
      fc.property(change, ({ i, shape }) => {
        const want = all[i]!;
        fc.pre(shape.join(',') !== want.shape.join(','));
        const tensors = all.map((t, j) => (j === i ? { ...t, shape } : t));
        const d = checkpoint(tensors);
        const msg = rejects(() => loadModel(d), `'${want.name}'`, `[${shape.join(', ')}]`, `[${want.shape.join(', ')}]`);
        expect(msg).toContain(path.join(d, 'model.safetensors'));
      }),
      fuzz(100),
    );
  });

  it('a missing tensor is refused, naming it and its expected shape', () => {
    const all = tinyTensors();
    fc.assert(
      fc.property(fc.nat({ max: all.length - 1 }), (i) => {
        const d = checkpoint(all.filter((_, j) => j !== i));
        expect(rejects(() => loadModel(d), d, `'${all[i]!.name}'`, `[${all[i]!.shape.join(', ')}]`)).toContain('missing');
      }),
      fuzz(40),
    );
  });

  it('random bytes or a truncated shard beside a valid config.json are refused, naming the shard', () => {
    const f0 = nextFile();
    writeSafetensors(f0, tinyTensors());
    const full = fs.readFileSync(f0);
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.nat({ max: full.length - 1 }).map((cut) => full.subarray(0, cut)),
    );
    fc.assert(
      fc.property(bytes, fc.constantFrom('model.safetensors', 'model-00002-of-00002.safetensors'), (b, name) => {
        const d = checkpoint(tinyTensors());
        fs.writeFileSync(path.join(d, name), b);
        rejects(() => loadModel(d), d);
      }),
      fuzz(100),
    );
  });
});

describe('safetensors regressions', () => {
  it('tensor and metadata names holding newlines give one-line errors', () => {
    const f = nextFile();
    writeRaw(f, { 'a\nb': { dtype: 'F4', shape: [1], data_offsets: [0, 1] } }, 1);
    expect(rejects(() => readSafetensorsHeader(f), "'a\\nb'")).toContain('unknown dtype');
    writeRaw(f, { __metadata__: { 'k\r\nv': 5 } }, 0);
    expect(rejects(() => readSafetensorsHeader(f), "'k\\r\\nv'")).toContain('must be a string');
  });

  it('a directory named like a shard is refused, not read', () => {
    const d = checkpoint2();
    fs.mkdirSync(path.join(d, 'model.safetensors'));
    expect(rejects(() => loadModel(d), path.join(d, 'model.safetensors'))).toContain('must be a regular file');
  });

  it('a named pipe named like a shard is refused, not opened (opening it used to hang)', () => {
    const d = checkpoint2();
    const fifo = path.join(d, 'model.safetensors');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here: nothing more to check
    }
    expect(rejects(() => loadModel(d), fifo)).toContain('named pipe');
  });
});

function checkpoint2(): string {
  const d = path.join(dir, `ckpt-${n++}`);
  fs.mkdirSync(d);
  fs.writeFileSync(path.join(d, 'config.json'), JSON.stringify(TINY_CONFIG));
  return d;
}
