import { Option, type Command } from 'commander';
import { inputError } from '@fleet/core';
import {
  ATTENTION_MAPPINGS,
  REFERENCE_MAPPING,
  compareMappings,
  isAttentionMapping,
  paperSweep,
  type AttentionMapping,
  type AttentionPass,
  type AttentionResult,
  type AttentionShape,
  type AttentionStudyOptions,
  type SweepPoint,
} from '@fleet/attention-study';
import { loadBackends } from '../backends.js';
import { parseInt1 } from '../compare.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';

/** Short column names of the mappings, in table order. */
const SHORT: Record<AttentionMapping, string> = {
  'naive-block-first': 'NBF',
  'swizzled-block-first': 'SBF',
  'naive-head-first': 'NHF',
  'swizzled-head-first': 'SHF',
};

interface Row extends AttentionResult {
  family?: SweepPoint['family'];
}

/**
 * `fleet attention`: how mapping FlashAttention-2 workgroups onto partitions (XCDs) decides
 * L2 reuse and time, for one configuration or the paper's sweep.
 */
export function registerAttention(program: Command, io: Io): void {
  program
    .command('attention')
    .description('FlashAttention-2 workgroup mappings on chiplet GPUs: L2 hit rate and time per mapping')
    .option('--backend <name>', 'backend to simulate', 'mi300x')
    .option('--mapping <list>', `comma-separated mappings (${ATTENTION_MAPPINGS.join(', ')})`, ATTENTION_MAPPINGS.join(','))
    .option('--heads <n>', 'query heads', '128')
    .option('--kv-heads <n>', 'KV heads (default: --heads, i.e. MHA)')
    .option('--seq <n>', 'sequence length (N_CTX)', '32768')
    .option('--batch <n>', 'batch size', '1')
    .option('--head-dim <n>', 'head dimension', '128')
    .addOption(new Option('--pass <pass>', 'forward or backward kernel').choices(['fwd', 'bwd']).default('fwd'))
    .option('--sweep', "the paper's grid: N_CTX 8K/32K/128K × batch 1-8 × MHA 8-128 heads, GQA (8 KV heads), DeepSeek-V3 (128 heads, d 56)")
    .option('--exact', 'no sampling: look up every step and simulate every workgroup (slow for large grids)')
    .option('--json', 'machine-readable output')
    .action(async (o) => {
      const registry = await loadBackends(io.cwd);
      const backend = registry.get(o.backend);
      const mappings = parseMappings(o.mapping);
      const pass = o.pass as AttentionPass;
      const shapes: (AttentionShape & { family?: SweepPoint['family'] })[] = o.sweep ? paperSweep(pass) : [singleShape(o, pass)];
      const study: AttentionStudyOptions = o.exact ? { stepSample: 1, prefix: Number.MAX_SAFE_INTEGER, partitions: Number.MAX_SAFE_INTEGER } : {};
      const bar = progress(io, shapes.length);
      const rows: Row[] = [];
      for (const s of shapes) {
        bar.tick(`${s.seq / 1024}K b${s.batch} h${s.heads}/${s.kvHeads} d${s.headDim}`);
        for (const r of compareMappings(backend, s, mappings, study)) rows.push({ ...(s.family ? { family: s.family } : {}), ...r });
      }
      bar.stop();
      const note = samplingNote(rows);
      if (o.json) {
        const results = rows.map(jsonRow);
        io.out(`${JSON.stringify({ schemaVersion: 1, backend: backend.name, pass, reference: REFERENCE_MAPPING, sampling: { note }, results }, null, 2)}\n`);
        return;
      }
      const header = `${backend.name}, FA2 ${pass === 'fwd' ? 'forward' : 'backward'}, BLOCK_M 128, BLOCK_N 64; time relative to ${REFERENCE_MAPPING}`;
      const details = rows.length > 1 ? ' Per-result details: --json (sampled.note).' : '';
      io.out(`${header}\n\n${o.sweep ? sweepTable(rows, mappings) : pointTable(rows)}\n\n${note}${details}\n`);
    });
}

function parseMappings(value: string): AttentionMapping[] {
  const out: AttentionMapping[] = [];
  for (const part of value.split(',').map((s) => s.trim())) {
    if (!isAttentionMapping(part)) throw inputError(`--mapping: unknown mapping '${part}' (known: ${ATTENTION_MAPPINGS.join(', ')})`);
    if (!out.includes(part)) out.push(part);
  }
  return out;
}

function singleShape(o: Record<string, string>, pass: AttentionPass): AttentionShape {
  const heads = parseInt1('--heads', o.heads!, 1, 1024);
  const kvHeads = o.kvHeads === undefined ? heads : parseInt1('--kv-heads', o.kvHeads, 1, 1024);
  if (heads % kvHeads !== 0) throw inputError(`--kv-heads: ${kvHeads} does not divide --heads ${heads}`);
  return {
    heads,
    kvHeads,
    seq: parseInt1('--seq', o.seq!, 1, 4_194_304),
    batch: parseInt1('--batch', o.batch!, 1, 1024),
    headDim: parseInt1('--head-dim', o.headDim!, 8, 512),
    pass,
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** The JSON contract (`backend, mapping, heads, kvHeads, seq, batch, headDim, l2HitRate, timeMs`) plus details. */
function jsonRow(r: Row) {
  return {
    backend: r.backend,
    mapping: r.mapping,
    ...(r.family ? { family: r.family } : {}),
    pass: r.pass,
    heads: r.heads,
    kvHeads: r.kvHeads,
    seq: r.seq,
    batch: r.batch,
    headDim: r.headDim,
    l2HitRate: round(r.l2HitRate, 4),
    timeMs: round(r.timeMs, 4),
    relativeThroughput: round(r.relativeThroughput ?? NaN, 4),
    tflops: round(r.tflops, 1),
    ...(r.llcHitRate !== undefined ? { llcHitRate: round(r.llcHitRate, 4) } : {}),
    hbmReadBytes: Math.round(r.hbmReadBytes),
    hbmWriteBytes: Math.round(r.hbmWriteBytes),
    sampled: r.sampled,
  };
}

function align(header: string[], body: string[][], leftColumns: number): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function pointTable(rows: readonly Row[]): string {
  const header = ['mapping', 'L2 hit', 'time ms', 'time/SHF', 'TFLOP/s', 'LLC hit', 'HBM rd GB'];
  const body = rows.map((r) => [
    r.mapping,
    pct(r.l2HitRate),
    r.timeMs.toFixed(3),
    (1 / r.relativeThroughput!).toFixed(3),
    r.tflops.toFixed(0),
    r.llcHitRate === undefined ? '-' : pct(r.llcHitRate),
    (r.hbmReadBytes / 1e9).toFixed(2),
  ]);
  const s = rows[0]!;
  return `seq ${s.seq}, batch ${s.batch}, heads ${s.heads}, KV heads ${s.kvHeads}, head dim ${s.headDim}\n\n${align(header, body, 1)}`;
}

function sweepTable(rows: readonly Row[], mappings: readonly AttentionMapping[]): string {
  const header = ['family', 'seq', 'batch', 'heads', 'kv', 'd', ...mappings.flatMap((m) => [`${SHORT[m]} L2`, `${SHORT[m]} t`])];
  const body: string[][] = [];
  for (let i = 0; i < rows.length; i += mappings.length) {
    const first = rows[i]!;
    const cells = [first.family ?? '', `${first.seq / 1024}K`, String(first.batch), String(first.heads), String(first.kvHeads), String(first.headDim)];
    for (const r of rows.slice(i, i + mappings.length)) cells.push(pct(r.l2HitRate), (1 / r.relativeThroughput!).toFixed(2));
    body.push(cells);
  }
  const legend = mappings.map((m) => `${SHORT[m]} = ${m}`).join(', ');
  return `${align(header, body, 1)}\n\n${legend}; "t" = time / ${REFERENCE_MAPPING} time (> 1: slower).`;
}

/** One line on what was sampled and extrapolated, over all rows. */
function samplingNote(rows: readonly Row[]): string {
  if (rows.length === 1) return `Sampling: ${rows[0]!.sampled.note}.`;
  const samples = [...new Set(rows.map((r) => r.sampled.stepSample))].sort((a, b) => a - b);
  const partitionSampled = rows.filter((r) => r.sampled.partitions < r.sampled.partitionsTotal).length;
  const extrapolated = rows.filter((r) => r.sampled.note.includes('extrapolated')).length;
  const parts = [
    samples.every((k) => k === 1)
      ? 'every K/V step looked up'
      : `1 in ${samples.join('/')} K/V steps looked up in caches scaled by the same factor (set sampling)`,
    partitionSampled > 0 ? `${partitionSampled} of ${rows.length} results simulate a few partitions for all (no head shared across partitions)` : '',
    extrapolated > 0
      ? `${extrapolated} of ${rows.length} launch the first waves only and extrapolate the steady state to the rest of the grid`
      : 'every workgroup launched',
  ].filter(Boolean);
  return `Sampling: ${parts.join('; ')}.`;
}
