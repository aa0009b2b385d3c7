/**
 * Tilus (Ding et al.): its low-bit GEMMs against cuBLAS fp16, as Figures 9, 10 and 13 and the
 * text's average speedups state them, on the paper's platform (L40S), on the H100 (the
 * relation carried over: the figures were not measured there) and on the A100 (a
 * prediction), plus our own H100 measurements of the comparators (cuBLAS fp16, a Triton
 * W4A16 GEMM). The figures' bar values are not in the paper's text: the rows check the
 * relations the text states, and the one speedup size it gives for a kernel Fleet models
 * (Triton, 1.75× on average). Nothing here sets a parameter.
 */
import type { Backend, KernelLibrary, ValidationRow } from '@fleet/core';
import { hopperKernelLibrary } from '@fleet/family-hopper';
import { sm80KernelLibrary } from '@fleet/family-ampere';
import { A100_SXM4_80GB } from '@fleet/backend-a100';
import { L40S } from '@fleet/backend-l40s';
import measured from './measured/h100-tilus-comparators-ours.json' with { type: 'json' };
import paper from './tilus-paper.json' with { type: 'json' };
import { GOAL_PCT, linearOpUs, rotatedCopies, row } from '../h100/validation.js';

const PAPER = 'Tilus (Ding et al.), /work/shared/seeds/003_a68d352eee2a8524.txt; packages/validation/src/tilus/tilus-paper.json';
const OURS = 'ours: bench/device/sweep.py on an H100 80GB HBM3, 2026-11-25 (packages/validation/src/tilus/measured/h100-tilus-comparators-ours.json)';

/** Backends the suite runs on, and what a relation from the paper means on each. */
export const TILUS_BACKENDS = ['l40s', 'h100', 'a100'] as const;
const ROLE: Record<(typeof TILUS_BACKENDS)[number], string> = {
  l40s: "the paper's platform",
  h100: "relation carried over from the paper's L40S figures",
  a100: 'prediction (no A100 figure)',
};

/**
 * A speedup that holds the claim "faster than cuBLAS fp16": above 1, and at most 16 — the
 * ratio of 16-bit to 1-bit weight bytes, past which no weight-bound kernel can go.
 */
const FASTER: [number, number] = [1, 16];

/** The Triton choice of a backend's library (the comparator the averages name). */
function tritonLibrary(backend: Backend): KernelLibrary | undefined {
  if (backend.name === 'h100') return hopperKernelLibrary('triton');
  if (backend.name === 'a100') return sm80KernelLibrary(A100_SXM4_80GB, backend.topology, 'triton');
  if (backend.name === 'l40s') return sm80KernelLibrary(L40S, backend.topology, 'triton');
  return undefined;
}

function claim(experiment: string, predicted: number, source = PAPER): ValidationRow {
  return { ...row(experiment, 'claim', FASTER, predicted, '× over cuBLAS fp16', 0, source), suite: 'tilus' };
}

/** Weight type of a figure's type name, group 128 (u1 takes its zero point). */
const weights = (t: string) => `${t}g${paper.group}`;

/** The parts of the suite on one backend. */
export type TilusPart = 'fig9' | 'fig10' | 'fig13' | 'triton';
const ALL_PARTS: readonly TilusPart[] = ['fig9', 'fig10', 'fig13', 'triton'];

/** Rows of the suite on one backend (`parts`: a subset, for tests). */
export function tilusBackendRows(backend: Backend, tick: (label: string) => void = () => {}, parts: readonly TilusPart[] = ALL_PARTS): ValidationRow[] {
  const role = ROLE[backend.name as (typeof TILUS_BACKENDS)[number]] ?? 'prediction';
  const rows: ValidationRow[] = [];
  const dense = new Map<string, number>();
  const denseUs = (m: number, n: number, k: number) => {
    const key = `${m}x${n}x${k}`;
    if (!dense.has(key)) dense.set(key, linearOpUs(backend, m, n, k).us);
    return dense.get(key)!;
  };
  const speedup = (m: number, n: number, k: number, w: string, lib?: KernelLibrary) => denseUs(m, n, k) / linearOpUs(backend, m, n, k, weights(w), lib).us;

  // Figure 9: six types, batch 1 and 16, Llama-3.3-70B's linears.
  if (parts.includes('fig9'))
    for (const s of paper.llama33_70b.shapes)
      for (const m of paper.fig9.batches)
        for (const t of paper.fig9.types) {
          tick(`${backend.name} fig9 ${t} ${s.op} m${m}`);
          rows.push(claim(`${backend.name} (${role}): Fig. 9 ${t} M=${m} ${s.op} N=${s.n} K=${s.k} faster than cuBLAS fp16`, speedup(m, s.n, s.k, t)));
        }
  // Figure 10: every type at M = 16, N = 57344, K = 8192.
  const f10 = paper.fig10;
  for (const t of parts.includes('fig10') ? f10.types : []) {
    tick(`${backend.name} fig10 ${t}`);
    rows.push(claim(`${backend.name} (${role}): Fig. 10 ${t} M=${f10.m} N=${f10.n} K=${f10.k} faster than cuBLAS fp16`, speedup(f10.m, f10.n, f10.k, t)));
  }
  // Figure 13: f6e3m2 and u4 over decode and prefill batches.
  const f13 = paper.fig13;
  for (const t of parts.includes('fig13') ? f13.types : [])
    for (const m of [...f13.decode, ...f13.prefill]) {
      tick(`${backend.name} fig13 ${t} m${m}`);
      const stage = f13.prefill.includes(m) ? 'prefill' : 'decode';
      rows.push(claim(`${backend.name} (${role}): Fig. 13 ${t} ${stage} M=${m} N=${f13.n} K=${f13.k} no slower than cuBLAS fp16`, speedup(m, f13.n, f13.k, t)));
    }
  // The text's average over Triton (abstract, §1): Tilus against the Triton choice on the
  // integer types of Figure 9 (Triton's W4A16 kernels unpack integer codes), both batches.
  const triton = tritonLibrary(backend);
  if (triton && parts.includes('triton')) {
    const ratios: number[] = [];
    for (const s of paper.llama33_70b.shapes)
      for (const m of paper.fig9.batches)
        for (const t of paper.fig9.types.filter((x) => !x.startsWith('f'))) {
          tick(`${backend.name} triton ${t} ${s.op} m${m}`);
          ratios.push(linearOpUs(backend, m, s.n, s.k, weights(t), triton).us / linearOpUs(backend, m, s.n, s.k, weights(t)).us);
        }
    const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
    rows.push({
      ...row(
        `${backend.name} (${role}): Tilus over Triton, mean of Fig. 9's integer types × Llama-3.3-70B linears × batch 1, 16 (the text's 1.75× average; its kernel set is not listed)`,
        'claim',
        paper.averages.triton,
        mean,
        '×',
        paper.averages.tolerancePct,
        PAPER,
      ),
      suite: 'tilus',
    });
  }
  return rows;
}

/** Our H100 measurements of the comparators: cuBLAS fp16 and a Triton W4A16 GEMM (group 128, symmetric). */
export function tilusMeasuredRows(backend: Backend, tick: (label: string) => void = () => {}): ValidationRow[] {
  const triton = tritonLibrary(backend);
  return measured.rows
    .filter((r) => r.impl === 'cublas-float16' || r.impl === 'triton-w4a16')
    .map((r) => {
      tick(`${r.impl} m${r.m} n${r.n}`);
      const isTriton = r.impl === 'triton-w4a16';
      // sweep.py's tilus section: one graph of a call per copy of the weights (enough copies for
      // 256 MB, 2 to 8), each call with its share of the graph's launch
      const calls = rotatedCopies(isTriton ? (r.n * r.k) / 2 : r.n * r.k * 2, 8);
      const p = isTriton
        ? linearOpUs(backend, r.m, r.n, r.k, 'u4g128', triton, calls)
        : linearOpUs(backend, r.m, r.n, r.k, 'bf16', backend.kernelLibrary, calls);
      const what = isTriton ? 'Triton W4A16 g128 GEMM (Triton split-K choice)' : 'cuBLAS fp16 GEMM';
      return { ...row(`h100 ${what} M=${r.m} N=${r.n} K=${r.k}`, 'measurement', r.usPerCall, p.us, 'µs', GOAL_PCT, OURS), suite: 'tilus' };
    });
}

export function tilusValidationPoints(): number {
  const perBackend =
    paper.llama33_70b.shapes.length * paper.fig9.batches.length * paper.fig9.types.length +
    paper.fig10.types.length +
    paper.fig13.types.length * (paper.fig13.decode.length + paper.fig13.prefill.length) +
    1;
  return TILUS_BACKENDS.length * perBackend + measured.rows.filter((r) => r.impl === 'cublas-float16' || r.impl === 'triton-w4a16').length;
}

/** The whole suite over the three backends. */
export function tilusValidation(backends: Record<(typeof TILUS_BACKENDS)[number], Backend>, tick: (label: string) => void = () => {}): ValidationRow[] {
  return [...TILUS_BACKENDS.flatMap((b) => tilusBackendRows(backends[b], tick)), ...tilusMeasuredRows(backends.h100, tick)];
}
