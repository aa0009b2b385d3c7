import { loadBackend } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import mi300x from '@fleet/backend-mi300x';
import mi350 from '@fleet/backend-mi350';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attentionFlops, attentionOccupancy, fa2Backward, fa2Forward, stepBytes, type AttentionShape } from '../src/decomposition.js';
import { gridSize } from '../src/mappings.js';

const shapes = fc.record({
  seq: fc.integer({ min: 64, max: 1 << 17 }),
  batch: fc.integer({ min: 1, max: 8 }),
  kvHeads: fc.integer({ min: 1, max: 16 }),
  group: fc.integer({ min: 1, max: 8 }),
  headDim: fc.constantFrom(56, 64, 128),
});
const toShape = (s: { seq: number; batch: number; kvHeads: number; group: number; headDim: number }): AttentionShape => ({
  seq: s.seq,
  batch: s.batch,
  heads: s.kvHeads * s.group,
  kvHeads: s.kvHeads,
  headDim: s.headDim,
  pass: 'fwd',
});

describe('FA2 decompositions', () => {
  it('forward: each workgroup streams all of its KV head, the grid does 4·B·H·N²·D FLOPs', () => {
    fc.assert(
      fc.property(
        shapes.filter((s) => s.seq % 128 === 0),
        (raw) => {
          const s = toShape(raw);
          const k = fa2Forward(s);
          const phase = k.phases[0]!;
          const kvBytes = 2 * s.seq * s.headDim * 2; // K and V, bf16
          return (
            phase.steps * stepBytes(phase) === kvBytes &&
            phase.streams.every((x) => x.owner === 'kv') &&
            gridSize(k.grid) === (s.batch * s.heads * s.seq) / 128 &&
            attentionFlops(k) === 4 * s.batch * s.heads * s.seq * s.seq * s.headDim
          );
        },
      ),
    );
  });

  it('backward: a dK/dV phase over the query head, a dQ phase over the KV head, 7/2 of the forward matmuls', () => {
    const s = toShape({ seq: 8192, batch: 2, kvHeads: 8, group: 4, headDim: 128 });
    const b = fa2Backward({ ...s, pass: 'bwd' });
    expect(b.phases.map((p) => p.streams[0]!.owner)).toEqual(['q', 'kv']);
    expect(attentionFlops(b)).toBe(3.5 * attentionFlops(fa2Forward(s)));
  });

  it("AITER's MI300X launch: the forward runs two workgroups per CU, the backward one", () => {
    const t = loadBackend(mi300x, 'test').topology;
    const s = toShape({ seq: 8192, batch: 1, kvHeads: 8, group: 1, headDim: 128 });
    expect(attentionOccupancy(fa2Forward(s), t)).toBe(2);
    expect(attentionOccupancy(fa2Backward({ ...s, pass: 'bwd' }), t)).toBe(1);
  });

  it("occupancy is what LDS and registers hold and the kernel's launch allows, at least one", () => {
    for (const d of [mi300x, mi350, h100]) {
      const t = loadBackend(d, 'test').topology;
      for (const headDim of [56, 128]) {
        for (const k of [
          fa2Forward({ ...toShape({ seq: 8192, batch: 1, kvHeads: 8, group: 1, headDim }) }),
          fa2Backward({ ...toShape({ seq: 8192, batch: 1, kvHeads: 8, group: 1, headDim }), pass: 'bwd' }),
        ]) {
          const occ = attentionOccupancy(k, t);
          expect(occ).toBeGreaterThanOrEqual(1);
          if (occ > 1) {
            expect(occ * k.ldsBytes).toBeLessThanOrEqual(t.computeUnit.sharedMemoryBytes);
            expect(occ * k.registerBytes).toBeLessThanOrEqual(t.computeUnit.registerFileBytes);
          }
          const more = occ + 1;
          const launchCap = Math.floor((k.launch.wavesPerSimd * t.computeUnit.simdsPerUnit) / k.launch.wavesPerWorkgroup);
          expect(occ).toBeLessThanOrEqual(Math.max(1, launchCap));
          expect(more * k.ldsBytes > t.computeUnit.sharedMemoryBytes || more * k.registerBytes > t.computeUnit.registerFileBytes || more > launchCap).toBe(
            true,
          );
        }
      }
    }
  });
});
