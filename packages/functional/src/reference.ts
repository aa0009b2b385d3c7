/**
 * The plain straight-line reference of a decode step: every op of the op graph in order,
 * over whole tensors, attention in its plain softmax form. Functional execution of a
 * compiled task graph must reproduce its logits.
 */
import type { OpGraph } from '@fleet/core';
import { DecodeOps, type DecodeSemantics, type Fp8Linears, type Tensors } from './decode-ops.js';
import type { ModelWeights } from './weights.js';

/** Activations, KV caches and tokens of a step, by tensor name (weights live apart). */
export type DecodeState = Map<string, Float32Array>;

/** Zero-filled tensors for every non-weight tensor of the graph. */
export function allocateState(graph: OpGraph): DecodeState {
  const s: DecodeState = new Map();
  for (const t of graph.tensors) if (t.kind !== 'weight') s.set(t.name, new Float32Array(t.shape.reduce((a, b) => a * b, 1)));
  return s;
}

/** Look tensors up in `state`, then in `weights`. */
export function tensorsOf(state: DecodeState, weights: ModelWeights): Tensors {
  return (name) => {
    const t = state.get(name) ?? weights.get(name);
    if (!t) throw new Error(`no tensor '${name}' in the state or the weights`);
    return t;
  };
}

/** Run one decode step on `state` in place (`fp8`: the decoder layers' linears as W8A8 FP8 GEMMs). */
export function referenceStep(graph: OpGraph, weights: ModelWeights, sem: DecodeSemantics, state: DecodeState, fp8?: Fp8Linears): void {
  const ops = new DecodeOps(graph, weights, sem, fp8);
  const t = tensorsOf(state, weights);
  for (const op of graph.ops) ops.run(op, t);
}
