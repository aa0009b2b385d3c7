/**
 * Reading and writing safetensors tensor data for functional runs. The model loader in
 * `@fleet/core` reads headers only (it never needs the weights); verifying a schedule
 * numerically on a small checkpoint does, so this reads the data section of the tensors it
 * is asked for, converting BF16/F16/F32 to Float32Array.
 */
import * as fs from 'node:fs';
import { inputError, readSafetensorsHeader, type SafetensorsHeader } from '@fleet/core';
import { bf16Bits, fp16Bits, fp16FromBits } from '@fleet/numerics';

export type DataDType = 'BF16' | 'F16' | 'F32';

export interface TensorData {
  name: string;
  dtype: DataDType;
  shape: number[];
  data: Float32Array;
}

let fp16Table: Float32Array | null = null;

function fp16Values(): Float32Array {
  if (!fp16Table) {
    fp16Table = new Float32Array(65536);
    for (let b = 0; b < 65536; b++) fp16Table[b] = fp16FromBits(b);
  }
  return fp16Table;
}

/** A safetensors file opened for reading tensor data by name. */
export class SafetensorsFile {
  readonly header: SafetensorsHeader;

  constructor(readonly path: string) {
    this.header = readSafetensorsHeader(path);
  }

  names(): string[] {
    return this.header.tensors.map((t) => t.name);
  }

  has(name: string): boolean {
    return this.header.tensors.some((t) => t.name === name);
  }

  /** The tensor's values as fp32 (BF16, F16 and F32 tensors). */
  read(name: string): TensorData {
    const t = this.header.tensors.find((x) => x.name === name);
    if (!t) throw inputError(`${this.path}: no tensor '${name}'`);
    if (t.dtype !== 'BF16' && t.dtype !== 'F16' && t.dtype !== 'F32') {
      throw inputError(`${this.path}: tensor '${name}' is ${t.dtype}; functional runs read BF16, F16 or F32 tensors`);
    }
    const [begin, end] = t.dataOffsets;
    const bytes = Buffer.alloc(end - begin);
    const fd = fs.openSync(this.path, 'r');
    try {
      let done = 0;
      while (done < bytes.length) {
        const n = fs.readSync(fd, bytes, done, bytes.length - done, 8 + this.header.headerBytes + begin + done);
        if (n === 0) throw inputError(`${this.path}: unexpected end of file in tensor '${name}'`);
        done += n;
      }
    } finally {
      fs.closeSync(fd);
    }
    const count = t.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(count);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (t.dtype === 'F32') for (let i = 0; i < count; i++) data[i] = view.getFloat32(i * 4, true);
    else if (t.dtype === 'BF16') for (let i = 0; i < count; i++) data[i] = bf16(view.getUint16(i * 2, true));
    else {
      const table = fp16Values();
      for (let i = 0; i < count; i++) data[i] = table[view.getUint16(i * 2, true)]!;
    }
    return { name, dtype: t.dtype, shape: [...t.shape], data };
  }
}

const cvtU32 = new Uint32Array(1);
const cvtF32 = new Float32Array(cvtU32.buffer);

function bf16(bits: number): number {
  cvtU32[0] = bits << 16;
  return cvtF32[0]!;
}

const ITEM: Record<DataDType, number> = { BF16: 2, F16: 2, F32: 4 };

/**
 * Write tensors to a safetensors file (values rounded to each tensor's dtype, nearest-even).
 * Tensors are laid out in the given order; the header is padded to 8 bytes as the format
 * recommends.
 */
export function writeSafetensors(path: string, tensors: readonly TensorData[], metadata: Record<string, string> = { format: 'pt' }): void {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const t of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) throw new RangeError(`tensor '${t.name}': shape [${t.shape.join(', ')}] holds ${count} values, data has ${t.data.length}`);
    const bytes = count * ITEM[t.dtype];
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8);
  const headerBytes = Buffer.from(json, 'utf8');
  const out = Buffer.alloc(8 + headerBytes.length + offset);
  out.writeBigUInt64LE(BigInt(headerBytes.length), 0);
  headerBytes.copy(out, 8);
  let p = 8 + headerBytes.length;
  for (const t of tensors) {
    for (let i = 0; i < t.data.length; i++) {
      const v = t.data[i]!;
      if (t.dtype === 'F32') out.writeFloatLE(v, p);
      else out.writeUInt16LE(t.dtype === 'BF16' ? bf16Bits(v) : fp16Bits(v), p);
      p += ITEM[t.dtype];
    }
  }
  fs.writeFileSync(path, out);
}
