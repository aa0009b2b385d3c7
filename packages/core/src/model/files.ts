import * as fs from 'node:fs';
import { FleetError } from '../errors/fleet-error.js';
import { lineError, oneLine } from './messages.js';

/**
 * Opening what a user names as a model file, safely: a FIFO or a terminal would block the
 * open or the read forever, and `/dev/zero` (or a checkpoint shard passed as `config.json`)
 * would be read whole into memory. Only regular files are opened, and text is read up to a
 * bound.
 */

/** `stat` of `path` (following links), refusing anything that is not a regular file. */
export function statRegularFile(path: string): fs.Stats {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(path);
  } catch (e) {
    throw lineError(`${path}: cannot access: ${oneLine(e)}`);
  }
  if (!stat.isFile()) throw lineError(`${path}: is a ${kind(stat)}; it must be a regular file`);
  return stat;
}

function kind(s: fs.Stats): string {
  if (s.isDirectory()) return 'directory';
  if (s.isFIFO()) return 'named pipe';
  if (s.isCharacterDevice()) return 'character device';
  if (s.isBlockDevice()) return 'block device';
  if (s.isSocket()) return 'socket';
  return 'special file';
}

/** Open a regular file for reading (FIFOs, devices and directories refused), one-line errors. */
export function openRegularFile(path: string): number {
  statRegularFile(path);
  try {
    return fs.openSync(path, 'r');
  } catch (e) {
    throw lineError(`${path}: cannot open: ${oneLine(e)}`);
  }
}

/** The UTF-8 text of a regular file of at most `maxBytes` (files that report size 0, as in /proc, included). */
export function readBoundedText(path: string, maxBytes: number, what: string): string {
  const stat = statRegularFile(path);
  if (stat.size > maxBytes) throw lineError(`${path}: ${stat.size} bytes is too large for ${what} (at most ${maxBytes})`);
  return readOpenFile(path, (fd) => {
    const chunk = Buffer.alloc(65536);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw lineError(`${path}: more than ${maxBytes} bytes is too large for ${what}`);
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  });
}

/**
 * Open the regular file `path`, hand its descriptor to `read` and close it in every case; an
 * error that is not already a one-line `FleetError` becomes "cannot read".
 */
export function readOpenFile<T>(path: string, read: (fd: number) => T): T {
  const fd = openRegularFile(path);
  try {
    return read(fd);
  } catch (e) {
    if (e instanceof FleetError) throw e;
    throw lineError(`${path}: cannot read: ${oneLine(e)}`);
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      // What was read is read, or a better error is on its way.
    }
  }
}
