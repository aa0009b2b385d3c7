/**
 * The attention module of one decoder layer — QKV projection, q/k norm, RoPE, the KV append,
 * attention and the output projection — timed on its own: ClusterFusion's "core module"
 * latency (its Figures 9 and 18), under a policy and under the same ops as separate kernels.
 */
import { buildDecodeGraph, inputError, simulateGraph, type Backend, type ModelSpec, type SimEvent, type TaskGraph } from '@fleet/core';
import type { PolicyOverrides } from '../compile/schedule.js';
import { CLUSTER_BLOCK_OPS } from '../policies/clusterfusion.js';
import { resolvePolicy, type PolicyRegistry } from '../policies/registry.js';
import { backendCompileOptions } from './step.js';

export interface AttentionModuleOptions {
  batch: number;
  /** Tokens in the KV cache including the new one (the step decodes position `context` − 1). */
  context: number;
  /** Schedule overrides of the policy (cluster size, dataflow, DSMEM…). */
  overrides?: PolicyOverrides;
  policies?: PolicyRegistry;
}

export interface AttentionModuleLatency {
  policy: string;
  /** From the launch of the module's first kernel to the end of its last, µs (graph-node launches included). */
  moduleUs: number;
  /** Kernels the module ran as. */
  kernels: number;
}

/** Ops of a layer that make up the attention module (the dense and the MLA block). */
function isModuleOp(opId: string): boolean {
  return CLUSTER_BLOCK_OPS.includes(opId.replace(/^L\d+\./, ''));
}

/** Time of layer 0's attention module in a compiled step, from the simulation's launch and kernel-end events. */
function moduleSpanUs(backend: Backend, tg: TaskGraph, launchMode: 'eager' | 'graph'): { us: number; kernels: number } {
  const ids = new Set(tg.kernels.filter((k) => k.layer === 0 && k.opIds.some(isModuleOp)).map((k) => k.id));
  if (ids.size === 0) throw inputError(`policy ${tg.policy} runs no layer-0 attention-module kernels`);
  let start = Infinity;
  let end = 0;
  const observe = (events: readonly SimEvent[]) => {
    for (const e of events) {
      if (e.type === 'launch' && ids.has(e.kernel)) start = Math.min(start, e.t);
      if (e.type === 'kernel-end' && ids.has(e.kernel)) end = Math.max(end, e.t);
    }
  };
  simulateGraph(backend, tg, { launchMode, observers: [observe] });
  return { us: (end - start) / 1000, kernels: ids.size };
}

/**
 * Layer 0's attention module under `policy` (a kernel-per-op-style policy: the module is its
 * kernels), simulated within the step's layer-0 graph so the caches are as a step leaves them.
 */
export function attentionModuleLatency(backend: Backend, model: ModelSpec, policy: string, opts: AttentionModuleOptions): AttentionModuleLatency {
  if (!(Number.isInteger(opts.batch) && opts.batch >= 1)) throw inputError(`\`batch\` must be a positive integer (got ${opts.batch})`, 'batch');
  if (!(Number.isInteger(opts.context) && opts.context >= 1)) throw inputError(`\`context\` must be a positive integer (got ${opts.context})`, 'context');
  const resolved = resolvePolicy(backend, policy, opts.overrides, opts.policies);
  if ('reason' in resolved) throw inputError(`policy ${policy} cannot run on ${backend.name}: ${resolved.reason}`);
  const { policy: p, schedule } = resolved;
  if (schedule.style !== 'kernel-per-op')
    throw inputError(`policy ${policy} runs the step as one persistent kernel: its attention module has no kernels of its own to time`);
  const g = buildDecodeGraph(model, { batch: opts.batch, contextLen: opts.context - 1 });
  const tg = p.compile(g, backend, schedule, { ...backendCompileOptions(backend), layers: [0] });
  const span = moduleSpanUs(backend, tg, p.runtime(backend, schedule).launchMode ?? 'graph');
  return { policy: p.name, moduleUs: span.us, kernels: span.kernels };
}
