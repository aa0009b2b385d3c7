import { describe, expect, it } from 'vitest';
import { uniqueReadBytes } from '@fleet/core';
import { BUILTIN_POLICIES, parseWeightType, unsupportedReason } from '@fleet/ops';
import { compileLinearOp, loadBackends, runLinearOp } from '../src/index.js';

/**
 * A cold single op and the bytes it reads from DRAM.
 *
 * Lower bound: every distinct byte it reads from a buffer it does not write (weights,
 * scales, the input) has to come from DRAM once: `uniqueReadBytes`.
 *
 * Upper bound: the same bytes widened to whole 128 B lines (a fetch moves lines), each read
 * once. It holds while the op's footprint fits in the last cache before DRAM (the 256 MB
 * MALL on MI300X/MI350, the 50 MB L2 on H100), so nothing the op reads is evicted before
 * its last use; the shapes below stay under 40 MB. Above that, re-reads are real (H100
 * without a MALL) and the bound no longer applies.
 */
const WEIGHTS = [
  'bf16',
  'fp16',
  'e4m3g128', // fp8 weights with bf16 group scales
  'i8g128', // int8
  'u4g128',
  'i4g64',
  'u2g32',
  'f6e3m2g128',
  'u3g256',
];
// [m, n, k]: GEMV, a wide GEMV, small batches, a batch that splits into many tiles, and a
// shape aligned to no tile (K not a multiple of 64, N of no tile width).
const SHAPES: [number, number, number][] = [
  [1, 4096, 4096],
  [1, 6144, 4096],
  [8, 1024, 4096],
  [16, 4096, 1024],
  [64, 2048, 2048],
  [3, 5000, 3000],
];
const LINE = 128;

describe('a cold single op reads its unique bytes from DRAM, and no more than their lines', async () => {
  const registry = await loadBackends(process.cwd());
  for (const name of ['mi350', 'mi300x', 'h100']) {
    const backend = registry.get(name);
    const policies = BUILTIN_POLICIES.filter((p) => unsupportedReason(backend, p) === null).map((p) => p.name);
    it(`${name}: every policy (${policies.join(', ')}) × ${WEIGHTS.length} weight types × ${SHAPES.length} shapes`, () => {
      expect(policies.length).toBeGreaterThanOrEqual(4);
      expect(backend.topology.memory.l2.lineBytes).toBe(LINE);
      let runs = 0;
      for (const policy of policies) {
        for (const w of WEIGHTS) {
          const weights = parseWeightType(w);
          for (const [m, n, k] of SHAPES) {
            const at = `${name} ${policy} ${w} m=${m} n=${n} k=${k}`;
            const r = runLinearOp(backend, policy, m, n, k, weights);
            const lines = uniqueReadBytes(compileLinearOp(backend, policy, m, n, k, weights).graph, LINE);
            // the weight as stored is read at least
            expect(r.uniqueReadBytes, at).toBeGreaterThanOrEqual(r.weightBytes);
            expect(r.hbmReadBytes, at).toBeGreaterThanOrEqual(r.uniqueReadBytes);
            expect(r.hbmReadBytes, at).toBeLessThanOrEqual(lines);
            // everything DRAM serves crossed the fabric first
            expect(r.fabricReadBytes, at).toBeGreaterThanOrEqual(r.hbmReadBytes);
            runs++;
          }
        }
      }
      expect(runs).toBe(policies.length * WEIGHTS.length * SHAPES.length);
    });
  }

  it('the 4-bit GEMV of the report: 4096 × 4096 u4g128 on MI350 reads its 8 MiB of codes, 256 KiB of scales and the input', () => {
    const r = runLinearOp(registry.get('mi350'), 'kernel-per-op-graph', 1, 4096, 4096, parseWeightType('u4g128'));
    expect(r.weightBytes).toBe(4096 * 2048 + (4096 / 128) * 4096 * 2);
    expect(r.hbmReadBytes).toBeGreaterThanOrEqual(r.weightBytes);
    expect(r.hbmReadBytes).toBe(r.uniqueReadBytes);
  });
});
