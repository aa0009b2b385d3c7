import type { OpKind } from '@fleet/core';

/** Op classes of the time breakdown, in stacking order. */
export const OP_CLASSES = ['linear', 'attention', 'norm', 'elementwise', 'embedding & argmax', 'moe routing', 'collective'] as const;
export type OpClass = (typeof OP_CLASSES)[number];

/**
 * The class a task's time counts under, by its kind (a fused stage has its main op's kind:
 * a linear with its residual epilogue is `linear`, attention with its RoPE prologue is
 * `attention`).
 */
export function opClassOf(kind: OpKind): OpClass {
  switch (kind) {
    case 'linear':
    case 'grouped-linear':
      return 'linear';
    case 'attention':
      return 'attention';
    case 'rmsnorm':
    case 'qk-norm':
      return 'norm';
    case 'rope':
    case 'kv-append':
    case 'residual':
    case 'act-mul':
      return 'elementwise';
    case 'embedding':
    case 'argmax':
      return 'embedding & argmax';
    case 'moe-topk':
    case 'moe-dispatch':
    case 'moe-combine':
      return 'moe routing';
    case 'all-reduce':
    case 'all-gather':
      return 'collective';
  }
}
