import type { ValidationSuite } from '@fleet/core';
import { attentionValidation, attentionValidationPoints } from '@fleet/attention-study';
import { clusterFusionClaimPoints, clusterFusionValidation } from './h100/clusterfusion.js';
import { h100MoeValidation, moeValidationPoints } from './h100/moe.js';
import { mpkValidation, mpkValidationPoints } from './h100/mpk.js';
import { h100PipelineValidation, pipelineValidationPoints } from './h100/pipeline.js';
import { h100PrefillValidation, prefillValidationPoints } from './h100/prefill.js';
import { clusterFusionTableValidation, h100Validation } from './h100/validation.js';
import { h200PipelineValidation, h200PipelineValidationPoints, h200PrefillValidation, h200PrefillValidationPoints } from './h200/validation.js';
import { fleetMi350Jobs, fleetMi350Validation } from './mi350/fleet-mi350.js';
import { gemvMi300xValidation } from './mi300x/gemv.js';

/** Fleet's suites, in the order `fleet validate` runs them. Add one: a module and one entry here. */
export const SUITES: ValidationSuite[] = [
  {
    name: 'fleet-mi350',
    description: 'FLEET paper: Qwen3-8B decode on MI350X, four policies × batch 1–64',
    backends: ['mi350'],
    points: fleetMi350Jobs().length,
    run: (registry, tick) => fleetMi350Validation(registry.get('mi350'), tick),
  },
  {
    name: 'gemv-mi300x',
    description: 'vendor GEMV bandwidth at M=1 on MI300X (rocBLAS wvSpltK measurements)',
    backends: ['mi300x'],
    points: 2,
    run: (registry, tick) => gemvMi300xValidation(registry.get('mi300x'), tick),
  },
  {
    name: 'h100',
    description: 'H100 against our own measurements: Qwen3-8B graph TPOT, Llama2-7B contexts, GEMV/GEMM, collectives, cluster sizes',
    backends: ['h100'],
    points: 86,
    run: (registry, tick) => h100Validation(registry.get('h100'), { tick }),
  },
  {
    name: 'clusterfusion',
    description:
      "ClusterFusion on H100: Table 1's ClusterReduce/ClusterGather kernels (32 clusters of 4, 32–256 KB, on and off chip, their trend and speedup column), the end-to-end Llama2-7B and DeepSeek-V2-Lite (MLA + MoE) TPOT speedups at batch 1 and 16, the core module's speedups, and the DSMEM ablation",
    backends: ['h100'],
    points: 1 + clusterFusionClaimPoints(),
    run: (registry, tick) => {
      tick('Table 1');
      return [...clusterFusionTableValidation(), ...clusterFusionValidation(registry.get('h100'), { tick })];
    },
  },
  {
    name: 'mpk',
    description:
      "Mirage MPK on H100: one launch for the run and up to 16 task descriptors per fetch (the runtime walkthrough), and Qwen3-8B TPOT speedups over kernel-per-op-graph (stand-in for SGLang/vLLM) against FLEET's citation of 1.0–1.7×",
    backends: ['h100'],
    points: mpkValidationPoints(),
    run: (registry, tick) => mpkValidation(registry.get('h100'), { tick }),
  },
  {
    name: 'h100-pipeline',
    description:
      'H100 tile pipeline against our own sweep: cuBLAS GEMMs at M = 1–8192, cuDNN decode attention, Qwen3-8B/Llama3-8B TPOT at batch 1–256 and KV to 32K',
    backends: ['h100'],
    points: pipelineValidationPoints(),
    run: (registry, tick) => h100PipelineValidation(registry.get('h100'), { tick }),
  },
  {
    name: 'h100-prefill',
    description: 'H100 prefill against our own measurements: causal cuDNN SDPA over batch × prompt, Qwen3-8B/Llama3-8B TTFT at 512–16384 tokens',
    backends: ['h100'],
    points: prefillValidationPoints(),
    run: (registry, tick) => h100PrefillValidation(registry.get('h100'), { tick }),
  },
  {
    name: 'h100-moe',
    description:
      'H100 MoE decode against our own measurement: Qwen3-30B-A3B TPOT in one CUDA graph at batch 1–128 (KV 1024), the CUTLASS grouped GEMM, kernels per step, experts reached',
    backends: ['h100'],
    points: moeValidationPoints(),
    run: (registry, tick) => h100MoeValidation(registry.get('h100'), { tick }),
  },
  {
    name: 'h200',
    description:
      'one H200 against our own measurements (the H100 scripts): cuBLAS GEMMs at M = 1–8192, Qwen3-8B/Llama3-8B decode TPOT in one CUDA graph at batch 1–256 and KV to 32K (target ±10%)',
    backends: ['h200'],
    points: h200PipelineValidationPoints(),
    run: (registry, tick) => h200PipelineValidation(registry.get('h200'), { tick }),
  },
  {
    name: 'h200-prefill',
    description: 'one H200 prefill against our own measurements: Qwen3-8B/Llama3-8B TTFT at 512–16384 tokens',
    backends: ['h200'],
    points: h200PrefillValidationPoints(),
    run: (registry, tick) => h200PrefillValidation(registry.get('h200'), { tick }),
  },
  {
    name: 'numa-attention',
    description: 'NUMA-aware FlashAttention-2 mapping study on MI300X: the seven published claims',
    backends: ['mi300x'],
    points: attentionValidationPoints(),
    run: (registry, tick) =>
      attentionValidation([registry.get('mi300x')], { tick }).map((r) => ({
        suite: 'numa-attention',
        experiment: `${r.claim} — predicted ${r.predicted}`,
        kind: 'claim' as const,
        published: 1,
        predicted: r.ok ? 1 : 0,
        unit: 'claim holds',
        error: r.ok ? 0 : -100,
        errorUnit: '%' as const,
        tolerance: 0,
        ok: r.ok,
        source: 'Optimizing Attention on GPUs by Exploiting GPU Architectural NUMA Effects (AMD/Duke), reference/numa-attention-mi300x.json',
      })),
  },
];
