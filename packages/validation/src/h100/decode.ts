/**
 * The decode suites: FlashAttention-2's split-KV decode attention (flash-decoding) beside our
 * own sweeps (bench/device/sweep.py) — the kernel alone over batch × KV length × (query, KV)
 * heads, and Qwen3-4B/8B/14B/32B-shaped decode steps in one CUDA graph, with attention split
 * (q [B, Hq, 1, D], the FLASH backend) or as grouped query rows (cuDNN, unsplit).
 * - `h100-decode` (measured/h100-decode-ours.json): three attention points set
 *   FlashAttention-2's fixed times and the unsplit kernel's rate (family-hopper's
 *   flash-decoding.ts) and are listed as calibration; the rest are predictions.
 *   Head dims 64 and 256 (measured/h100-headdim-ours.json; on the H200
 *   ../h200/measured/h200-headdim-ours.json) are predictions in both suites.
 * - `h200-decode` (../h200/measured/h200-decode-ours.json): the same script on an
 *   H200, which Fleet prices with the H100's kernel calibration and the H200's own HBM
 *   microbenchmarks: every row is a prediction.
 * All were timed with CUPTI torn down after each profiled point (bench/device/README.md: a
 * finished profiler session left attached slowed later replays by up to 14%).
 */
import { buildDecodeGraph, loadModel, simulateGraph, type Backend, type ModelSpec, type ValidationRow } from '@fleet/core';
import { flashDecodeSplits } from '@fleet/family-hopper';
import * as ops from '@fleet/ops';
import h200Sweep from '../h200/measured/h200-decode-ours.json' with { type: 'json' };
import h100Sweep from './measured/h100-decode-ours.json' with { type: 'json' };
import h200HeadDim from '../h200/measured/h200-headdim-ours.json' with { type: 'json' };
import h100HeadDim from './measured/h100-headdim-ours.json' with { type: 'json' };
import h100HeadDim96 from './measured/h100-headdim96-ours.json' with { type: 'json' };
import { GOAL_PCT, graphLaunchShareNs, groupedRows, rotatedCopies, row, type H100ValidationOptions } from './validation.js';

type DecodeSweep = typeof h100Sweep;

/** One device's decode measurements and which of its points set parameters. */
interface DecodeData {
  suite: string;
  sweep: DecodeSweep;
  source: string;
  calibration: ReadonlySet<string>;
  /**
   * The head-dim sweeps on the same GPU (head dims 64, 256 and others; 128 is in `sweep`), each
   * row with its source; rows at `calibrationDims` set parameters.
   */
  headDim: {
    rows: readonly (Omit<(typeof h100HeadDim.rows)[number], 'usPerCallRepeat'> & { source?: string })[];
    source: string;
    calibrationDims?: ReadonlySet<number>;
  };
}

const H100: DecodeData = {
  suite: 'h100-decode',
  sweep: h100Sweep,
  source:
    'ours: bench/device/sweep.py on an H100 80GB HBM3, 2026-11-27, no profiler session attached while timing (packages/validation/src/h100/measured/h100-decode-ours.json)',
  // the points that set flash-decoding.ts's parameters
  calibration: new Set(['32/8 b1 kv1024', '32/8 b1 kv4096', '32/8 b32 kv32768']),
  headDim: {
    rows: [
      ...h100HeadDim.rows,
      ...h100HeadDim96.rows.map((r) => ({
        ...r,
        source:
          'ours: bench/device/sweep.py --headdims=96,80 on an H100 80GB HBM3, 2026-11-28, no profiler session attached while timing (packages/validation/src/h100/measured/h100-headdim96-ours.json)',
      })),
    ],
    source:
      'ours: bench/device/sweep.py (headdim) on an H100 80GB HBM3, 2026-11-27, no profiler session attached while timing (packages/validation/src/h100/measured/h100-headdim-ours.json)',
    // which kernels head dims 80 and 96 run, and the unsplit kernel's block-rate exponent
    calibrationDims: new Set([80, 96]),
  },
};

const H200: DecodeData = {
  suite: 'h200-decode',
  sweep: h200Sweep,
  source:
    'ours: bench/device/sweep.py on an H200, 2026-11-27, no profiler session attached while timing (packages/validation/src/h200/measured/h200-decode-ours.json)',
  calibration: new Set(),
  headDim: {
    rows: h200HeadDim.rows,
    source:
      'ours: bench/device/sweep.py (headdim) on an H200, 2026-11-27, no profiler session attached while timing (packages/validation/src/h200/measured/h200-headdim-ours.json)',
  },
};

/**
 * Qwen3 dense shapes beside the 8B preset, from Qwen/Qwen3-4B, -14B and -32B's config.json; the
 * 4B as our bench built it, with its own LM head (the released model ties it to the embedding).
 */
export function qwen3Dense(name: string): ModelSpec {
  const base = loadModel('qwen3-8b');
  if (name === 'qwen3-4b') return { ...base, name, hiddenSize: 2560, numLayers: 36, numHeads: 32, intermediateSize: 9728 };
  if (name === 'qwen3-14b') return { ...base, name, hiddenSize: 5120, numLayers: 40, numHeads: 40, intermediateSize: 17408 };
  if (name === 'qwen3-32b') return { ...base, name, hiddenSize: 5120, numLayers: 64, numHeads: 64, intermediateSize: 25600 };
  return loadModel(name);
}

/**
 * Calls of one attention point in the graph bench/device/sweep.py replays (`attn_point`): its
 * K/V rotated over enough copies for 256 MB (2 to 32; one above 256 MB), the copies repeated up
 * to 8 calls.
 */
export function attentionGraphCalls(batch: number, kvHeads: number, kvLen: number, headDim = 128): number {
  const kvBytes = 2 * batch * kvHeads * kvLen * headDim * 2;
  const copies = kvBytes < 256e6 ? rotatedCopies(kvBytes, 32) : 1;
  return copies < 8 ? copies * Math.max(1, Math.floor(8 / copies)) : copies;
}

/**
 * Decode-attention time of one layer alone as a graph of `calls` such calls measures it per
 * call: its kernels and their graph gaps, and a `calls`-th of the graph's own launch, µs.
 */
export function decodeAttentionUs(backend: Backend, heads: number, kvHeads: number, batch: number, kvLen: number, headDim = 128, calls = 1): number {
  const model = { ...loadModel('qwen3-8b'), numHeads: heads, numKvHeads: kvHeads, headDim };
  const def = ops.KERNEL_PER_OP_GRAPH;
  const g = buildDecodeGraph(model, { batch, contextLen: kvLen - 1 });
  const att = g.ops.filter((o) => o.layer === 0 && o.kind === 'attention');
  const tg = def.compile({ ...g, ops: att }, backend, def.schedule, { layers: [0], library: backend.kernelLibrary, kernels: backend.tuning.kernels });
  return (simulateGraph(backend, tg, { launchMode: 'graph' }).timeNs + graphLaunchShareNs(backend, calls)) / 1000;
}

function attnRows(sweep: DecodeSweep, quick: boolean) {
  return sweep.attn.rows.filter((r) =>
    quick
      ? r.heads === 32 && r.kvHeads === 8 && r.batch === 1 && [4096, 32768].includes(r.kvLen)
      : [1024, 4096, 8192, 32768, 131072].includes(r.kvLen) && (r.heads === 32 && r.kvHeads === 8 ? true : [1, 4, 16, 64].includes(r.batch)),
  );
}

function e2eRows(sweep: DecodeSweep, quick: boolean) {
  return sweep.e2e.rows.filter((r) => !quick || (r.model === 'qwen3-8b' && r.layout === 'gqa' && r.batch === 1 && r.kvLen === 32768));
}

/** The head-dim sweeps' head dims other than 128 (which is in the main sweep). */
function headDimRows(data: DecodeData, quick: boolean) {
  return data.headDim.rows.filter((r) => r.headDim !== 128 && (!quick || (r.headDim === 64 && r.batch === 1 && r.kvLen === 32768)));
}

export function decodeValidationPoints(quick = false): number {
  return attnRows(H100.sweep, quick).length + headDimRows(H100, quick).length + e2eRows(H100.sweep, quick).length;
}

export function h200DecodeValidationPoints(quick = false): number {
  return attnRows(H200.sweep, quick).length + headDimRows(H200, quick).length + e2eRows(H200.sweep, quick).length;
}

export function h100DecodeValidation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return decodeValidation(backend, H100, opts);
}

export function h200DecodeValidation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return decodeValidation(backend, H200, opts);
}

function decodeValidation(backend: Backend, data: DecodeData, opts: H100ValidationOptions): ValidationRow[] {
  const { sweep, source, calibration } = data;
  const tick = opts.tick ?? (() => {});
  const quick = opts.quick ?? false;
  const rows: ValidationRow[] = [];
  const grouped = groupedRows(backend);
  for (const a of attnRows(sweep, quick)) {
    const key = `${a.heads}/${a.kvHeads} b${a.batch} kv${a.kvLen}`;
    tick(`flash decode ${key}`);
    const splits = flashDecodeSplits({ batch: a.batch, heads: a.heads, kvHeads: a.kvHeads, kvLen: a.kvLen, headDim: 128 });
    rows.push(
      row(
        `FlashAttention-2 decode ${a.heads}/${a.kvHeads} heads, batch ${a.batch}, KV ${a.kvLen}: ${splits} splits (measured grid: ${a.splits}) (kernels + graph gaps)`,
        calibration.has(key) ? 'calibration' : 'measurement',
        a.usPerCall,
        decodeAttentionUs(backend, a.heads, a.kvHeads, a.batch, a.kvLen, 128, attentionGraphCalls(a.batch, a.kvHeads, a.kvLen)),
        'µs',
        GOAL_PCT,
        source,
      ),
    );
  }
  for (const a of headDimRows(data, quick)) {
    tick(`decode attention d${a.headDim} ${a.layout} b${a.batch} kv${a.kvLen}`);
    const asRows = a.layout === 'rows';
    const how = asRows ? "cuDNN's unsplit kernel, the group's queries as rows" : 'FlashAttention-2 split-KV';
    rows.push(
      row(
        `decode attention, head dim ${a.headDim}, 32/8 heads, ${how}, batch ${a.batch}, KV ${a.kvLen} (kernels + graph gaps)`,
        data.headDim.calibrationDims?.has(a.headDim) ? 'calibration' : 'measurement',
        a.usPerCall,
        decodeAttentionUs(
          asRows ? grouped : backend,
          a.heads,
          a.kvHeads,
          a.batch,
          a.kvLen,
          a.headDim,
          attentionGraphCalls(a.batch, a.kvHeads, a.kvLen, a.headDim),
        ),
        'µs',
        GOAL_PCT,
        a.source ?? data.headDim.source,
      ),
    );
  }
  for (const d of e2eRows(sweep, quick)) {
    tick(`decode ${d.model} ${d.layout} b${d.batch} kv${d.kvLen}`);
    const b = d.layout === 'rows' ? grouped : backend;
    const how = d.layout === 'rows' ? 'SDPA as grouped query rows (cuDNN, unsplit)' : 'SDPA FlashAttention-2 split-KV';
    const p = ops.predictDecode(b, qwen3Dense(d.model), { policy: 'kernel-per-op-graph', batch: d.batch, prompt: d.kvLen - 1, decode: 1, positions: 1 });
    rows.push(
      row(`${d.model} decode TPOT, one CUDA graph, ${how}, batch ${d.batch}, KV ${d.kvLen}`, 'measurement', d.tpotMs, p.tpotMs, 'ms', GOAL_PCT, source),
    );
  }
  return rows.map((r) => ({ ...r, suite: data.suite }));
}
