/**
 * The operand layouts of the tensor-core instruction mma.m16n8k16 (fp16/bf16 inputs, fp32
 * accumulators) as algebraic layouts over one warp (PTX ISA, "Matrix Fragments for
 * mma.m16n8k16"). With g = lane / 4 and c = lane mod 4:
 * - A (16×16): a0,a1 at (g, 2c+{0,1}), a2,a3 at (g+8, …), a4..a7 the same 8 columns right:
 *   column_local(2,2).spatial(8,4).local(1,2);
 * - B (16×8, K×N): b0,b1 at (2c+{0,1}, g), b2,b3 at (2c+8+{0,1}, g):
 *   local(2,1).column_spatial(4,8).local(2,1);
 * - C/D (16×8): c0,c1 at (g, 2c+{0,1}), c2,c3 at (g+8, …): local(2,1).spatial(8,4).local(1,2).
 */
import { columnLocal, local, type Layout } from './layout.js';

export interface MmaLayouts {
  a: Layout;
  b: Layout;
  c: Layout;
}

export function mmaM16n8k16(): MmaLayouts {
  return {
    a: columnLocal(2, 2).spatial(8, 4).local(1, 2),
    b: local(2, 1).columnSpatial(4, 8).local(2, 1),
    c: local(2, 1).spatial(8, 4).local(1, 2),
  };
}
