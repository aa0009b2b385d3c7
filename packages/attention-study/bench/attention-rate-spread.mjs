#!/usr/bin/env node
/**
 * How far apart in time the workgroups of a head run on one XCD, and what spreading them
 * would do to each mapping's L2 hit rate (run after `npx tsc -b packages/attention-study`):
 *   node packages/attention-study/bench/attention-rate-spread.mjs [--quick] [--k N]
 *
 * 1. Lockstep: the simulated start times of workgroups that share a head and an XCD and run
 *    together, in K/V steps (XCD 0, the default plans, 128 heads × 128K × batch 1).
 * 2. A per-workgroup rate spread: each workgroup's compute scaled by 1 + ε·u, u uniform in
 *    [−1, 1] from a hash of its launch id — a workgroup's whole run slower or faster.
 * 3. Per-segment noise: the factor drawn again every 8 sampled chunks of a workgroup's
 *    K/V stream (a random walk of its phase).
 * 4. The rate spread at batch 8 with the memory side's answer: MALL hit rate and the
 *    throughput relative to SHF (the grid extrapolated as the study does).
 * 2 and 3 are experiments, not predictions: the tasks are changed by hand to stand for a
 * desynchronisation the simulation does not derive (see the README). Hit rates are the
 * steady state's (the window the study extrapolates).
 */
import { loadBackend, simulateGraph, zeroCounters } from '@fleet/core';
import mi300x from '@fleet/backend-mi300x';
import {
  attentionKernel,
  attentionTaskGraph,
  gridSize,
  logicalCoords,
  mapWorkgroup,
  mix32,
  planSimulation,
  sampledTopology,
  simulatedLaunchIds,
} from '../dist/index.js';

const backend = loadBackend(mi300x, 'bench');
const quick = process.argv.includes('--quick');
// `--k N`: look up one step in N instead of the study's sample (`--k 1`: every step; once
// workgroups spread, the study's sample reads head-first hit rates ~8 points low, see the README).
const kAt = process.argv.indexOf('--k');
const stepOption = kAt >= 0 ? { stepSample: Number(process.argv[kAt + 1]) } : {};
const K = 1024;
const X = backend.topology.partitions.computeUnits.length;
const MAPPINGS = ['naive-block-first', 'naive-head-first', 'swizzled-head-first'];
const short = (m) => m.replace('naive-', 'N').replace('swizzled-', 'S').replace('block-first', 'BF').replace('head-first', 'HF');
const shape = (seq, batch, heads) => ({ seq, batch, heads, kvHeads: heads, headDim: 128, pass: 'fwd' });

/** Uniform in [−1, 1), from a launch id and a segment index. */
const uniform = (n, i) => (mix32((Math.imul(n, 0x9e3779b1) ^ Math.imul(i + 1, 40503)) >>> 0) % 10000) / 5000 - 1;

/** Scale each task's compute: one factor per workgroup (segment 0) or one per `segment` sampled chunks. */
function perturb(graph, eps, segment) {
  if (eps === 0) return;
  graph.tasks.forEach((t, n) => {
    if (!segment) {
      const f = 1 + eps * uniform(n, 0);
      for (const tile of t.tiles) {
        tile.flops *= f;
        tile.vectorFlops *= f;
      }
      return;
    }
    const tiles = [];
    for (const tile of t.tiles) {
      const chunks = tile.steps;
      const r0 = tile.reads[0];
      for (let done = 0, i = 0; done < chunks; i++) {
        const c = Math.min(segment, chunks - done);
        const f = 1 + eps * uniform(n, i + 1);
        tiles.push({
          ...tile,
          steps: c,
          flops: ((tile.flops * c) / chunks) * f,
          vectorFlops: ((tile.vectorFlops * c) / chunks) * f,
          reads: [{ ...r0, offset: r0.offset + done * r0.strideBytes, rows: c }, ...(done === 0 ? tile.reads.slice(1) : [])],
          writes: done + c === chunks ? tile.writes : [],
        });
        done += c;
      }
    }
    t.tiles = tiles;
  });
}

function run(s, mapping, eps = 0, segment = 0, observe) {
  const kernel = attentionKernel(s);
  const plan = { mapping, ...planSimulation(backend, kernel, mapping, stepOption) };
  const graph = attentionTaskGraph(kernel, plan, X, true);
  perturb(graph, eps, segment);
  const sampled = { ...backend, topology: sampledTopology(backend.topology, plan.stepSample, plan.partitions / X) };
  const ids = simulatedLaunchIds(plan, X, true);
  const start = new Float64Array(ids.length);
  const end = new Float64Array(ids.length);
  const times = (batch) => {
    for (const e of batch) {
      if (e.type === 'task-start') start[e.task] = e.t;
      else if (e.type === 'task-end') end[e.task] = e.t;
    }
  };
  const r = simulateGraph(sampled, graph, {
    launchMode: 'eager',
    workgroupsPerUnit: plan.occupancy,
    granularityBytes: 4096,
    observers: observe ? [times, observe] : [times],
  });
  // The whole grid's time as the study extrapolates it: the rest of the grid at the steady
  // window's mean residency over all slots.
  let timeNs = r.timeNs;
  const G = gridSize(kernel.grid);
  if (plan.prefix < G) {
    let residency = 0;
    let n = 0;
    ids.forEach((wid, i) => {
      if (wid >= plan.steadyFrom && wid < plan.steadyTo) {
        residency += end[i] - start[i];
        n++;
      }
    });
    timeNs += ((G - plan.prefix) * residency) / Math.max(1, n) / plan.slots;
  }
  const steady = r.counters[2] ?? zeroCounters();
  const rate = (c) => c.l2.hitBytes / (c.l2.hitBytes + c.l2.missBytes);
  const llc = steady.llc.hitBytes / Math.max(1, steady.llc.hitBytes + steady.llc.missBytes);
  return { l2: rate(steady), llc, timeNs };
}

function lockstep() {
  console.log('1. lockstep: start-time spread (K/V steps) of workgroups sharing a head on XCD 0 and resident together, 128 heads × 128K × batch 1');
  for (const m of MAPPINGS) {
    const s = shape(128 * K, 1, 128);
    const kernel = attentionKernel(s);
    const plan = { mapping: m, ...planSimulation(backend, kernel, m, stepOption) };
    const ids = simulatedLaunchIds(plan, X, true);
    const start = new Float64Array(ids.length);
    const end = new Float64Array(ids.length);
    const r = run(s, m, 0, 0, (batch) => {
      for (const e of batch) {
        if (e.type === 'task-start') start[e.task] = e.t;
        else if (e.type === 'task-end') end[e.task] = e.t;
      }
    });
    let total = 0;
    for (let n = 0; n < ids.length; n++) total += end[n] - start[n];
    const duration = total / ids.length;
    const stepNs = duration / kernel.phases[0].steps;
    const g = kernel.grid;
    const byHead = new Map();
    ids.forEach((wid, n) => {
      if (wid % X !== 0) return;
      const c = logicalCoords(mapWorkgroup(m, wid, g, X), g);
      const key = c.batch * g.heads + c.head;
      if (!byHead.has(key)) byHead.set(key, []);
      byHead.get(key).push(start[n]);
    });
    const spreads = [];
    for (const times of byHead.values()) {
      times.sort((a, b) => a - b);
      let first = times[0];
      let last = first;
      for (const t of times.slice(1)) {
        if (t - first < duration / 2) last = t;
        else {
          spreads.push((last - first) / stepNs);
          first = last = t;
        }
      }
      spreads.push((last - first) / stepNs);
    }
    spreads.sort((a, b) => a - b);
    const q = (p) => spreads[Math.floor(p * (spreads.length - 1))].toFixed(1);
    console.log(
      `   ${short(m).padEnd(4)} L2 ${(r.l2 * 100).toFixed(1)}%  step ${(stepNs / 1000).toFixed(2)} µs  spread median ${q(0.5)}, 90th ${q(0.9)}, max ${q(1)} steps`,
    );
  }
}
lockstep();

const header = (label) => console.log(`\n${label}\n   ${'ε'.padEnd(6)} ${'context'.padEnd(8)} ${MAPPINGS.map((m) => `${short(m)} L2`.padStart(8)).join(' ')}`);
const table = (eps, seqs, segment) => {
  for (const seq of seqs) {
    const rows = MAPPINGS.map((m) => run(shape(seq * K, 1, 128), m, eps, segment));
    console.log(`   ${`±${(eps * 100).toFixed(0)}%`.padEnd(6)} ${`${seq}K`.padEnd(8)} ${rows.map((r) => `${(r.l2 * 100).toFixed(1)}%`.padStart(8)).join(' ')}`);
  }
};
const seqs = quick ? [8, 128] : [8, 32, 128];
header('2. per-workgroup rate spread, 128 heads, batch 1: steady-state L2 hit rate');
for (const eps of quick ? [0, 0.02] : [0, 0.01, 0.02, 0.03, 0.05]) table(eps, seqs, 0);
header('3. per-segment noise (a factor per 8 sampled chunks), 128 heads, batch 1');
for (const eps of quick ? [0.2] : [0.2, 0.5]) table(eps, seqs, 8);

console.log('\n4. per-workgroup rate spread, 128 heads, batch 8: steady-state L2 (MALL) hit rate and throughput / SHF');
for (const eps of quick ? [0.05] : [0, 0.03, 0.05])
  for (const seq of quick ? [128] : [32, 128]) {
    const rows = MAPPINGS.map((m) => run(shape(seq * K, 8, 128), m, eps, 0));
    const ref = rows[rows.length - 1].timeNs;
    console.log(
      `   ±${(eps * 100).toFixed(0)}% ${seq}K: ${MAPPINGS.map((m, i) => `${short(m)} ${(rows[i].l2 * 100).toFixed(1)}% (${(rows[i].llc * 100).toFixed(0)}%) ×${(ref / rows[i].timeNs).toFixed(3)}`).join('   ')}`,
    );
  }
