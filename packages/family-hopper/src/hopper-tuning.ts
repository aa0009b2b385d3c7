/** How H100 runs the policies' runtimes: MPK's layout, PyTorch's kernels, ClusterFusion's clusters. */
import type { BackendTuning, KernelGranularity } from '@fleet/core';
import { CLUSTER_DOMAINS, CLUSTERFUSION_CTAS_PER_SM, maxActiveClusters } from './clusters.js';

/** Mirage MPK on H100: 128 workers (one per SM) + 16 schedulers (seeds §5, seedcode §6 mirage utils.py). */
export const MIRAGE_WORKERS_PER_GPC = 16;
export const MIRAGE_SCHEDULERS = 16;
/** ClusterFusion's default cluster size (seedcode §2: CLUSTER_SIZE 4; best for 32–64 heads). */
export const CLUSTERFUSION_DEFAULT_CLUSTER = 4;

/**
 * What `kernel-per-op(-graph)` stands for on H100: PyTorch ops (eager, or captured in one
 * CUDA graph). MEAS ours (bench/h100/e2e.py, nsys on the Qwen3-8B graph): 27 kernels per
 * layer — no fusion across ops, q- and k-norm 1 each, RoPE 5 per tensor (two `cat` copies),
 * separate K and V cache copies, SiLU and mul apart, and cuBLAS split-K GEMMs (O and down
 * projections at M = 1) followed by a reduction kernel.
 */
export const PYTORCH_KERNELS: KernelGranularity = {
  unfused: true,
  // MoE (MEAS ours, bench/h100/phases.py MoeModel profile, 31 kernels per MoE block): top-k is
  // 7 kernels (fp32 copy, softmax, topk + its sort, sum, div, bf16 copy), dispatch 13 (3
  // memcpys, arange, argsort, floor-div, 2 fills, copy, scatter_add counts, scan init + scan,
  // the gather), each grouped GEMM 2 (prepare_grouped_gemm_data + the CUTLASS kernel), the
  // combine 4 (index, weight mul, zero fill, index_add).
  perOp: { 'qk-norm': 2, rope: 10, 'kv-append': 2, 'act-mul': 2, 'moe-topk': 7, 'moe-dispatch': 13, 'grouped-linear': 2, 'moe-combine': 4 },
  splitKReduce: true,
};

/** MPK's TaskDesc with TMA descriptors (Hopper), bytes: seed code, a layout replica of runtime_header.h. */
export const MPK_HOPPER_TASK_DESC_BYTES = 352;

export const tuning: BackendTuning = {
  // 8 GPCs × 16 = 128 workers; the 16 schedulers are 4 warps on each of 4 SMs, not per GPC.
  // MPK's Hopper tasks carry TMA descriptors: a TaskDesc is 352 B (seed code: a layout replica of runtime_header.h).
  persistent: { workersPerPartition: MIRAGE_WORKERS_PER_GPC, globalSchedulers: MIRAGE_SCHEDULERS, descriptorBytes: MPK_HOPPER_TASK_DESC_BYTES },
  // kernel-per-op(-graph) stand for PyTorch's ops on H100.
  kernels: PYTORCH_KERNELS,
  // QKV projection + attention + output projection fused per KV-head group in a cluster of 4
  // CTAs (SplitToken, DSMEM ClusterGather/ClusterReduce), FFN as kernels, one CUDA graph.
  // ≈101 KB of shared memory per CTA fits two CTAs per SM (measured placement domains).
  cluster: {
    size: CLUSTERFUSION_DEFAULT_CLUSTER,
    maxActiveClusters: maxActiveClusters(CLUSTERFUSION_DEFAULT_CLUSTER, CLUSTER_DOMAINS, CLUSTERFUSION_CTAS_PER_SM),
    ctasPerUnit: CLUSTERFUSION_CTAS_PER_SM,
  },
};
