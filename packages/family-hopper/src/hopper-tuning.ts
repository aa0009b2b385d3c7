/** How H100 runs the policies' runtimes: MPK's layout, PyTorch's kernels, ClusterFusion's clusters. */
import { occupancy, type BackendTuning, type KernelGranularity, type RowKernel } from '@fleet/core';
import { CLUSTER_DOMAINS, CLUSTERFUSION_CTAS_PER_SM, CLUSTERFUSION_TMA_PIPELINE, maxActiveClusters } from './clusters.js';
import { TILE_OVERHEAD_NS, VECTOR_EFFICIENCY } from './cost-params.js';
import { H100_SM, SPLITK_REDUCE_NS } from './hopper-libraries.js';
import { MOE_ROUTING, PIPELINE } from './reference/calibration.js';
import { H100_CLOCK_GHZ, H100_LATENCY_CYCLES as LAT, H100_SXM5 as topology } from './reference/topology.js';

/** Mirage MPK on H100: 128 workers (one per SM) + 16 schedulers (seeds §5, seedcode §6 mirage utils.py). */
export const MIRAGE_WORKERS_PER_GPC = 16;
export const MIRAGE_SCHEDULERS = 16;
/** ClusterFusion's default cluster size (seedcode §2: CLUSTER_SIZE 4; best for 32–64 heads). */
export const CLUSTERFUSION_DEFAULT_CLUSTER = 4;

const L2_NS = LAT.l2 / H100_CLOCK_GHZ;

/**
 * DS (PyTorch 2.11 aten/src/ATen/native/cuda/layer_norm_kernel.cu, `vectorized_layer_norm_kernel`,
 * which F.rms_norm runs): one CTA of 32 × 4 threads per row (our profile: block [32, 4, 1]),
 * loads of vec_size = 4 bf16 (8 B). Its two passes over the row — the sum of squares, then
 * x · rstd · γ — are loops whose iterations each wait on their own load before the next is
 * issued, so a CTA keeps 128 × 8 B in flight and streams its row (and γ) as a chain of round trips.
 */
export const NORM_CTA_IN_FLIGHT = 128 * 4 * 2;

/**
 * DER from CAL `rowOps.qkNorm` (a 128-wide row: one iteration per pass): the norm kernel's time
 * outside its loads — the warp-shuffle and shared-memory reductions between the passes, rsqrt,
 * the grid's start and end — its kernel time less what the simulation charges its tile: the
 * first access (an L2 hit, hot), the per-tile overhead and the row and
 * γ (2 × 256 B) at the L2 latency through NORM_CTA_IN_FLIGHT. CAL `rowOps.rmsNorm` (4096 wide,
 * 8 iterations a pass) is predicted, not fitted: 4.21 µs against 4.13 measured.
 */
export const NORM_FIXED_NS = Math.round(
  PIPELINE.rowOps.qkNorm.kernelUs * 1000 - L2_NS - TILE_OVERHEAD_NS - (2 * PIPELINE.rowOps.qkNorm.cols * 2 * L2_NS) / NORM_CTA_IN_FLIGHT,
);

/**
 * DER from CAL `GAPS.layer` (cuBLASLt's `splitKreduce_kernel` at M = 1 over 4096 columns, its
 * profiled run in a replayed graph: 1.79 µs for a grid of 128 CTAs of 32 columns): a CTA's
 * time outside its few hundred bytes — starting the grid and the store — less what the
 * simulation charges apart: the first access (an L2 hit), the partial sums' read behind it (one
 * more round trip: each thread's loads of its column's partials are all in flight) and the
 * per-tile overhead.
 */
export const SPLITK_REDUCE_FIXED_NS = Math.round(SPLITK_REDUCE_NS - 2 * L2_NS - TILE_OVERHEAD_NS);

/**
 * cuBLASLt's split-K reduction: 512 threads a CTA (MEAS ours: block [32, 16]), four resident an
 * SM; UNC: each thread issues the loads of its element's partial sums (4 B each, up to 4
 * splits) before it adds them.
 */
const SPLITK_REDUCE_KERNEL: RowKernel = { residentTiles: 4, fixedNs: SPLITK_REDUCE_FIXED_NS, inFlightBytes: 512 * 4 * 4 };

/** PyTorch's norm kernel: 128 threads, 27 registers, 24 B of shared memory (our profile) — 16 CTAs an SM. */
export const NORM_KERNEL: RowKernel = {
  inFlightBytes: NORM_CTA_IN_FLIGHT,
  residentTiles: occupancy(H100_SM, {
    threads: 128,
    registersPerThread: PIPELINE.rowOps.rmsNorm.registersPerThread,
    sharedBytes: PIPELINE.rowOps.rmsNorm.sharedBytes,
  }).blocks,
  fixedNs: NORM_FIXED_NS,
};

/**
 * DS (PyTorch 2.11 aten/src/ATen/native/cuda/OffsetCalculator.cuh, IntegerDivider.cuh; CUDA C
 * programming guide, arithmetic instruction throughput, compute capability 9.0): a strided
 * elementwise kernel computes each element's offsets through TensorIterator's offset
 * calculator — per dimension one `IntDivider::divmod` (a multiply-high, a shift, a
 * multiply-add) and one multiply-add per operand. RoPE's passes and the K/V copies index
 * three dimensions (head dim, heads, tokens: a slice of q or k, a broadcast cos/sin table) over
 * three operands: 3 × (3 + 3) = 18 integer instructions an element. An SM issues 64 of them a
 * clock against 128 FP32 FMAs (256 FLOP), so each costs 4 FLOP-equivalents at the vector rate.
 * UNC: the dimension count (shapes coalesce differently) and the issue at the vector
 * efficiency. It adds up over the workgroups an SM runs, so it grows with the batch.
 */
export const STRIDED_INDEX_FLOPS_PER_ELEMENT = 3 * (3 + 3) * ((128 * 2) / 64);

/** The calibration's tile: one row of q (a head, 128 elements) at batch 1 (CAL `rowOps.rope`). */
const ROPE_CAL_TILE_ELEMENTS = 128;

/**
 * DER from CAL `rowOps.rope`: PyTorch's strided elementwise kernels (`elementwise_kernel<128, 4>`,
 * `CatArrayBatchedCopy`: RoPE's mul, neg and cat on slices of q and k, and the K/V cache
 * copies into their slots) cost more than the one round trip of their loads: each element's
 * address goes through TensorIterator's offset calculator and the loads are 2-byte scalars.
 * Their time outside the stream: the mean kernel time of the RoPE call's five kernels (a few
 * CTAs each at batch 1) less what the simulation charges one of its tiles (a first access
 * that hits the L2, the per-tile overhead, the index arithmetic of its elements,
 * STRIDED_INDEX_FLOPS_PER_ELEMENT). UNC transfer to the K/V copies
 * (`direct_copy_kernel_cuda`, the same kernel template), which the microbenchmark did not run alone.
 */
export const STRIDED_ELEMENTWISE_FIXED_NS = Math.round(
  (PIPELINE.rowOps.rope.kernelsUs.reduce((a, b) => a + b, 0) / PIPELINE.rowOps.rope.kernelsUs.length) * 1000 -
    L2_NS -
    TILE_OVERHEAD_NS -
    (ROPE_CAL_TILE_ELEMENTS * STRIDED_INDEX_FLOPS_PER_ELEMENT) / (topology.computeUnit.vectorFlopsPerNs * VECTOR_EFFICIENCY),
);

/**
 * DS (PyTorch 2.11 aten/src/ATen/native/cuda/CUDALoops.cuh): an elementwise kernel's thread
 * issues the loads of all its elements, of each input, before it computes (the loop is
 * unrolled), so a CTA keeps its elements of two inputs (x and cos, a and b) in flight.
 */
function elementwiseInFlight(elements: number): number {
  return elements * 2 * 2;
}

/**
 * DS (PyTorch 2.11 aten/src/ATen/native/cuda/Loops.cuh, CUDALoops.cuh): `elementwise_kernel<128, 4>`
 * gives each 128-thread CTA 4 elements a thread, 512 a CTA (our profile: grid 256 for a
 * 131072-element q at batch 64, 4 at batch 1 for 2048), 16 CTAs resident an SM.
 */
const STRIDED_ELEMENTWISE: RowKernel = {
  residentTiles: 16,
  fixedNs: STRIDED_ELEMENTWISE_FIXED_NS,
  elementsPerTile: 128 * 4,
  inFlightBytes: elementwiseInFlight(128 * 4),
  vectorFlopsPerElement: STRIDED_INDEX_FLOPS_PER_ELEMENT,
};

/**
 * DS (the same files): `vectorized_elementwise_kernel<8>` (residual adds, SiLU, mul) loads 8
 * elements a thread, 1024 a 128-thread CTA (our profile: the 4096-wide add runs grid 4, at
 * batch 64 grid 128 for 64 × 2048). One round trip of its loads, which the kernel pipeline
 * already prices (CAL `rowOps.add`, 1.09 µs, against the simulation's ≈ 1.45).
 */
const VECTORIZED_ELEMENTWISE: RowKernel = { residentTiles: 16, elementsPerTile: 128 * 8, inFlightBytes: elementwiseInFlight(128 * 8) };

/**
 * DER from CAL `MOE_ROUTING` (bench/device/sweep.py's moe section, batch 1: Qwen3-30B-A3B's
 * router, softmax, top-8, renormalisation, argsort, histogram, scan, gather and weighted
 * scatter-add in one graph, each kernel profiled): the routing kernels besides the router's
 * GEMV take 2.0 µs each on average (0.96–5.47: the sorts and the scatter-add the longest) for a
 * few hundred bytes. Less what the simulation charges such a kernel's tile (a first access and
 * its write behind it, both L2 hits, and the per-tile overhead). Batches 4–256 are predictions.
 */
export const ROUTING_KERNEL_FIXED_NS = (() => {
  const call = MOE_ROUTING.routing.find((r) => r.batch === 1)!;
  const kernels = call.kernels.filter((k) => !k.name.startsWith('nvjet'));
  return Math.round((kernels.reduce((a, k) => a + k.us, 0) / kernels.length) * 1000 - 2 * L2_NS - TILE_OVERHEAD_NS);
})();

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
  splitKReduceKernel: SPLITK_REDUCE_KERNEL,
  routingKernelFixedNs: ROUTING_KERNEL_FIXED_NS,
  rowKernels: {
    rmsnorm: NORM_KERNEL,
    'qk-norm': NORM_KERNEL,
    rope: STRIDED_ELEMENTWISE,
    'kv-append': STRIDED_ELEMENTWISE,
    residual: VECTORIZED_ELEMENTWISE,
    'act-mul': VECTORIZED_ELEMENTWISE,
  },
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
    pipeline: CLUSTERFUSION_TMA_PIPELINE,
  },
};
