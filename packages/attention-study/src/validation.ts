/**
 * The published claims of the NUMA-aware attention study (FA2 forward in Triton on one
 * MI300X, L2 hit rate from ROCProfiler aggregated over all XCDs), checked against what the
 * simulator *predicts* on the `mi300x` backend. Nothing here is fitted: each claim is
 * turned into a test of the prediction with a tolerance chosen for the kind of claim, and
 * the rows say what came out, pass or fail.
 *
 * Source: "Optimizing Attention on GPUs by Exploiting GPU Architectural NUMA Effects"
 * (AMD / Duke, arXiv 2511.02132).
 */
import type { Backend } from '@fleet/core';
import type { AttentionPass, AttentionShape } from './decomposition.js';
import { ATTENTION_MAPPINGS, type AttentionMapping } from './mappings.js';
import { simulateAttention, type AttentionResult, type AttentionStudyOptions } from './study.js';

/** One claim: what was published beside what the simulator predicts. */
export interface AttentionValidationRow {
  /** Stable id of the claim (`NUMA_ATTENTION_CLAIMS`). */
  id: string;
  claim: string;
  published: string;
  predicted: string;
  ok: boolean;
}

/** The claims, as published (setup: BLOCK_M 128, BLOCK_N 64, head dim 128). */
export const NUMA_ATTENTION_CLAIMS = [
  { id: 'shf-hit-range', what: 'swizzled-head-first L2 hit rate stays high across the sweep', published: '0.80–0.97' },
  { id: 'max-speedup', what: 'throughput of swizzled-head-first over the block-first mappings, at most', published: '1.5×' },
  {
    id: 'few-heads-alike',
    what: 'with 8-16 heads and short contexts all four mappings perform about the same, L2 hit rates about 0.9',
    published: 'all alike, L2 ≈ 0.9',
  },
  { id: 'gap-grows', what: 'the block-first gap grows with heads, context length and batch', published: 'grows along each axis' },
  {
    id: 'gqa',
    what: 'GQA with 8 KV heads (32/64/128 query heads): swizzled-block-first is as good as swizzled-head-first; naive-block-first degrades',
    published: 'SBF = SHF; NBF worse',
  },
  { id: 'deepseek', what: 'DeepSeek-V3 prefill MHA (128 heads, head dim 56): swizzled-head-first best at long context', published: 'SHF best at 128K' },
  { id: 'backward', what: 'FA2 backward, 128 heads, 128K context: swizzled-head-first 1.10x over naive-block-first', published: '1.10×' },
] as const;

/** Tolerances, fixed per kind of claim before looking at predictions. */
const TOL = {
  /** Hit-rate ranges: counters and run-to-run noise. */
  hitRate: 0.02,
  /** A published speed-up s: the predicted gain (x − 1) within half of the published gain (s − 1) of it. */
  gain: 0.5,
  /** "About the same" / "as good as": within 3 % throughput. */
  alike: 0.03,
  /** "About 0.9": ± 0.1. */
  about: 0.1,
} as const;

const K = 1024;

export interface AttentionValidationOptions extends AttentionStudyOptions {
  /** Called before each simulated (shape, mapping), `attentionValidationPoints()` times in all. */
  tick?: (label: string) => void;
}

/** How many simulations `attentionValidation` runs (for progress bars). */
export function attentionValidationPoints(): number {
  return validationPlan().total;
}

/**
 * Predict each claim on the `mi300x` backend among `backends` and compare. Rows come in
 * the order of `NUMA_ATTENTION_CLAIMS`; without an `mi300x` backend every row fails with
 * the reason.
 */
export function attentionValidation(backends: readonly Backend[], options: AttentionValidationOptions = {}): AttentionValidationRow[] {
  const backend = backends.find((b) => b.name === 'mi300x');
  if (!backend) {
    return NUMA_ATTENTION_CLAIMS.map((c) => ({
      id: c.id,
      claim: c.what,
      published: c.published,
      predicted: 'not predicted: backend mi300x is not loaded',
      ok: false,
    }));
  }
  const plan = validationPlan();
  const cache = new Map<string, AttentionResult>();
  const run = (s: AttentionShape, m: AttentionMapping): AttentionResult => {
    const key = jobKey(s, m);
    let r = cache.get(key);
    if (!r) {
      options.tick?.(`mi300x ${m} ${shapeLabel(s)}${s.pass === 'bwd' ? ' bwd' : ''}`);
      r = simulateAttention(backend, s, m, options);
      cache.set(key, r);
    }
    return r;
  };
  const speedup = (s: AttentionShape, m: AttentionMapping) => run(s, m).timeMs / run(s, 'swizzled-head-first').timeMs;
  const rows: AttentionValidationRow[] = [];
  const claim = (id: (typeof NUMA_ATTENTION_CLAIMS)[number]['id']) => NUMA_ATTENTION_CLAIMS.find((c) => c.id === id)!;

  // 1. SHF hit rate over the MHA sweep.
  {
    const hits = plan.mha.map((s) => run(s, 'swizzled-head-first').l2HitRate);
    const lo = Math.min(...hits);
    const hi = Math.max(...hits);
    const c = claim('shf-hit-range');
    rows.push({
      id: c.id,
      claim: c.what,
      published: c.published,
      predicted: `${f2(lo)}–${f2(hi)} over ${hits.length} MHA points (${describeGrid(plan.mha)})`,
      ok: lo >= 0.8 - TOL.hitRate && hi <= 0.97 + TOL.hitRate,
    });
  }
  // 2. Largest speed-up of SHF over either block-first mapping.
  {
    let best = 0;
    let where = '';
    for (const s of plan.mha)
      for (const m of ['naive-block-first', 'swizzled-block-first'] as const) {
        const x = speedup(s, m);
        if (x > best + 1e-9) {
          best = x;
          where = `${m}, ${shapeLabel(s)}`;
        }
      }
    const c = claim('max-speedup');
    rows.push({ id: c.id, claim: c.what, published: c.published, predicted: `${best.toFixed(2)}× (${where})`, ok: gainAgrees(best, 1.5) });
  }
  // 3. Few heads, short context.
  {
    let worstTime = 0;
    let lo = 1;
    let hi = 0;
    for (const s of plan.fewHeads)
      for (const m of ATTENTION_MAPPINGS) {
        worstTime = Math.max(worstTime, Math.abs(speedup(s, m) - 1));
        lo = Math.min(lo, run(s, m).l2HitRate);
        hi = Math.max(hi, run(s, m).l2HitRate);
      }
    const c = claim('few-heads-alike');
    rows.push({
      id: c.id,
      claim: c.what,
      published: c.published,
      predicted: `times within ${(worstTime * 100).toFixed(1)}% of each other, L2 ${f2(lo)}–${f2(hi)} (${describeGrid(plan.fewHeads)})`,
      ok: worstTime <= TOL.alike && lo >= 0.9 - TOL.about && hi <= 0.9 + TOL.about,
    });
  }
  // 4. Gap along each axis, through the middle of the grid.
  {
    const gap = (s: AttentionShape) => speedup(s, 'naive-block-first');
    const parts: string[] = [];
    let ok = true;
    for (const [axis, line] of Object.entries(plan.gapLines)) {
      const g = line.map(gap);
      const grows = g.every((x, i) => i === 0 || x >= g[i - 1]! - 0.01) && g[g.length - 1]! > g[0]! + 0.01;
      ok &&= grows;
      parts.push(`${axis} ${g.map((x) => x.toFixed(2)).join('→')}${grows ? '' : ' (does not grow)'}`);
    }
    const c = claim('gap-grows');
    rows.push({ id: c.id, claim: c.what, published: c.published, predicted: `NBF time / SHF time: ${parts.join('; ')}`, ok });
  }
  // 5. GQA.
  {
    let sbfWorst = 0;
    let nbfHit = 0;
    let shfHit = 0;
    let nbfSlowest = 1;
    for (const s of plan.gqa) {
      sbfWorst = Math.max(sbfWorst, Math.abs(speedup(s, 'swizzled-block-first') - 1));
      nbfSlowest = Math.max(nbfSlowest, speedup(s, 'naive-block-first'));
      nbfHit += run(s, 'naive-block-first').l2HitRate / plan.gqa.length;
      shfHit += run(s, 'swizzled-head-first').l2HitRate / plan.gqa.length;
    }
    const c = claim('gqa');
    rows.push({
      id: c.id,
      claim: c.what,
      published: c.published,
      predicted: `SBF within ${(sbfWorst * 100).toFixed(1)}% of SHF; mean L2 NBF ${f2(nbfHit)} vs SHF ${f2(shfHit)}, NBF up to ${nbfSlowest.toFixed(2)}× slower (${describeGrid(plan.gqa)})`,
      ok: sbfWorst <= TOL.alike && nbfHit < shfHit - 0.05,
    });
  }
  // 6. DeepSeek-V3 at long context.
  {
    let ok = true;
    let best = 0;
    let worst = Infinity;
    for (const s of plan.deepseek)
      for (const m of ATTENTION_MAPPINGS) {
        if (m === 'swizzled-head-first') continue;
        const relative = 1 / speedup(s, m);
        best = Math.max(best, relative);
        worst = Math.min(worst, relative);
        ok &&= relative <= 1.005 && run(s, m).l2HitRate <= run(s, 'swizzled-head-first').l2HitRate + 1e-9;
      }
    const shf = plan.deepseek.map((s) => run(s, 'swizzled-head-first').l2HitRate);
    const c = claim('deepseek');
    rows.push({
      id: c.id,
      claim: c.what,
      published: c.published,
      predicted: `SHF L2 ${f2(Math.min(...shf))}–${f2(Math.max(...shf))}, the highest; other mappings reach ${worst.toFixed(2)}–${best.toFixed(2)}× its throughput (${describeGrid(plan.deepseek)})`,
      ok,
    });
  }
  // 7. Backward.
  {
    const xs = plan.backward.map((s) => speedup(s, 'naive-block-first'));
    const c = claim('backward');
    rows.push({
      id: c.id,
      claim: c.what,
      published: c.published,
      predicted: plan.backward.map((s, i) => `${xs[i]!.toFixed(2)}× at batch ${s.batch}`).join(', '),
      ok: xs.some((x) => gainAgrees(x, 1.1)),
    });
  }
  return rows;
}

function jobKey(s: AttentionShape, m: AttentionMapping): string {
  return `${s.pass}/${s.seq}/${s.batch}/${s.heads}/${s.kvHeads}/${s.headDim}/${m}`;
}

function shape(seq: number, batch: number, heads: number, kvHeads = heads, headDim = 128, pass: AttentionPass = 'fwd'): AttentionShape {
  return { seq, batch, heads, kvHeads, headDim, pass };
}

/** The points each claim is checked on (the paper's axes; middle values where a claim fixes the others). */
function validationPlan() {
  const seqs = [8 * K, 32 * K, 128 * K];
  const mha: AttentionShape[] = [];
  for (const seq of seqs) for (const batch of [1, 8]) for (const heads of [8, 32, 128]) mha.push(shape(seq, batch, heads));
  const fewHeads = [8, 16].flatMap((h) => [1, 2].map((b) => shape(8 * K, b, h)));
  const gapLines = {
    heads: [8, 16, 32, 64, 128].map((h) => shape(32 * K, 4, h)),
    context: seqs.map((s) => shape(s, 4, 64)),
    batch: [1, 2, 4, 8].map((b) => shape(32 * K, b, 64)),
  };
  const gqa = seqs.flatMap((seq) => [1, 8].flatMap((b) => [32, 64, 128].map((h) => shape(seq, b, h, 8))));
  const deepseek = [1, 2, 4, 8].map((b) => shape(128 * K, b, 128, 128, 56));
  const backward = [1, 8].map((b) => shape(128 * K, b, 128, 128, 128, 'bwd'));
  const jobs = new Set<string>();
  const add = (shapes: AttentionShape[], mappings: readonly AttentionMapping[]) => {
    for (const s of shapes) for (const m of mappings) jobs.add(jobKey(s, m));
  };
  add(mha, ['naive-block-first', 'swizzled-block-first', 'swizzled-head-first']);
  add(fewHeads, ATTENTION_MAPPINGS);
  add(Object.values(gapLines).flat(), ['naive-block-first', 'swizzled-head-first']);
  add(gqa, ['naive-block-first', 'swizzled-block-first', 'swizzled-head-first']);
  add(deepseek, ATTENTION_MAPPINGS);
  add(backward, ['naive-block-first', 'swizzled-head-first']);
  return { mha, fewHeads, gapLines, gqa, deepseek, backward, total: jobs.size };
}

function gainAgrees(predicted: number, published: number): boolean {
  return Math.abs(predicted - published) <= TOL.gain * (published - 1);
}

function f2(x: number): string {
  return x.toFixed(3);
}

function shapeLabel(s: AttentionShape): string {
  return `seq ${s.seq / K}K, batch ${s.batch}, ${s.heads}${s.kvHeads !== s.heads ? `/${s.kvHeads}` : ''} heads, d ${s.headDim}`;
}

function describeGrid(shapes: readonly AttentionShape[]): string {
  const vals = <T>(f: (s: AttentionShape) => T) => [...new Set(shapes.map(f))];
  return `seq ${vals((s) => `${s.seq / K}K`).join('/')}, batch ${vals((s) => s.batch).join('/')}, heads ${vals((s) => s.heads).join('/')}`;
}
