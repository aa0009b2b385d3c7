/**
 * A sweep's output file (JSON Lines or CSV): results are appended as they arrive, so an
 * interrupted sweep keeps what it finished; a rerun reads the file back to skip those jobs,
 * and a finished sweep rewrites it in job order, so the same spec gives the same bytes.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { inputError } from '@fleet/core';
import { csvField } from '../format/csv.js';
import { RAW_FIELDS } from '../format/columns.js';
import { SWEEP_AXES } from './axes.js';
import type { SweepResult } from './runner.js';

export const SWEEP_FORMATS = ['jsonl', 'csv'] as const;
export type SweepFormat = (typeof SWEEP_FORMATS)[number];

/** CSV columns: id, every parameter (under its result-line name), then every other field of the comparison row (the JSON contract's). */
export function sweepCsvColumns(): string[] {
  const params = SWEEP_AXES.map((a) => a.rowField ?? a.param);
  return ['id', ...params, ...RAW_FIELDS.filter((f) => !params.includes(f))];
}

/** One result in the file's format (no line ending). */
export function formatResult(format: SweepFormat, r: SweepResult): string {
  if (format === 'jsonl') return JSON.stringify(r);
  return sweepCsvColumns()
    .map((c) => {
      const v = r[c];
      return csvField(v === null || v === undefined ? undefined : typeof v === 'number' ? v : String(v));
    })
    .join(',');
}

const EOL: Record<SweepFormat, string> = { jsonl: '\n', csv: '\r\n' };

/** A result already in the file: its job id and its text as written. */
interface Kept {
  id: string;
  text: string;
}

export class SweepOutput {
  private readonly kept: Kept[];
  private readonly fresh = new Map<string, string>();

  /** Open `path` for a sweep, reading back the results already there (unreadable lines dropped). */
  constructor(
    readonly path: string,
    readonly format: SweepFormat,
  ) {
    this.kept = existsSync(path) ? readResults(path, format) : [];
    // Rewrite at once: a line cut short by a kill must not run into the next one appended.
    this.rewrite(this.kept.map((k) => k.text));
  }

  /** Ids of the results already in the file. */
  doneIds(): Set<string> {
    return new Set(this.kept.map((k) => k.id));
  }

  /** Append one result now (it survives the sweep being killed). */
  append(r: SweepResult): void {
    const text = formatResult(this.format, r);
    this.fresh.set(r.id, text);
    writable(this.path, () => appendFileSync(this.path, text + EOL[this.format]));
  }

  /**
   * Rewrite the file in `order` (job ids): results of other jobs (from an earlier, different
   * spec) follow in the order they were in.
   */
  finish(order: readonly string[]): void {
    const byId = new Map<string, string>(this.kept.map((k) => [k.id, k.text]));
    for (const [id, text] of this.fresh) byId.set(id, text);
    const inSpec = new Set(order);
    const lines = order.filter((id) => byId.has(id)).map((id) => byId.get(id)!);
    for (const k of this.kept) if (!inSpec.has(k.id)) lines.push(k.text);
    this.rewrite(lines);
  }

  private rewrite(lines: readonly string[]): void {
    const header = this.format === 'csv' ? [sweepCsvColumns().join(',')] : [];
    const all = [...header, ...lines];
    const tmp = `${this.path}.tmp-${process.pid}`;
    // Write then rename: the file is never half-written.
    writable(this.path, () => {
      writeFileSync(tmp, all.length > 0 ? all.join(EOL[this.format]) + EOL[this.format] : '');
      renameSync(tmp, this.path);
    });
  }
}

/** Run a write to `--out`; a missing or unwritable place is bad input (exit 2) naming the flag, not an internal error. */
export function writable<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === undefined) throw e;
    const why: Record<string, string> = {
      ENOENT: 'its folder does not exist',
      EACCES: 'permission denied',
      EROFS: 'read-only file system',
      EISDIR: 'it is a folder',
      ENOTDIR: 'a part of the path is not a folder',
    };
    throw inputError(`--out: cannot write ${path}: ${why[code] ?? code}`);
  }
}

/** Results already in a sweep output file, first of each id kept; a torn last record dropped. */
export function readResults(path: string, format: SweepFormat): Kept[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw inputError(`--out: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const out: Kept[] = [];
  const seen = new Set<string>();
  const keep = (id: string, raw: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ id, text: raw });
  };
  if (format === 'jsonl') {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let r: unknown;
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      const id = (r as { id?: unknown } | null)?.id;
      if (typeof id !== 'string') throw inputError(`--out: ${path} is not a fleet sweep output (a line has no "id"); choose another file`);
      keep(id, line);
    }
    return out;
  }
  const records = csvRecords(text);
  if (records.length === 0) return out;
  if (records[0]!.raw !== sweepCsvColumns().join(',')) throw inputError(`--out: ${path} is not a fleet sweep CSV (its header differs); choose another file`);
  for (const rec of records.slice(1)) if (rec.complete && rec.fields.length === sweepCsvColumns().length) keep(rec.fields[0]!, rec.raw);
  return out;
}

/** Split RFC 4180 text into records (quoted fields may hold commas and line breaks). */
function csvRecords(text: string): { raw: string; fields: string[]; complete: boolean }[] {
  const out: { raw: string; fields: string[]; complete: boolean }[] = [];
  let start = 0;
  let field = '';
  let fields: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || (c === '\r' && text[i + 1] === '\n')) {
      fields.push(field);
      out.push({ raw: text.slice(start, i), fields, complete: true });
      if (c === '\r') i++;
      start = i + 1;
      field = '';
      fields = [];
    } else field += c;
  }
  if (start < text.length) out.push({ raw: text.slice(start), fields: [...fields, field], complete: false });
  return out;
}
