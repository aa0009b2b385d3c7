import { buildDecodeGraph, type Backend, type ModelSpec, type TaskGraph } from '@fleet/core';
import { backendCompileOptions, type ResolvedPolicy } from '@fleet/ops';
import { OP_CLASSES, opClassOf, type OpClass } from './op-class.js';

/** Worker-busy ns per op class for a whole decode token (all layers). */
export type ClassTimes = Record<OpClass, number>;

const zero = (): ClassTimes => Object.fromEntries(OP_CLASSES.map((c) => [c, 0])) as ClassTimes;

/**
 * One simulated step's busy time per op class, extrapolated to the whole model the way
 * `predictDecode` extrapolates time: measured buckets as they are (embedding, the sampled
 * layers, the head) plus the steady-state layers (all sampled layers but the first, or the
 * only one) repeated for the layers not simulated.
 */
export function stepClassTimes(graph: TaskGraph, busyNs: Float64Array, numLayers: number): ClassTimes {
  const sampled = graph.layers;
  const byLayer = new Map<number, ClassTimes>();
  for (const t of graph.tasks) {
    let c = byLayer.get(t.layer);
    if (!c) byLayer.set(t.layer, (c = zero()));
    c[opClassOf(t.kind)] += busyNs[t.id] ?? 0;
  }
  const total = zero();
  for (const c of byLayer.values()) for (const k of OP_CLASSES) total[k] += c[k];
  const steady = sampled.length > 1 ? sampled.slice(1) : sampled;
  const missing = numLayers - sampled.length;
  for (const l of steady) {
    const c = byLayer.get(l);
    if (c) for (const k of OP_CLASSES) total[k] += (c[k] * missing) / steady.length;
  }
  return total;
}

/**
 * Time per op class for one decode token, ms: each class's share of worker-busy time, times
 * the predicted TPOT. Shares, not sums, because tasks of different classes overlap in time.
 * `positions` and `layers` are what the prediction simulated, in order; `steps` the busy
 * times its observer collected for them. Returns null when they do not line up.
 */
export function classBreakdownMs(
  model: ModelSpec,
  backend: Backend,
  { policy, schedule }: ResolvedPolicy,
  batch: number,
  positions: readonly number[],
  layers: number,
  steps: readonly Float64Array[],
  tpotMs: number,
): ClassTimes | null {
  if (steps.length !== positions.length) return null;
  const sum = zero();
  const sampled = Array.from({ length: layers }, (_, i) => i);
  for (const [i, pos] of positions.entries()) {
    // Compiled as the prediction compiled it, so its tasks line up with the observed busy times.
    const graph = policy.compile(buildDecodeGraph(model, { batch, contextLen: pos }), backend, schedule, {
      ...backendCompileOptions(backend),
      layers: sampled,
    });
    if (graph.tasks.length !== steps[i]!.length) return null;
    const c = stepClassTimes(graph, steps[i]!, model.numLayers);
    for (const k of OP_CLASSES) sum[k] += c[k];
  }
  const busy = OP_CLASSES.reduce((a, k) => a + sum[k], 0);
  if (!(busy > 0)) return null;
  const out = zero();
  for (const k of OP_CLASSES) out[k] = (sum[k] / busy) * tpotMs;
  return out;
}
