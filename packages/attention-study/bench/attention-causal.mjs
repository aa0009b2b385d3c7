#!/usr/bin/env node
/**
 * What causal masking would do to each mapping (an experiment: the paper's forward kernel
 * is not causal — every row block reads the whole K and V, §2.3.1 and §3.1 — so the study
 * and its suite are not; this checks whether the masked kernel could have given the paper's
 * hit rates). Run after `npx tsc -b packages/attention-study`:
 *   node packages/attention-study/bench/attention-causal.mjs [--k N] [--only m,m] [seqK ...]
 * (`--k N` looks up one step in N instead of the study's sample; `--k 1` looks up every step.)
 *
 * Row block m of a causal FA2 forward reads K/V tiles [0, (m+1)·BLOCK_M/BLOCK_N) — the
 * tiles up to its diagonal — so its work grows with m (the per-workgroup imbalance), and
 * later workgroups start as earlier, shorter ones finish. Every workgroup of the grid is
 * launched (no extrapolation: the steady state drifts with m); the step sample and the
 * partitions simulated are the study's.
 */
import { loadBackend, simulateGraph, zeroCounters, addCounters } from '@fleet/core';
import mi300x from '@fleet/backend-mi300x';
import {
  attentionKernel,
  attentionTaskGraph,
  chunkCount,
  gridSize,
  logicalCoords,
  mapWorkgroup,
  mix32,
  planSimulation,
  sampledTopology,
  simulatedLaunchIds,
} from '../dist/index.js';

const backend = loadBackend(mi300x, 'bench');
const X = backend.topology.partitions.computeUnits.length;
const args = process.argv.slice(2);
const kAt = args.indexOf('--k');
const stepSample = kAt >= 0 ? Number(args[kAt + 1]) : undefined;
const onlyAt = args.indexOf('--only');
const MAPPINGS = onlyAt >= 0 ? args[onlyAt + 1].split(',') : ['naive-block-first', 'naive-head-first', 'swizzled-head-first'];
const flags = new Set([kAt, kAt + 1, onlyAt, onlyAt + 1].filter((i) => i >= 0));
const seqs = args
  .filter((_, i) => !flags.has(i))
  .map(Number)
  .filter((n) => n > 0);

/** Cut each workgroup's K/V stream to the tiles up to its diagonal. */
function causal(graph, kernel, plan, ids) {
  const g = kernel.grid;
  const k = plan.stepSample;
  const p = kernel.phases[0];
  const perBlock = kernel.blockM / kernel.blockN;
  graph.tasks.forEach((t, n) => {
    const c = logicalCoords(mapWorkgroup(plan.mapping, ids[n], g, X), g);
    const kv = c.batch * g.kvHeads + Math.floor(c.head / (g.heads / g.kvHeads));
    const r = mix32(2 * kv + 1) % k;
    const steps = Math.min(p.steps, (c.block + 1) * perBlock);
    const chunks = chunkCount(steps, k, r);
    const tile = t.tiles[0];
    const scale = steps / chunks;
    tile.reads[0] = { ...tile.reads[0], rows: chunks };
    // own rows and output keep their bytes at the new scale (whole lines, never larger)
    for (const region of [...tile.reads.slice(1), ...tile.writes])
      region.bytes = Math.min(region.bytes, Math.ceil((region.bytes * tile.trafficScale) / scale / 128) * 128);
    tile.flops = steps * p.matrixFlopsPerStep;
    tile.vectorFlops = steps * p.vectorFlopsPerStep;
    tile.steps = chunks;
    tile.trafficScale = scale;
  });
}

function run(shape, mapping, masked) {
  const kernel = attentionKernel(shape);
  const G = gridSize(kernel.grid);
  const plan = { mapping, ...planSimulation(backend, kernel, mapping, { prefix: G, ...(stepSample ? { stepSample } : {}) }) };
  const graph = attentionTaskGraph(kernel, plan, X, true);
  const ids = simulatedLaunchIds(plan, X, true);
  if (masked) causal(graph, kernel, plan, ids);
  const sampled = { ...backend, topology: sampledTopology(backend.topology, plan.stepSample, plan.partitions / X) };
  const r = simulateGraph(sampled, graph, { launchMode: 'eager', workgroupsPerUnit: plan.occupancy, granularityBytes: 4096 });
  const all = zeroCounters();
  for (const c of r.counters) if (c) addCounters(all, c, 1);
  return { l2: all.l2.hitBytes / (all.l2.hitBytes + all.l2.missBytes), ms: r.timeNs / 1e6, k: plan.stepSample, parts: plan.partitions };
}

for (const seqK of seqs.length ? seqs : [8, 32]) {
  const shape = { seq: seqK * 1024, batch: 1, heads: 128, kvHeads: 128, headDim: 128, pass: 'fwd' };
  for (const masked of [false, true]) {
    const rows = MAPPINGS.map((m) => ({ m, ...run(shape, m, masked) }));
    const ref = rows.find((r) => r.m === 'swizzled-head-first')?.ms ?? rows[rows.length - 1].ms;
    console.log(
      `128 heads × ${seqK}K, batch 1, ${masked ? 'causal    ' : 'non-causal'}: ` +
        rows.map((r) => `${r.m} L2 ${(r.l2 * 100).toFixed(1)}% ×${(ref / r.ms).toFixed(3)} (1/${r.k}, ${r.parts} XCDs)`).join('   '),
    );
  }
}
