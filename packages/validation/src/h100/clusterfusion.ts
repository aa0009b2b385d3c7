/**
 * ClusterFusion's end-to-end claims (reference/clusterfusion-h100.json): TPOT speedups at batch
 * 1 and 16, cluster 4, for Llama2-7B and DeepSeek-V2-Lite (MLA + MoE). The paper's baselines
 * are SGLang, vLLM and TensorRT-LLM; Fleet's baseline is kernel-per-op-graph (the same model's
 * kernels replayed as one CUDA graph), so each row puts Fleet's speedup over it beside the
 * range the paper reports over those three engines.
 */
import { loadModel, type Backend, type ValidationRow } from '@fleet/core';
import * as ops from '@fleet/ops';
import { row, type H100ValidationOptions, groupedRows } from './validation.js';

const CF = 'ClusterFusion (arXiv 2508.18850), /work/shared/reference/clusterfusion-h100.json';

/** Paper values: speedups over SGLang / vLLM / TensorRT-LLM (MLC-LLM left out: not a CUDA-graph engine). */
export const CLUSTERFUSION_CLAIMS = [
  { model: 'llama2-7b', batch: 1, contexts: [1024, 16384], over: [1.41, 1.39, 1.43] },
  { model: 'llama2-7b', batch: 16, contexts: [1024], over: [1.11, 1.09, 1.12] },
  { model: 'deepseek-v2-lite', batch: 1, contexts: [1024, 16384], over: [1.34, 1.37, 1.51] },
  { model: 'deepseek-v2-lite', batch: 16, contexts: [1024], over: [1.15, 1.14, 1.07] },
] as const;

export function clusterFusionClaimPoints(quick = false): number {
  return CLUSTERFUSION_CLAIMS.reduce((a, c) => a + (quick ? 1 : c.contexts.length), 0);
}

/** TPOT speedup of clusterfusion over kernel-per-op-graph for one model, batch and context. */
export function clusterFusionSpeedup(backend: Backend, model: string, batch: number, context: number): { base: number; fused: number; speedup: number } {
  const spec = loadModel(model);
  const at = (policy: string) => ops.predictDecode(backend, spec, { policy, batch, prompt: context - 1, decode: 1, positions: 1 }).tpotMs;
  const base = at('kernel-per-op-graph');
  const fused = at('clusterfusion');
  return { base, fused, speedup: base / fused };
}

export function clusterFusionValidation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = groupedRows(device);
  const tick = opts.tick ?? (() => {});
  const out: ValidationRow[] = [];
  for (const c of CLUSTERFUSION_CLAIMS) {
    for (const ctx of opts.quick ? c.contexts.slice(0, 1) : c.contexts) {
      tick(`${c.model} b${c.batch} ctx ${ctx}`);
      const s = clusterFusionSpeedup(backend, c.model, c.batch, ctx);
      const range: [number, number] = [Math.min(...c.over), Math.max(...c.over)];
      out.push(
        row(
          `${c.model} batch ${c.batch}, context ${ctx}, cluster 4: TPOT speedup of clusterfusion over kernel-per-op-graph (${s.base.toFixed(2)} → ${s.fused.toFixed(2)} ms) vs the paper's over SGLang/vLLM/TensorRT-LLM`,
          'claim',
          range,
          s.speedup,
          '×',
          20,
          CF,
        ),
      );
    }
  }
  return out.map((r) => ({ ...r, suite: 'clusterfusion' }));
}
