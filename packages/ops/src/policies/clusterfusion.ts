/**
 * ClusterFusion on Hopper: per decoder layer, the QKV projection, q/k norm, RoPE, the KV append,
 * attention and the output projection run as ONE kernel of thread-block clusters; the FFN (and
 * the residual + norm between them) stay kernels, all replayed as one CUDA graph. Those kernels
 * are what the paper runs beside its block ("consistent with CUTLASS and FlashInfer"): the
 * backend's vendor GEMMs with the serving engines' fusions (residual add + RMSNorm, SiLU·mul),
 * whatever granularity the backend's kernel-per-op policies stand for (PyTorch's ops on H100).
 * Each CTA streams its weights and KV through the backend's cluster pipeline (`tuning.cluster
 * .pipeline`: on Hopper ClusterFusion's double-buffered 16 KB TMA boxes).
 *
 * One cluster of N CTAs serves one KV-head group for the requests of the batch (the batch rows
 * are the projections' M dimension, so a cluster reads its weights once per step, not once per
 * request). Where the co-resident clusters outnumber the groups, `requestSplit` clusters share a
 * group, each taking a contiguous share of the requests (the default: as many as fit, at most
 * one per request), so a batch's attention does not run on a few SMs while the rest idle; their
 * weight reads coincide in time and mostly hit L2. With fewer co-resident clusters than units,
 * each cluster takes units round-robin (`maxActiveClusters`: clusters live inside one GPC, so
 * larger clusters leave SMs idle; and the kernel runtime holds one CTA per SM slot). Per CTA and
 * unit (SplitToken, the default):
 *   1. its 1/N of the group's q, k and v rows of W_qkv against its requests' normed input rows;
 *   2. ClusterGather of the q/k/v slices (DSMEM), q/k norm and RoPE in registers;
 *   3. request by request, attention over its 1/N of the cached positions (CTA 0 also appends
 *      the new K/V);
 *   4. ClusterReduce of the softmax max and sum (one fp32 per query head and request) and of the
 *      output (the group's G·d fp16 values per request);
 *   5. its 1/N of the output projection's rows for the group's columns, added atomically into
 *      its requests' output rows.
 * SplitHead instead splits the head dimension: no gather, but the fp32 scores of every cached
 * position are reduced (and the output as in SplitToken).
 *
 * Collective steps move no L2/HBM bytes: they are tiles whose `fixedNs` is the backend's
 * collective latency (`CollectiveModel`s named `cluster-reduce`/`cluster-gather`, or
 * `global-*` with `offChip`), which the backend's cost model charges as the tile's time.
 */
import {
  type Backend,
  inputError,
  type AttentionOp,
  type KernelSpec,
  type LinearOp,
  type OpGraph,
  type Region,
  type Task,
  type TaskGraph,
  type Tile,
  type Topology,
} from '@fleet/core';
import { KV_CHUNK } from '../decompose/attention.js';
import { lowerGraph, type CompileOptions } from '../compile/lowering.js';
import { kernelPerOpLowering, kernelSchedule, KERNEL_PER_OP_GRAPH } from './kernel-per-op.js';
import type { Policy } from './policy.js';
import { CLUSTER_KNOBS, sixteenBitWeightsOnly, unusedOverrides } from './options.js';
import type { Schedule } from '../compile/schedule.js';
import { MLA_FUSED, mlaFusedTasks } from './clusterfusion-mla.js';
import { batchRows, clusterMessages, collectiveNs, residentClusters, ctaTask, type ClusterDataflow, type ClusterFusionOptions } from './cluster-dataflow.js';

export * from './cluster-dataflow.js';

/** The kernels outside the fused block and the graph replay: kernel-per-op-graph's decompositions. */
const BASE_SCHEDULE = kernelSchedule('graph');

/** Ops of a layer the fused kernel replaces (the norm before it stays fused with the residual add): the attention module. */
export const CLUSTER_BLOCK_OPS: readonly string[] = ['qkv_proj', 'qk_norm', 'rope', 'kv_append', 'attention', 'o_proj', ...MLA_FUSED];
const FUSED = CLUSTER_BLOCK_OPS;
const EL = 2;

/**
 * Compile a decode step under ClusterFusion. The FFN and everything outside the fused block are
 * kernel-per-op kernels (vendor GEMMs, engine fusions); each sampled layer's attention block
 * becomes one cluster kernel.
 */
export function compileClusterFusion(graph: OpGraph, topology: Topology, opts: ClusterFusionOptions): TaskGraph {
  const N = opts.clusterSize ?? 4;
  const maxSize = topology.levels.chiplet.maxSize ?? 1;
  if (!(Number.isInteger(N) && N >= 1 && (N & (N - 1)) === 0 && N <= maxSize)) {
    throw inputError(`clusterfusion: the cluster size (\`clusterSize\`) must be a power of two in 1..${maxSize} on ${topology.name} (got ${N})`, 'clusterSize');
  }
  const dataflow = opts.dataflow ?? 'split-token';
  // The kernels outside the block: the vendor library's GEMMs (CUTLASS/cuBLAS) with the serving
  // engines' fused norm and activation kernels (the paper's FFN and RMSNorm "consistent with
  // CUTLASS and FlashInfer"), not PyTorch's unfused ops.
  const base = lowerGraph(graph, 'clusterfusion-kernels', BASE_SCHEDULE, kernelPerOpLowering, topology, { layers: opts.layers, library: opts.library });
  const bufId = (name: string) => {
    const b = base.buffers.find((x) => x.name === name);
    if (!b) throw new Error(`clusterfusion: compiled graph has no buffer '${name}'`);
    return b.id;
  };
  const opOf = (k: KernelSpec) => k.opIds.map((id) => id.replace(/^L\d+\./, ''));
  const tasks: Task[] = [];
  const kernels: KernelSpec[] = [];
  const fusedDone = new Set<number>();
  for (const k of base.kernels) {
    const ops = opOf(k);
    const isFused = k.layer >= 0 && k.layer < graph.layers && ops.some((o) => FUSED.includes(o));
    if (isFused) {
      if (ops.some((o) => !FUSED.includes(o))) throw new Error(`clusterfusion: kernel ${k.name} mixes fused and unfused ops`);
      if (fusedDone.has(k.layer)) continue;
      fusedDone.add(k.layer);
      // The ops of this layer the kernel replaces, in graph order (q/k norm only where the model has it).
      const opIds = graph.ops.filter((o) => o.layer === k.layer && FUSED.includes(o.id.replace(/^L\d+\./, ''))).map((o) => o.id);
      const per = opts.ctasPerUnit ?? 1;
      const kernel: KernelSpec = {
        id: kernels.length,
        name: `L${k.layer}.cluster_attention`,
        opIds,
        layer: k.layer,
        tasks: [],
        ...(per > 1 ? { workgroupsPerUnit: per } : {}),
      };
      const latent = graph.ops.some((o) => o.layer === k.layer && o.kind === 'attention' && o.latent);
      for (const t of latent ? mlaFusedTasks(graph, k.layer, topology, opts, N, bufId) : fusedTasks(graph, k.layer, topology, opts, N, dataflow, bufId)) {
        kernel.tasks.push(tasks.length);
        tasks.push({ ...t, id: tasks.length, kernel: kernel.id });
      }
      kernels.push(kernel);
      continue;
    }
    const kernel: KernelSpec = { ...k, id: kernels.length, tasks: [] };
    for (const id of k.tasks) {
      kernel.tasks.push(tasks.length);
      tasks.push({ ...base.tasks[id]!, id: tasks.length, kernel: kernel.id });
    }
    kernels.push(kernel);
  }
  return { policy: 'clusterfusion', style: 'kernel-per-op', buffers: base.buffers, tasks, events: [], kernels, layers: [...opts.layers] };
}

function fusedTasks(
  graph: OpGraph,
  layer: number,
  topology: Topology,
  opts: ClusterFusionOptions,
  N: number,
  dataflow: ClusterDataflow,
  bufId: (name: string) => number,
): Omit<Task, 'id' | 'kernel'>[] {
  const p = `L${layer}.`;
  const att = graph.ops.find((o) => o.id === `${p}attention`) as AttentionOp | undefined;
  const qkv = graph.ops.find((o) => o.id === `${p}qkv_proj`) as LinearOp | undefined;
  const oProj = graph.ops.find((o) => o.id === `${p}o_proj`) as LinearOp | undefined;
  if (!att || !qkv || !oProj) throw new Error(`clusterfusion: layer ${layer} lacks qkv_proj, attention or o_proj`);
  const { heads, kvHeads, headDim: d, kvLen, batch } = att;
  const hidden = qkv.k;
  const G = heads / kvHeads;
  if (d % N !== 0 || hidden % N !== 0) throw inputError(`clusterfusion: cluster size ${N} must divide the head dim ${d} and hidden ${hidden}`);
  const resident = residentClusters(topology, opts, N);
  const split = opts.requestSplit;
  if (split !== undefined && !(Number.isInteger(split) && split >= 1))
    throw inputError(`clusterfusion: requestSplit must be a positive integer (got ${split})`);
  // Clusters per KV group, each serving a contiguous share of the requests.
  const S = Math.max(1, Math.min(batch, split ?? Math.floor(resident / kvHeads)));
  const units = kvHeads * S;
  const C = Math.min(units, resident);
  const b = { x: bufId('x'), wqkv: bufId(qkv.weight), k: bufId(att.kCache), v: bufId(att.vCache), wo: bufId(oProj.weight), o: bufId(oProj.outputs[0]!) };
  /** Gather and reduce latencies of a unit serving `nb` requests. */
  const collectives = (nb: number) => {
    const m = clusterMessages(att, N, dataflow, nb);
    return {
      gatherNs: collectiveNs('gather', m.gather, N, topology, opts),
      reduceNs: m.reduces.reduce((s, bytes) => s + collectiveNs('reduce', bytes, N, topology, opts), 0),
    };
  };
  const rowsPer = d / N;
  const out: Omit<Task, 'id' | 'kernel'>[] = [];
  for (let c = 0; c < C; c++) {
    for (let j = 0; j < N; j++) {
      const tiles: Tile[] = [];
      for (let u = c; u < units; u += C) {
        const g = u % kvHeads;
        const share = Math.floor(u / kvHeads);
        const r0 = Math.floor((share * batch) / S);
        const r1 = Math.floor(((share + 1) * batch) / S);
        const nb = r1 - r0;
        const { gatherNs, reduceNs } = collectives(nb);
        // 1. this CTA's rows of the group's q (G heads), k and v in W_qkv [out, in], against its requests' input rows [r0, r1)
        const wRows = (row0: number, rows: number): Region => ({ buffer: b.wqkv, offset: row0 * hidden * EL, bytes: rows * hidden * EL, policy: 'default' });
        tiles.push({
          reads: [
            batchRows(b.x, r0 * hidden * EL, hidden * EL, nb, hidden * EL),
            wRows(g * G * d + (j * G * d) / N, (G * d) / N),
            wRows(heads * d + g * d + j * rowsPer, rowsPer),
            wRows((heads + kvHeads) * d + g * d + j * rowsPer, rowsPer),
          ],
          writes: [],
          flops: (2 * (G + 2) * d * hidden * nb) / N,
          unit: 'matrix',
        });
        // 2. gather q/k/v of its requests; q/k norm and RoPE in registers
        if (gatherNs > 0) tiles.push({ reads: [], writes: [], flops: 8 * (G + 2) * d * nb, unit: 'vector', fixedNs: gatherNs });
        // 3. attention, request by request: SplitToken over this CTA's positions; SplitHead over
        // its head-dim slice. One tile streamed in KV_CHUNK steps: the kernel's TMA boxes follow
        // each other through the double buffer, so only the first chunk waits out the latency.
        for (let r = r0; r < r1; r++) {
          const kvBase = (r * kvHeads + g) * kvLen;
          const t0 = dataflow === 'split-token' ? Math.floor((j * kvLen) / N) : 0;
          const t1 = dataflow === 'split-token' ? Math.floor(((j + 1) * kvLen) / N) : kvLen;
          const len = t1 - t0;
          const kv = (buffer: number): Region =>
            dataflow === 'split-token'
              ? { buffer, offset: (kvBase + t0) * d * EL, bytes: len * d * EL, policy: 'default' }
              : { buffer, offset: ((kvBase + t0) * d + j * rowsPer) * EL, bytes: rowsPer * EL, rows: len, strideBytes: d * EL, policy: 'default' };
          const tile: Tile = {
            reads: len > 0 ? [kv(b.k), kv(b.v)] : [],
            writes: [],
            flops: (4 * G * len * d) / (dataflow === 'split-token' ? 1 : N),
            unit: 'matrix',
          };
          const steps = Math.ceil(len / KV_CHUNK);
          if (steps > 1) tile.steps = steps;
          if (j === 0) {
            const at = (kvBase + kvLen - 1) * d * EL;
            tile.writes.push({ buffer: b.k, offset: at, bytes: d * EL, policy: 'default' }, { buffer: b.v, offset: at, bytes: d * EL, policy: 'default' });
          }
          if (len > 0 || j === 0) tiles.push(tile);
        }
        // 4. softmax statistics and output (SplitHead: scores and output) reductions, its requests at once
        if (reduceNs > 0) tiles.push({ reads: [], writes: [], flops: 4 * G * d * nb, unit: 'vector', fixedNs: reduceNs });
        // 5. this CTA's output rows of W_o [hidden, heads·d] over the group's columns, added atomically into its requests' o rows
        const oRows = hidden / N;
        tiles.push({
          reads: [
            { buffer: b.wo, offset: (j * oRows * heads * d + g * G * d) * EL, bytes: G * d * EL, rows: oRows, strideBytes: heads * d * EL, policy: 'default' },
          ],
          writes: [batchRows(b.o, (r0 * hidden + j * oRows) * EL, oRows * EL, nb, hidden * EL)],
          flops: 2 * oRows * G * d * nb,
          unit: 'matrix',
        });
      }
      out.push(ctaTask(layer, c, j, tiles, opts.pipeline));
    }
  }
  return out;
}

/**
 * ClusterFusion needs thread-block clusters: a chiplet level of blocks that share distributed
 * shared memory (its collectives are priced by the backend's `cluster-*` models when it has
 * them, else from the chiplet coherence scope).
 */
function needsClusters(backend: Backend): string | null {
  const unit = backend.topology.levels.chiplet.unit;
  if (unit === 'cluster') return null;
  return `${backend.name} has no thread-block clusters with distributed shared memory (its chiplet level is the ${unit}); ClusterFusion's ClusterReduce/ClusterGather need them`;
}

/**
 * A ClusterFusion compile's options: the schedule's cluster size, dataflow and DSMEM choice (a
 * user's overrides) over the backend's cluster tuning (size, co-resident clusters) and
 * collectives in `opts.cluster`. Co-resident clusters are the backend's for its own cluster
 * size; another size gets the topology's placement (`clustersFromPartitions`).
 */
export function clusterFusionOptions(schedule: Schedule, opts: CompileOptions): ClusterFusionOptions {
  const c = opts.cluster ?? {};
  const size = schedule.clusterSize ?? c.size;
  const maxActive = size === c.size ? c.maxActiveClusters : undefined;
  return {
    ctasPerUnit: c.ctasPerUnit,
    pipeline: c.pipeline,
    layers: opts.layers,
    library: opts.library,
    weights: opts.weights,
    clusterSize: size,
    dataflow: schedule.clusterDataflow ?? c.dataflow,
    collectives: c.collectives,
    offChip: schedule.dsmem === false,
    maxActiveClusters: maxActive === undefined ? undefined : () => maxActive,
  };
}

/** ClusterFusion as a policy: the cluster block per layer over kernel-per-op-graph kernels, one graph. */
export const CLUSTERFUSION: Policy = {
  name: 'clusterfusion',
  description:
    'Hopper: QKV projection + attention + output projection fused per head group in a thread-block cluster (DSMEM collectives), FFN as kernels, one graph',
  schedule: kernelSchedule('graph'),
  unsupportedOn: needsClusters,
  prefill: 'ClusterFusion fuses the decode attention block (one query token per request); prefill runs on the base kernels',
  tensorParallel: 'its cluster kernel fuses QKV, attention and the O projection of whole heads on one GPU',
  // The fused block reads 2-byte weights and the base kernels compile with the graph's dtype and
  // kernel-per-op-graph's own schedule: a low-bit type or a megakernel knob would be ignored.
  refusesOptions: (o) =>
    sixteenBitWeightsOnly('clusterfusion', o.weights, 'its fused cluster kernel and its base kernels are modelled with 2-byte weights') ??
    unusedOverrides('clusterfusion', o.overrides, CLUSTER_KNOBS),
  functional: (model) =>
    model.mla ? 'the fused MLA cluster block is simulated for timing only (functional runs cover its kernel-per-op and megakernel schedules)' : null,
  compile(graph: OpGraph, backend: Backend, schedule, opts: CompileOptions): TaskGraph {
    return compileClusterFusion(graph, backend.topology, clusterFusionOptions(schedule, opts));
  },
  runtime: () => ({ launchMode: 'graph' }),
  // Projections outside the fused block run as kernel-per-op-graph kernels.
  linearPolicy: KERNEL_PER_OP_GRAPH,
};
