import type { ValidationSuite } from '@fleet/core';
import { attentionValidation, attentionValidationPoints } from '@fleet/attention-study';
import { clusterFusionClaimPoints, clusterFusionValidation } from './h100/clusterfusion.js';
import { decodeValidationPoints, h100DecodeValidation, h200DecodeValidation, h200DecodeValidationPoints } from './h100/decode.js';
import { familiesValidation, familiesValidationPoints } from './h100/families.js';
import {
  h100LinearShapesValidation,
  h200LinearShapesValidation,
  h200LinearShapesValidationPoints,
  linearShapesValidationPoints,
} from './h100/linear-shapes.js';
import { h100KsweepValidation, h100KsweepValidationPoints, h200KsweepValidation, h200KsweepValidationPoints } from './h100/ksweep.js';
import { h100MoeValidation, moeValidationPoints, h200MoeValidation, h200MoeValidationPoints } from './h100/moe.js';
import { h100NcclValidation, ncclValidationPoints, h200NcclValidation, h200NcclValidationPoints } from './h100/nccl.js';
import { NCCL_PUBLISHED_BACKENDS, ncclPublishedPoints, ncclPublishedValidation } from './published/collectives.js';
import { fp8ValidationPoints, h100Fp8Validation, h200Fp8Validation, h200Fp8ValidationPoints } from './h100/fp8.js';
import { mpkValidation, mpkValidationPoints } from './h100/mpk.js';
import { h100PipelineValidation, pipelineValidationPoints } from './h100/pipeline.js';
import { h100PrefillValidation, prefillValidationPoints } from './h100/prefill.js';
import { clusterFusionTableValidation, h100Validation } from './h100/validation.js';
import { h200TpValidation, h200TpValidationPoints } from './h200/tp.js';
import { h200PipelineValidation, h200PipelineValidationPoints, h200PrefillValidation, h200PrefillValidationPoints } from './h200/validation.js';
import { fleetMi350Jobs, fleetMi350Validation } from './mi350/fleet-mi350.js';
import { gemvMi300xValidation } from './mi300x/gemv.js';
import { tilusValidation, tilusValidationPoints } from './tilus/tilus.js';

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
    name: 'h100-decode',
    description:
      'H100 decode attention as FlashAttention-2 splits it (batch 1–64 × KV 1K–128K × heads 32/8, 40/8, 64/8, 32/4), both kernels at head dims 64 and 256, and Qwen3-8B/14B/32B decode TPOT in one CUDA graph, split-KV and grouped-rows SDPA',
    backends: ['h100'],
    points: decodeValidationPoints(),
    run: (registry, tick) => h100DecodeValidation(registry.get('h100'), { tick }),
  },
  {
    name: 'h100-linear',
    description:
      'H100 cuBLASLt GEMMs for the projections of nine model shapes (hidden 2048–8192, Llama3-70B TP4/TP8 shards) at M = 1–256, cold weights; Qwen3-8B calibrated, the rest held out; and the prefill GEMMs of Qwen3-8B and Llama-3-8B at M = 2048–65536 (they calibrate the swizzle of the tile scheduler)',
    backends: ['h100'],
    points: linearShapesValidationPoints(),
    run: (registry, tick) => h100LinearShapesValidation(registry.get('h100'), { tick }),
  },
  {
    name: 'h100-ksweep',
    description:
      "H100 cuBLASLt skinny GEMMs over K (M = 1, 8; N = 4096–24576; K = 1024–32768), two runs: the calibration of nvjet GEMVs' fixed cost and stream (every row labelled calibration)",
    backends: ['h100'],
    points: h100KsweepValidationPoints(),
    run: (registry, tick) => h100KsweepValidation(registry.get('h100'), { tick }),
  },
  {
    name: 'h100-fp8',
    description:
      'H100 W8A8 FP8 GEMMs (torch._scaled_mm: e4m3 per-tensor, row-wise scales, e5m2 activations) at six shapes × M = 1–4096, cold weights, and the FP8 speedup over bf16; three shapes calibrate the FP8 main-loop efficiency, three are held out',
    backends: ['h100'],
    points: fp8ValidationPoints(),
    run: (registry, tick) => h100Fp8Validation(registry.get('h100'), { tick }),
  },
  {
    name: 'h100-nccl',
    description:
      "NCCL all-reduce on two H100s (NVLink 4 ×18) in a CUDA graph, per protocol, 8 KB–64 MB, beside NCCL alone: its tuning model's choice run on the channels its enqueue gives the size; four rows (LL 8 and 64 MB, LL128 64 MB, Simple 8 KB) calibrate the run's rates, the rest are held out",
    backends: ['h100'],
    points: ncclValidationPoints(),
    run: (registry, tick) => h100NcclValidation(registry.get('h100'), { tick }),
  },
  {
    name: 'nccl-published',
    description:
      "published nccl-tests/rccl-tests all-reduce on 8-GPU nodes beside the library model alone: NCCL's ring bus bandwidth on 2–8 H100s at 2–4 GiB, RCCL on eight MI300X at 8 MiB",
    backends: NCCL_PUBLISHED_BACKENDS,
    points: ncclPublishedPoints(),
    run: (registry, tick) => ncclPublishedValidation(Object.fromEntries(NCCL_PUBLISHED_BACKENDS.map((b) => [b, registry.get(b)])), tick),
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
    name: 'h200-decode',
    description:
      'H200 decode attention as FlashAttention-2 splits it, both kernels at head dims 64 and 256, and Qwen3-4B/8B/14B/32B decode TPOT in one CUDA graph (batch 1–64, KV 1K–128K), the H100 decode sweeps rerun on an H200: every row a prediction',
    backends: ['h200'],
    points: h200DecodeValidationPoints(),
    run: (registry, tick) => h200DecodeValidation(registry.get('h200'), { tick }),
  },
  {
    name: 'h100-families',
    description:
      'decode TPOT of five model families no calibration used (Llama-3.2-1B/3B, Llama-3-8B, Qwen2.5-7B, Mistral-Nemo-12B shapes) on an H100, batch 1–64, KV 1K–64K, one CUDA graph: every row a prediction',
    backends: ['h100'],
    points: familiesValidationPoints('h100'),
    run: (registry, tick) => familiesValidation(registry.get('h100'), 'h100', { tick }),
  },
  {
    name: 'h200-families',
    description:
      'decode TPOT of five model families no calibration used (Llama-3.2-1B/3B, Llama-3-8B, Qwen2.5-7B, Mistral-Nemo-12B shapes) on an H200, batch 1–64, KV 1K–64K, one CUDA graph: every row a prediction',
    backends: ['h200'],
    points: familiesValidationPoints('h200'),
    run: (registry, tick) => familiesValidation(registry.get('h200'), 'h200', { tick }),
  },
  {
    name: 'h100-shards',
    description:
      'decode TPOT of one tensor-parallel rank alone on an H100 (Qwen3-8B and -32B at TP 2 and 4, no collectives), batch 1–32: every row a prediction',
    backends: ['h100'],
    points: familiesValidationPoints('h100-shards'),
    run: (registry, tick) => familiesValidation(registry.get('h100'), 'h100-shards', { tick }),
  },
  {
    name: 'h100-windows',
    description:
      "decode TPOT with sliding-window attention on an H100 (Mistral-7B-v0.1: a 4096-token window on every layer; its shape with the window on every other layer, and with none; Gemma-2-9B's shape), batch 1 and 4, KV 2K–64K, one CUDA graph: every row a prediction",
    backends: ['h100'],
    points: familiesValidationPoints('h100-windows'),
    run: (registry, tick) => familiesValidation(registry.get('h100'), 'h100-windows', { tick }),
  },
  {
    name: 'h200-windows',
    description:
      "decode TPOT with sliding-window attention on an H200 (the h100-windows runs: Mistral-7B-v0.1, its shape with the window on every other layer, and with none; Gemma-2-9B's shape), batch 1 and 4, KV 2K–64K, one CUDA graph: every row a prediction",
    backends: ['h200'],
    points: familiesValidationPoints('h200-windows'),
    run: (registry, tick) => familiesValidation(registry.get('h200'), 'h200-windows', { tick }),
  },
  {
    name: 'h200-linear',
    description:
      'H200 cuBLASLt GEMMs for the projections of nine model shapes at M = 1–256, cold weights, and the prefill GEMMs of Qwen3-8B and Llama-3-8B at M = 2048–65536 (the H100 linear sweeps rerun on an H200; every row held out)',
    backends: ['h200'],
    points: h200LinearShapesValidationPoints(),
    run: (registry, tick) => h200LinearShapesValidation(registry.get('h200'), { tick }),
  },
  {
    name: 'h200-ksweep',
    description:
      'H200 cuBLASLt skinny GEMMs over K (M = 1, 8; N = 4096–24576; K = 1024–32768), the H100 calibration sweep rerun on an H200: every row held out',
    backends: ['h200'],
    points: h200KsweepValidationPoints(),
    run: (registry, tick) => h200KsweepValidation(registry.get('h200'), { tick }),
  },
  {
    name: 'h200-tp',
    description:
      'Qwen3-8B and Qwen3-32B decode TPOT sharded over 2 and 4 H200s (Megatron layout, NCCL all-reduce in one CUDA graph), batch 1–32: every row a prediction',
    backends: ['h200'],
    points: h200TpValidationPoints(),
    run: (registry, tick) => h200TpValidation(registry.get('h200'), { tick }),
  },
  {
    name: 'h200-moe',
    description:
      'H200 Qwen3-30B-A3B decode TPOT at batch 1–16 and KV 4K–32K, and torch._grouped_mm (CUTLASS) calls at 8–128 active experts × 1–64 rows of its expert shapes (the H100 MoE runs repeated on an H200: every row a prediction)',
    backends: ['h200'],
    points: h200MoeValidationPoints(),
    run: (registry, tick) => h200MoeValidation(registry.get('h200'), { tick }),
  },
  {
    name: 'h200-nccl',
    description:
      'NCCL all-reduce in a CUDA graph on 4 H200s (NVSwitch) and on 2 of them, per protocol, 8 KB–64 MB, beside NCCL alone as the library model prices it: every row held out',
    backends: ['h200'],
    points: h200NcclValidationPoints(),
    run: (registry, tick) => h200NcclValidation(registry.get('h200'), { tick }),
  },
  {
    name: 'h200-fp8',
    description:
      "H200 cuBLASLt W8A8 FP8 GEMMs (torch._scaled_mm: per-tensor, row-wise, e5m2 activations) at six shapes × M = 1–4096 and FP8's speedup over bf16 (the H100 FP8 sweep rerun on an H200: every row a prediction)",
    backends: ['h200'],
    points: h200Fp8ValidationPoints(),
    run: (registry, tick) => h200Fp8Validation(registry.get('h200'), { tick }),
  },
  {
    name: 'h200-prefill',
    description: 'one H200 prefill against our own measurements: Qwen3-8B/Llama3-8B TTFT at 512–16384 tokens',
    backends: ['h200'],
    points: h200PrefillValidationPoints(),
    run: (registry, tick) => h200PrefillValidation(registry.get('h200'), { tick }),
  },
  {
    name: 'tilus',
    description:
      "Tilus's low-bit GEMMs against cuBLAS fp16 (Figures 9, 10 and 13's relations, the 1.75× average over Triton) on the L40S (the paper's GPU), the H100 and the A100, and our H100 measurements of cuBLAS fp16 and a Triton W4A16 GEMM",
    backends: ['l40s', 'h100', 'a100'],
    points: tilusValidationPoints(),
    run: (registry, tick) => tilusValidation({ l40s: registry.get('l40s'), h100: registry.get('h100'), a100: registry.get('a100') }, tick),
  },
  {
    name: 'numa-attention',
    description: 'NUMA-aware FlashAttention-2 mapping study on MI300X: the L2 hit rates and relative throughputs stated in §4.3–4.6',
    backends: ['mi300x'],
    points: attentionValidationPoints(),
    run: (registry, tick) => attentionValidation([registry.get('mi300x')], { tick }),
  },
];
