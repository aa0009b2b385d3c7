import * as fs from 'node:fs';
import { readOpenFile } from './files.js';
import { lineError, oneLine, showValue } from './messages.js';

/**
 * Reading the header of a `.safetensors` file: tensor names, dtypes, shapes and offsets.
 * Only the header is read, never the data section, so checking a 140 GB checkpoint against
 * its `config.json` costs a few kilobytes of I/O.
 *
 * Format: 8 bytes little-endian u64 N, N bytes of UTF-8 JSON, then the data section.
 */

export const SAFETENSORS_DTYPE_BYTES = {
  F64: 8,
  F32: 4,
  F16: 2,
  BF16: 2,
  I64: 8,
  I32: 4,
  I16: 2,
  I8: 1,
  U8: 1,
  BOOL: 1,
  F8_E4M3: 1,
  F8_E5M2: 1,
} as const;

export type SafetensorsDType = keyof typeof SAFETENSORS_DTYPE_BYTES;

/** The reference implementation refuses larger headers too (a guard against corrupt files). */
export const MAX_SAFETENSORS_HEADER_BYTES = 100_000_000;

export interface SafetensorsTensor {
  name: string;
  dtype: SafetensorsDType;
  shape: number[];
  /** [begin, end) byte offsets relative to the start of the data section. */
  dataOffsets: [number, number];
}

export interface SafetensorsHeader {
  path: string;
  /** Length N of the JSON header (excluding the 8-byte length prefix). */
  headerBytes: number;
  /** Size of the data section: file size - 8 - N. */
  dataBytes: number;
  tensors: SafetensorsTensor[];
  /** The `__metadata__` entry (string to string), when present. */
  metadata?: Record<string, string>;
}

function readFully(fd: number, buf: Buffer, position: number, path: string): void {
  let done = 0;
  while (done < buf.length) {
    const n = fs.readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) throw lineError(`${path}: unexpected end of file while reading the safetensors header`);
    done += n;
  }
}

/** Read the raw JSON header text and the file layout, closing the file in every case. */
function readHeaderText(path: string): { text: string; headerBytes: number; dataBytes: number } {
  return readOpenFile(path, (fd) => {
    let size: number;
    try {
      size = fs.fstatSync(fd).size;
    } catch (e) {
      throw lineError(`${path}: cannot stat: ${oneLine(e)}`);
    }
    if (size < 8) {
      throw lineError(`${path}: file is ${size} bytes, shorter than the 8-byte safetensors header length`);
    }
    const lenBuf = Buffer.alloc(8);
    readFully(fd, lenBuf, 0, path);
    const n = lenBuf.readBigUInt64LE(0);
    if (n > BigInt(MAX_SAFETENSORS_HEADER_BYTES)) {
      throw lineError(`${path}: header length ${n} exceeds the ${MAX_SAFETENSORS_HEADER_BYTES}-byte limit`);
    }
    const headerBytes = Number(n);
    if (8 + headerBytes > size) {
      throw lineError(`${path}: header length ${headerBytes} goes beyond the end of the file (${size} bytes)`);
    }
    const buf = Buffer.alloc(headerBytes);
    readFully(fd, buf, 8, path);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      throw lineError(`${path}: header is not valid UTF-8`);
    }
    return { text, headerBytes, dataBytes: size - 8 - headerBytes };
  });
}

function isNonNegativeInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function parseTensor(path: string, name: string, entry: unknown, dataBytes: number): SafetensorsTensor {
  const where = `${path}: tensor '${name}'`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw lineError(`${where}: entry must be an object with dtype, shape and data_offsets, found ${showValue(entry)}`);
  }
  const e = entry as Record<string, unknown>;
  const dtype = e.dtype;
  if (typeof dtype !== 'string' || !Object.hasOwn(SAFETENSORS_DTYPE_BYTES, dtype)) {
    throw lineError(`${where}: unknown dtype ${showValue(dtype)} (allowed: ${Object.keys(SAFETENSORS_DTYPE_BYTES).join(', ')})`);
  }
  const shape = e.shape;
  if (!Array.isArray(shape) || !shape.every(isNonNegativeInteger)) {
    throw lineError(`${where}: shape ${showValue(shape)} must be an array of non-negative integers`);
  }
  const offsets = e.data_offsets;
  if (!Array.isArray(offsets) || offsets.length !== 2 || !isNonNegativeInteger(offsets[0]) || !isNonNegativeInteger(offsets[1]) || offsets[0] > offsets[1]) {
    throw lineError(`${where}: data_offsets ${showValue(offsets)} must be [begin, end] of non-negative integers with begin <= end`);
  }
  const [begin, end] = offsets as [number, number];
  const elements = (shape as number[]).reduce((a, b) => a * b, 1);
  const itemBytes = SAFETENSORS_DTYPE_BYTES[dtype as SafetensorsDType];
  const expected = elements * itemBytes;
  if (end - begin !== expected) {
    throw lineError(`${where}: data_offsets span ${end - begin} bytes but shape ${showValue(shape)} of ${dtype} needs ${expected} bytes`);
  }
  if (end > dataBytes) {
    throw lineError(`${where}: data_offsets [${begin}, ${end}] go beyond the data section (${dataBytes} bytes)`);
  }
  return { name, dtype: dtype as SafetensorsDType, shape: shape as number[], dataOffsets: [begin, end] };
}

/** Tensors must not share bytes (empty tensors share nothing). */
function checkOverlaps(path: string, tensors: SafetensorsTensor[]): void {
  const sorted = tensors.filter((t) => t.dataOffsets[1] > t.dataOffsets[0]).sort((a, b) => a.dataOffsets[0] - b.dataOffsets[0]);
  let last: SafetensorsTensor | undefined;
  for (const t of sorted) {
    if (last && t.dataOffsets[0] < last.dataOffsets[1]) {
      throw lineError(`${path}: tensor '${t.name}' data_offsets [${t.dataOffsets.join(', ')}] overlap tensor '${last.name}' [${last.dataOffsets.join(', ')}]`);
    }
    if (!last || t.dataOffsets[1] > last.dataOffsets[1]) last = t;
  }
}

/** Read and validate the header of a safetensors file. */
export function readSafetensorsHeader(path: string): SafetensorsHeader {
  const { text, headerBytes, dataBytes } = readHeaderText(path);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw lineError(`${path}: header is not valid JSON: ${oneLine(e)}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw lineError(`${path}: header must be a JSON object of tensors, found ${showValue(json)}`);
  }
  const tensors: SafetensorsTensor[] = [];
  let metadata: Record<string, string> | undefined;
  for (const [name, entry] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        throw lineError(`${path}: '__metadata__' must be an object of strings, found ${showValue(entry)}`);
      }
      for (const [k, v] of Object.entries(entry)) {
        if (typeof v !== 'string') throw lineError(`${path}: '__metadata__' key '${k}' (${showValue(v)}) must be a string`);
      }
      metadata = entry as Record<string, string>;
      continue;
    }
    tensors.push(parseTensor(path, name, entry, dataBytes));
  }
  checkOverlaps(path, tensors);
  return metadata === undefined ? { path, headerBytes, dataBytes, tensors } : { path, headerBytes, dataBytes, tensors, metadata };
}
