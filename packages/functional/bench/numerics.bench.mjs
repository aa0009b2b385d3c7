#!/usr/bin/env node
// Reference-numerics speed (medians): the quantized GEMV (W{n}A16, group 128, unpack +
// level lookup + per-group scale) on a 4096 × 4096 weight at several types, the dense GEMV
// beside it, and the wall time of functional verification (`fleet verify`'s work) of the
// tiny model for every policy on MI350. Run after a build:
//   npm run bench -w @fleet/functional      (or: node packages/functional/bench/numerics.bench.mjs [--quick])
import { loadBackend } from '@fleet/core';
import mi350 from '@fleet/backend-mi350';
import { linear, parseLowBitType, Rng } from '@fleet/numerics';
import { BUILTIN_POLICIES, quantizedLinear, quantizeGroupwise, resolvePolicy } from '@fleet/ops';
import { randomWeights, TINY_MODEL, verifyDecode } from '../dist/index.js';

const quick = process.argv.includes('--quick');
const runs = quick ? 1 : 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn) => {
  const t = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return median(t);
};

const N = 4096;
const K = 4096;
const rng = new Rng(1);
const w = rng.normals(N * K, 1 / 64);
const x = rng.normals(K);
console.log(`Fleet reference numerics (median of ${runs}; Node ${process.version}; one core)\n`);
console.log(`GEMV ${N} × ${K}, batch 1 (elements = weight elements per second):`);
const dense = time(() => linear(x, w, 1, N, K));
console.log(`  ${'bf16 dense'.padEnd(12)} ${((N * K) / dense / 1e3).toFixed(0).padStart(6)} M elements/s  (${dense.toFixed(1)} ms)`);
for (const name of ['u2', 'i3', 'u4', 'i4', 'f4e2m1', 'i6', 'f6e3m2', 'i8', 'f8e4m3']) {
  const q = quantizeGroupwise(w, N, K, parseLowBitType(name), 128);
  const ms = time(() => quantizedLinear(x, q, 1));
  const mib = (q.packed.length + q.scales.length * 2) / 2 ** 20;
  console.log(
    `  ${`${name}g128`.padEnd(12)} ${((N * K) / ms / 1e3).toFixed(0).padStart(6)} M elements/s  (${ms.toFixed(1)} ms, ${mib.toFixed(2)} MiB packed + scales)`,
  );
}

console.log('\nfunctional verification, tiny model (2 layers, hidden 64, batch 2, 300 cached tokens, 2 decode steps):');
const backend = loadBackend(mi350, 'bench');
const weights = randomWeights(TINY_MODEL, 1);
let total = 0;
for (const p of BUILTIN_POLICIES.filter((d) => !('reason' in resolvePolicy(backend, d)))) {
  let status = '';
  const ms = time(() => {
    status = verifyDecode(backend, TINY_MODEL, { policy: p.name, weights }).status;
  });
  total += ms;
  console.log(`  mi350 ${p.name.padEnd(20)} ${ms.toFixed(0).padStart(5)} ms  ${status}`);
}
console.log(`  all policies on mi350: ${(total / 1000).toFixed(2)} s`);
