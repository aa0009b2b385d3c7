#!/usr/bin/env node
/**
 * Benchmarks of the attention mapping study (run after `npx tsc -b packages/attention-study`):
 *   node packages/attention-study/bench/attention-study.mjs [--quick]
 *
 * 1. one 128K-context, 128-head, batch-8 point, all four mappings (goal: < 5 s);
 * 2. the paper's whole grid on MI300X, all mappings (goal: < 60 s on one core);
 * 3. what sampling costs in accuracy: default plans against unsampled, unextrapolated,
 *    all-partition simulations of moderate configurations;
 * 4. the headline configurations: predicted L2 hit rate and throughput relative to
 *    swizzled-head-first.
 * `--quick` skips 2.
 */
import { performance } from 'node:perf_hooks';
import { loadBackend } from '@fleet/core';
import mi300x from '@fleet/backend-mi300x';
import { ATTENTION_MAPPINGS, compareMappings, paperSweep, simulateAttention } from '../dist/index.js';

const backend = loadBackend(mi300x, 'bench');
const quick = process.argv.includes('--quick');
const shape = (seq, batch, heads, kvHeads = heads, headDim = 128, pass = 'fwd') => ({ seq, batch, heads, kvHeads, headDim, pass });
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const line = (cells, widths) => cells.map((c, i) => String(c).padStart(widths[i] ?? 8)).join(' ');

// Warm the JIT on a small point so the timings below are steady-state.
compareMappings(backend, shape(8192, 1, 16));

{
  const t0 = performance.now();
  const rows = compareMappings(backend, shape(131072, 8, 128));
  const ms = performance.now() - t0;
  console.log(`1. 128K × 128 heads × batch 8, four mappings: ${(ms / 1000).toFixed(2)} s (goal < 5 s)`);
  for (const r of rows)
    console.log(
      `   ${r.mapping.padEnd(21)} L2 ${pct(r.l2HitRate).padStart(6)}  ${r.timeMs.toFixed(0).padStart(6)} ms  ×${r.relativeThroughput.toFixed(3)}  ${r.sampled.note}`,
    );
}

if (!quick) {
  const points = paperSweep('fwd');
  const t0 = performance.now();
  const bySeq = {};
  for (const p of points) {
    const t1 = performance.now();
    compareMappings(backend, p);
    bySeq[p.seq] = (bySeq[p.seq] ?? 0) + performance.now() - t1;
  }
  const ms = performance.now() - t0;
  const split = Object.entries(bySeq)
    .map(([s, t]) => `${Number(s) / 1024}K ${(t / 1000).toFixed(1)} s`)
    .join(', ');
  console.log(`\n2. paper sweep: ${points.length} points × ${ATTENTION_MAPPINGS.length} mappings in ${(ms / 1000).toFixed(1)} s (goal < 60 s; ${split})`);
}

{
  console.log('\n3. sampling against exact simulation (every step, every workgroup, every partition): L2 hit rate points, time ratio');
  const exact = { stepSample: 1, prefix: Number.MAX_SAFE_INTEGER, partitions: Number.MAX_SAFE_INTEGER };
  const cases = [shape(8192, 1, 128), shape(8192, 2, 64), shape(8192, 4, 64), shape(32768, 1, 64), shape(8192, 8, 64, 8), shape(8192, 2, 128, 128, 56)];
  const widths = [24, 21, 6, 7, 7, 8, 7];
  console.log(line(['config', 'mapping', 'k', 'fast', 'exact', 'Δ pt', 't ratio'], widths));
  let worst = 0;
  for (const s of cases) {
    for (const m of ATTENTION_MAPPINGS) {
      const a = simulateAttention(backend, s, m);
      const e = simulateAttention(backend, s, m, exact);
      const d = (a.l2HitRate - e.l2HitRate) * 100;
      worst = Math.max(worst, Math.abs(d));
      console.log(
        line(
          [
            `${s.seq / 1024}K b${s.batch} h${s.heads}/${s.kvHeads} d${s.headDim}`,
            m,
            a.sampled.stepSample,
            pct(a.l2HitRate),
            pct(e.l2HitRate),
            d.toFixed(1),
            (a.timeMs / e.timeMs).toFixed(3),
          ],
          widths,
        ),
      );
    }
  }
  console.log(`   largest hit-rate difference: ${worst.toFixed(1)} points`);
}

{
  console.log('\n4. headline configurations (MI300X): L2 hit rate and throughput relative to swizzled-head-first');
  const headline = [
    ['MHA 8K, 8 heads, batch 1', shape(8192, 1, 8)],
    ['MHA 8K, 128 heads, batch 8', shape(8192, 8, 128)],
    ['MHA 32K, 64 heads, batch 4', shape(32768, 4, 64)],
    ['MHA 128K, 128 heads, batch 1', shape(131072, 1, 128)],
    ['MHA 128K, 128 heads, batch 8', shape(131072, 8, 128)],
    ['GQA 128K, 128/8 heads, batch 8', shape(131072, 8, 128, 8)],
    ['DeepSeek-V3 128K, batch 8 (d 56)', shape(131072, 8, 128, 128, 56)],
    ['backward 128K, 128 heads, batch 1', shape(131072, 1, 128, 128, 128, 'bwd')],
  ];
  const widths = [34, ...ATTENTION_MAPPINGS.map(() => 16)];
  console.log(line(['', ...ATTENTION_MAPPINGS.map((m) => m.replace('-first', ''))], widths));
  for (const [name, s] of headline) {
    const rows = compareMappings(backend, s);
    console.log(line([name, ...rows.map((r) => `${pct(r.l2HitRate)} ×${r.relativeThroughput.toFixed(2)}`)], widths));
  }
}
