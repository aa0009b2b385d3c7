/**
 * ClusterFusion's end-to-end and module claims (reference/clusterfusion-h100.json): TPOT
 * speedups at batch 1 and 16, cluster 4, for Llama2-7B and DeepSeek-V2-Lite (MLA + MoE); the
 * core module's (QKV projection + attention + output projection) speedups (Figures 9 and 18);
 * and the DSMEM ablation (Figure 13). The paper's baselines are SGLang, vLLM and TensorRT-LLM;
 * Fleet's stand-in for all three is kernel-per-op-graph — the same model's kernels replayed as
 * one CUDA graph, as those engines replay theirs — so each row puts Fleet's speedup over it
 * beside the range the paper reports over the three engines.
 *
 * Why PyTorch's kernels and not a fused engine's: ClusterFusion's step cannot beat the HBM
 * floor (Llama2-7B fp16: 13.2 GB at the achievable 3.04 TB/s, ≈ 4.35 ms), so a speedup of
 * 1.39–1.43 needs engines at ≥ 6.1 ms. Kernel-per-op with the engines' fusions (fused add +
 * RMSNorm, SiLU·mul, RoPE with the cache write) runs 5.5 ms at batch 1, context 1K, and would
 * cap the speedup near 1.26; our measured PyTorch graph (7.25 ms) is where the paper's engines
 * must have been.
 */
import { loadModel, type Backend, type ValidationRow } from '@fleet/core';
import * as ops from '@fleet/ops';
import { row, speedupRow, type H100ValidationOptions, groupedRows } from './validation.js';

const CF = 'ClusterFusion (arXiv 2508.18850), /work/shared/reference/clusterfusion-h100.json';
const STAND_IN = 'kernel-per-op-graph stands in for SGLang/vLLM/TensorRT-LLM: the model’s kernels replayed as one CUDA graph';

/** Paper values: speedups over SGLang / vLLM / TensorRT-LLM (MLC-LLM left out: not a CUDA-graph engine). */
export const CLUSTERFUSION_CLAIMS = [
  { model: 'llama2-7b', batch: 1, contexts: [1024, 16384], over: [1.41, 1.39, 1.43] },
  { model: 'llama2-7b', batch: 16, contexts: [1024], over: [1.11, 1.09, 1.12] },
  { model: 'deepseek-v2-lite', batch: 1, contexts: [1024, 16384], over: [1.34, 1.37, 1.51] },
  { model: 'deepseek-v2-lite', batch: 16, contexts: [1024], over: [1.15, 1.14, 1.07] },
] as const;

/** Core-module speedups (Figure 18, averaged over contexts 1K–16K; Appendix C at batch 16) over SGLang / vLLM / TensorRT-LLM. */
export const CLUSTERFUSION_MODULE_CLAIMS = [
  { model: 'llama2-7b', batch: 1, over: [1.85, 1.73, 1.61] },
  { model: 'deepseek-v2-lite', batch: 1, over: [1.66, 1.64, 1.35] },
  { model: 'llama2-7b', batch: 16, over: [1.14, 1.12, 1.2] },
  { model: 'deepseek-v2-lite', batch: 16, over: [1.19, 1.18, 1.14] },
] as const;

/** Contexts the module speedups are averaged over (the paper's 1K–16K sweep). */
export const MODULE_CONTEXTS = [1024, 4096, 16384] as const;

/** Contexts of the DSMEM ablation (Figure 13: "up to 33%" over the sweep). */
export const DSMEM_CONTEXTS = [1024, 4096, 16384] as const;

export function clusterFusionClaimPoints(quick = false): number {
  const e2e = CLUSTERFUSION_CLAIMS.reduce((a, c) => a + (quick ? 1 : c.contexts.length), 0);
  return e2e + (quick ? 1 : CLUSTERFUSION_MODULE_CLAIMS.length) + 1;
}

/** TPOT speedup of clusterfusion over kernel-per-op-graph for one model, batch and context. */
export function clusterFusionSpeedup(
  backend: Backend,
  model: string,
  batch: number,
  context: number,
  overrides?: ops.PolicyOverrides,
): { base: number; fused: number; speedup: number } {
  const spec = loadModel(model);
  const at = (policy: string, o?: ops.PolicyOverrides) =>
    ops.predictDecode(backend, spec, { policy, batch, prompt: context - 1, decode: 1, positions: 1, overrides: o }).tpotMs;
  const base = at('kernel-per-op-graph');
  const fused = at('clusterfusion', overrides);
  return { base, fused, speedup: base / fused };
}

/** The core module's latency under clusterfusion and kernel-per-op-graph, µs, and the speedup. */
export function clusterFusionModuleSpeedup(backend: Backend, model: string, batch: number, context: number): { base: number; fused: number; speedup: number } {
  const spec = loadModel(model);
  const at = (policy: string) => ops.attentionModuleLatency(backend, spec, policy, { batch, context }).moduleUs;
  const base = at('kernel-per-op-graph');
  const fused = at('clusterfusion');
  return { base, fused, speedup: base / fused };
}

export function clusterFusionValidation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = groupedRows(device);
  const tick = opts.tick ?? (() => {});
  const out: ValidationRow[] = [];
  const rangeOf = (over: readonly number[]): [number, number] => [Math.min(...over), Math.max(...over)];
  for (const c of CLUSTERFUSION_CLAIMS) {
    for (const ctx of opts.quick ? c.contexts.slice(0, 1) : c.contexts) {
      tick(`${c.model} b${c.batch} ctx ${ctx}`);
      const s = clusterFusionSpeedup(backend, c.model, c.batch, ctx);
      out.push(
        speedupRow(
          `${c.model} batch ${c.batch}, context ${ctx}, cluster 4: TPOT speedup of clusterfusion over kernel-per-op-graph (${s.base.toFixed(2)} → ${s.fused.toFixed(2)} ms; ${STAND_IN})`,
          rangeOf(c.over),
          s.speedup,
          10,
          CF,
        ),
      );
    }
  }
  for (const c of opts.quick ? CLUSTERFUSION_MODULE_CLAIMS.slice(0, 1) : CLUSTERFUSION_MODULE_CLAIMS) {
    tick(`${c.model} b${c.batch} module`);
    const per = MODULE_CONTEXTS.map((ctx) => clusterFusionModuleSpeedup(backend, c.model, c.batch, ctx));
    const mean = per.reduce((a, s) => a + s.speedup, 0) / per.length;
    const detail = per.map((s, i) => `${MODULE_CONTEXTS[i]! / 1024}K ${s.base.toFixed(1)} → ${s.fused.toFixed(1)} µs`).join(', ');
    out.push(
      speedupRow(
        `${c.model} batch ${c.batch}, cluster 4: core module (QKV projection + attention + output projection) speedup of clusterfusion's fused kernel over the same ops as kernel-per-op-graph kernels, mean over contexts 1K–16K (${detail}; ${STAND_IN})`,
        rangeOf(c.over),
        mean,
        10,
        CF,
      ),
    );
  }
  // Figure 13: the same policy with its collectives through global memory (`dsmem: false`).
  tick('llama2-7b DSMEM off');
  const contexts = opts.quick ? DSMEM_CONTEXTS.slice(0, 1) : DSMEM_CONTEXTS;
  const ratios = contexts.map((ctx) => {
    const on = clusterFusionSpeedup(backend, 'llama2-7b', 1, ctx).fused;
    const off = clusterFusionSpeedup(backend, 'llama2-7b', 1, ctx, { dsmem: false }).fused;
    return off / on;
  });
  const worst = Math.max(...ratios);
  out.push(
    row(
      `llama2-7b batch 1, cluster 4: disabling DSMEM raises TPOT by up to 33% — largest TPOT ratio DSMEM off / on over contexts ${contexts.map((c) => `${c / 1024}K`).join(', ')} (${ratios.map((r) => r.toFixed(3)).join(', ')})`,
      'claim',
      1.33,
      worst,
      'ratio',
      10,
      CF,
    ),
  );
  return out.map((r) => ({ ...r, suite: 'clusterfusion' }));
}
