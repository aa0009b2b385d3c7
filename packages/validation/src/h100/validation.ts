/**
 * H100 validation: Fleet's predictions beside our own H100 measurements (`measured/`, never
 * used for parameters), our GEMV calibration points, ClusterFusion's Table 1 and its cluster-size
 * claims. Every row says where its number comes from and how far the prediction is off.
 */
import {
  addCounters,
  buildDecodeGraph,
  loadModel,
  l2HitRate,
  relativeError,
  simulateGraph,
  zeroCounters,
  type Backend,
  type KernelLibrary,
  type ModelSpec,
  type SimEvent,
  type ValidationRow,
} from '@fleet/core';
import * as ops from '@fleet/ops';
import measured from './measured/h100-e2e-ours.json' with { type: 'json' };
import {
  SDPA_GROUPED_ROWS_LIBRARY,
  kernelLibraryOn,
  CLUSTER_DOMAINS,
  CLUSTERFUSION_BENCH,
  CLUSTERFUSION_CTAS_PER_SM,
  OURS,
  PRIOR,
  clusterFusionBenchKernel,
  collectiveModel,
  dsmem,
  maxActiveClusters,
} from '@fleet/family-hopper';
import reference from './measured/clusterfusion-table1.json' with { type: 'json' };

/** Our collective kernels' per-thread access, bytes (fp32, 16 B accesses: measured.collectives.method). */
const OUR_KERNEL_ACCESS_BYTES = 16;

export interface H100ValidationOptions {
  /** Called once per experiment point (progress bars). */
  tick?: (label: string) => void;
  /** Fewer, cheaper points (tests): batch 1 and 64, two contexts, no 64/128-head models. */
  quick?: boolean;
  /** Decode positions simulated per TPOT point (TPOT is near-linear in position). Default 2. */
  positions?: number;
}

const OURS_E2E = 'ours: bench/h100/e2e.py on an H100 80GB HBM3, 2026-11-21 (packages/validation/src/h100/measured/h100-e2e-ours.json)';
const OURS_MB = 'ours: bench/h100/microbench.cu on an H100 80GB HBM3, 2026-11-21 (measured/h100-e2e-ours.json collectives)';
const CF = 'ClusterFusion (arXiv 2508.18850), /work/shared/reference/clusterfusion-h100.json';

/**
 * The backend as our bench/h100 scripts call the libraries: SDPA with a GQA group's queries as
 * the query rows of their KV head, which runs cuDNN's unsplit kernel. Suites over those
 * measurements price that call, not the split-KV decode attention a serving engine runs.
 */
export function groupedRows(backend: Backend): Backend {
  return { ...backend, kernelLibrary: kernelLibraryOn(SDPA_GROUPED_ROWS_LIBRARY, backend.topology.memory.hbm) };
}

/**
 * The goal for a time or a ratio in the H100/H200 suites: within 10% (counts and rates carry
 * their own). A row outside it is a miss, stated as such.
 */
export const GOAL_PCT = 10;

export function row(
  experiment: string,
  kind: ValidationRow['kind'],
  published: number | [number, number],
  predicted: number,
  unit: string,
  tolerance: number,
  source: string,
): ValidationRow {
  const error = relativeError(predicted, published);
  const r = (x: number) => Math.round(x * 1e4) / 1e4;
  return {
    suite: 'h100',
    experiment,
    kind,
    published: Array.isArray(published) ? [r(published[0]), r(published[1])] : r(published),
    predicted: r(predicted),
    unit,
    error: Math.round(error * 10) / 10,
    errorUnit: '%',
    tolerance,
    ok: Math.abs(error) <= tolerance,
    source,
  };
}

/**
 * A claimed speedup (a value or range above 1) beside Fleet's, within `tolerance` %. Fleet
 * predicting no speedup or a slowdown (≤ 1) never passes, however close the number: a
 * slowdown is not a small miss of a speedup.
 */
export function speedupRow(experiment: string, published: number | [number, number], predicted: number, tolerance: number, source: string): ValidationRow {
  const r = row(experiment, 'claim', published, predicted, '×', tolerance, source);
  return { ...r, ok: r.ok && predicted > 1 };
}

/** One linear op launched on its own under kernel-per-op-graph, µs (launch and graph node included). */
/**
 * A measured cuBLAS bf16 GEMM (cold weights) beside the predicted linear op, µs, within 15% up to
 * M = 256 and 20% above; `picked` names the kernel the backend's library chose, where shown.
 * `withGraphLaunch`: the measured time per call holds its share of the graph's launch (the
 * backend's `graphLaunchNs`), as it did on the H100 that measured it.
 */
export function gemmRow(
  backend: Backend,
  m: { op: string; m: number; n: number; k: number; us: number; kernels: { name: string }[] },
  kind: ValidationRow['kind'],
  source: string,
  picked?: string,
  withGraphLaunch = true,
): ValidationRow {
  // bench/h100/pipeline.py's graph: the weights rotated over 256 MB (2 to 64 copies), one call
  // each, fewer where that many would pass 4 TFLOP
  const flop = 2 * m.m * m.n * m.k;
  const copies = rotatedCopies(m.n * m.k * 2);
  const calls = flop * copies < 4e12 ? copies : Math.max(2, Math.floor(4e12 / flop));
  const p = linearOpUs(backend, m.m, m.n, m.k, 'bf16', backend.kernelLibrary, withGraphLaunch ? calls : undefined);
  const cublas = `cuBLAS ${m.kernels[0]!.name.replace(/_v_bz|_h_bz|_TN[TN]$/g, '')}`;
  const kernels = picked === undefined ? cublas : `picked ${picked}; ${cublas}`;
  return row(`GEMM bf16 M=${m.m} ${m.op} N=${m.n} K=${m.k} (${kernels})`, kind, m.us, p.us, 'µs', GOAL_PCT, source);
}

/** One measured decode point (TPOT of one token at `kvLen`, one CUDA graph) beside its prediction. */
export function graphDecodeRow(
  backend: Backend,
  d: { model: string; batch: number; kvLen: number; tpotMs: number },
  tolerancePct: number,
  source: string,
): ValidationRow {
  const r = ops.predictDecode(backend, loadModel(d.model), { policy: 'kernel-per-op-graph', batch: d.batch, prompt: d.kvLen - 1, decode: 1, positions: 1 });
  return row(`${d.model} decode TPOT, one CUDA graph, batch ${d.batch}, KV ${d.kvLen}`, 'measurement', d.tpotMs, r.tpotMs, 'ms', tolerancePct, source);
}

/** One linear op under kernel-per-op-graph, µs; `library` replaces the backend's (another low-bit kernel choice). */
/**
 * Copies the bench scripts rotate an input over so a graph of calls reads cold data
 * (`copies_for` in bench/device/sweep.py, `rotating` in bench/h100/pipeline.py): enough for
 * `target` bytes, 2 to `cap`.
 */
export function rotatedCopies(bytesEach: number, cap = 64, target = 256e6): number {
  return Math.max(2, Math.min(cap, Math.ceil(target / bytesEach)));
}

/** The share of a graph's own launch (the backend's `launch.graphLaunchNs`) each of its `calls` calls holds, ns. */
export function graphLaunchShareNs(backend: Backend, calls: number): number {
  return (backend.costModel.launch.graphLaunchNs ?? 0) / calls;
}

/**
 * Calls in the graph bench/device/sweep.py replays for one GEMM point (`linear_point`, and the
 * FP8 section alike): the weights' copies repeated up to 16 calls.
 */
export function gemmGraphCalls(weightBytes: number): number {
  const copies = rotatedCopies(weightBytes);
  return Math.max(1, Math.floor(16 / copies)) * copies;
}

/**
 * One GEMM alone as the kernel-per-op graph runs it, µs; with `calls`, per call of a graph of
 * that many such calls, which holds a `calls`-th of the graph's own launch.
 */
export function linearOpUs(
  backend: Backend,
  m: number,
  n: number,
  k: number,
  weights = 'bf16',
  library: KernelLibrary | undefined = backend.kernelLibrary,
  calls?: number,
): { us: number; l2HitRate: number } {
  const def = ops.KERNEL_PER_OP_GRAPH;
  const wt = ops.parseWeightType(weights);
  const graph = def.compile(ops.linearOpGraph(m, n, k), backend, def.schedule, {
    layers: [0],
    library,
    kernels: backend.tuning.kernels,
    weights: wt,
  });
  const r = simulateGraph(backend, graph, { launchMode: 'graph' });
  const c = zeroCounters();
  for (const b of r.counters) addCounters(c, b);
  const replayNs = calls ? graphLaunchShareNs(backend, calls) : 0;
  return { us: (r.timeNs + replayNs) / 1000, l2HitRate: l2HitRate(c) };
}

const SHAPES: Record<string, [number, number]> = {
  qkv_proj: [6144, 4096],
  o_proj: [4096, 4096],
  gate_up_proj: [24576, 4096],
  down_proj: [4096, 12288],
  lm_head: [151936, 4096],
};

/** Duration of the fused cluster-attention kernel of layer 0 at batch 1, µs. */
export function clusterKernelUs(backend: Backend, model: ModelSpec, context: number, clusterSize: number, offChip = false): number {
  const g = buildDecodeGraph(model, { batch: 1, contextLen: context - 1 });
  const tg = ops.compileClusterFusion(g, backend.topology, {
    layers: [0],
    clusterSize,
    collectives: backend.collectives,
    offChip,
    maxActiveClusters: (n) => maxActiveClusters(n, CLUSTER_DOMAINS, CLUSTERFUSION_CTAS_PER_SM),
    ctasPerUnit: CLUSTERFUSION_CTAS_PER_SM,
  });
  const fused = tg.kernels.find((k) => k.name.endsWith('cluster_attention'))!;
  let start = 0;
  let end = 0;
  const observe = (events: readonly SimEvent[]) => {
    for (const e of events) {
      if (e.type === 'launch' && e.kernel === fused.id) start = e.t;
      if (e.type === 'kernel-end' && e.kernel === fused.id) end = e.t;
    }
  };
  simulateGraph(backend, tg, { launchMode: 'graph', observers: [observe] });
  return (end - start) / 1000;
}

/**
 * ClusterFusion TPOT at one decode position, ms: layers 0–2 simulated, the steady layer
 * repeated for the rest (as `predictDecode` samples).
 */
export function clusterFusionTpotMs(backend: Backend, model: ModelSpec, batch: number, context: number, clusterSize: number, offChip = false): number {
  const S = Math.min(3, model.numLayers);
  const g = buildDecodeGraph(model, { batch, contextLen: context - 1 });
  const tg = ops.compileClusterFusion(g, backend.topology, {
    layers: Array.from({ length: S }, (_, i) => i),
    clusterSize,
    collectives: backend.collectives,
    offChip,
    maxActiveClusters: (n) => maxActiveClusters(n, CLUSTER_DOMAINS, CLUSTERFUSION_CTAS_PER_SM),
    ctasPerUnit: CLUSTERFUSION_CTAS_PER_SM,
  });
  const r = simulateGraph(backend, tg, { launchMode: 'graph' });
  const end = (b: number) => r.layerEndNs[b] ?? 0;
  const steady = S > 1 ? (end(S) - end(1)) / (S - 1) : end(1) - end(0);
  return (r.timeNs + (model.numLayers - S) * steady) / 1e6;
}

/** A Llama2-7B-shaped MHA model with `heads` heads of 128 (hidden = 128 · heads), for the cluster-size claim. */
function mhaVariant(heads: number): ModelSpec {
  const base = loadModel('llama2-7b');
  return { ...base, name: `llama2-7b-${heads}h`, numHeads: heads, numKvHeads: heads, hiddenSize: heads * base.headDim };
}

export function h100Validation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = groupedRows(device);
  const tick = opts.tick ?? (() => {});
  const quick = opts.quick ?? false;
  const positions = opts.positions ?? 2;
  const rows: ValidationRow[] = [];

  // 1. End-to-end TPOT, Qwen3-8B bf16, PyTorch ops in one CUDA graph (≈ 27 kernels per layer).
  const qwen = loadModel('qwen3-8b');
  const q = measured.qwen3Decode;
  for (const m of q.rows.filter((r) => !quick || r.batch === 1 || r.batch === 64)) {
    tick(`qwen3-8b b${m.batch}`);
    const p = ops.predictDecode(backend, qwen, { policy: 'kernel-per-op-graph', batch: m.batch, prompt: q.promptTokens, decode: q.decodeTokens, positions });
    rows.push(
      row(`Qwen3-8B bf16 decode TPOT, kernel-per-op-graph, batch ${m.batch} (64 prompt + 1024 decode)`, 'measurement', m.tpotMs, p.tpotMs, 'ms', 10, OURS_E2E),
    );
  }
  // 1b. The same steps launched eagerly (PyTorch, no graph): kernel-per-op.
  for (const m of measured.qwen3DecodeRepeat.rows.filter((r) => !quick || r.batch === 1)) {
    tick(`qwen3-8b eager b${m.batch}`);
    const p = ops.predictDecode(backend, qwen, { policy: 'kernel-per-op', batch: m.batch, prompt: q.promptTokens, decode: q.decodeTokens, positions });
    rows.push(row(`Qwen3-8B bf16 decode TPOT, kernel-per-op (eager PyTorch), batch ${m.batch}`, 'measurement', m.eagerTpotMs, p.tpotMs, 'ms', 10, OURS_E2E));
  }
  // 2. Llama2-7B fp16, batch 1, contexts 1K–16K.
  const llama = loadModel('llama2-7b');
  for (const m of measured.llama2Decode.rows.filter((r) => !quick || r.context === 1024 || r.context === 16384)) {
    tick(`llama2-7b ctx ${m.context}`);
    const p = ops.predictDecode(backend, llama, { policy: 'kernel-per-op-graph', batch: 1, prompt: m.context - 1, decode: 1, positions: 1 });
    rows.push(row(`Llama2-7B fp16 decode TPOT, kernel-per-op-graph, batch 1, context ${m.context}`, 'measurement', m.tpotMs, p.tpotMs, 'ms', 10, OURS_E2E));
  }
  // 3. GEMV at M = 1 (calibration: the QKV point set the bytes in flight per SM) and GEMMs at M > 1.
  const gemv = PRIOR.gemvBf16ColdUs as unknown as Record<string, number>;
  const gemvUs: Record<string, number> = {
    qkv_proj: gemv.qkv_proj_N6144_K4096!,
    o_proj: gemv.o_proj_N4096_K4096!,
    gate_up_proj: gemv.gate_up_N24576_K4096!,
    down_proj: gemv.down_proj_N4096_K12288!,
    lm_head: OURS.gemvM1.rows.find((r) => r.op === 'lm_head')!.graphUsPerOp,
  };
  for (const [op, us] of Object.entries(gemvUs)) {
    tick(`gemv ${op}`);
    const [n, k] = SHAPES[op]!;
    const p = linearOpUs(backend, 1, n, k);
    const src =
      op === 'lm_head'
        ? 'ours: bench/h100/e2e.py, F.linear in a CUDA graph (calibration/h100-microbench-ours.json gemvM1)'
        : 'prior: /work/shared/reference/h100-microbench.json gemvBf16ColdUs (back-to-back F.linear)';
    rows.push(row(`GEMV bf16 M=1 ${op} N=${n} K=${k}, kernel-per-op-graph`, 'calibration', us, p.us, 'µs', GOAL_PCT, src));
  }
  for (const m of measured.linear.rows.filter((r) => r.op !== 'lm_head' && (r.m === 8 || r.m === 64) && (!quick || r.op === 'qkv_proj'))) {
    tick(`gemm ${m.op} m${m.m}`);
    const p = linearOpUs(backend, m.m, m.n, m.k);
    rows.push(row(`GEMM bf16 M=${m.m} ${m.op} N=${m.n} K=${m.k}, kernel-per-op-graph`, 'measurement', m.graphUsPerOp, p.us, 'µs', GOAL_PCT, OURS_E2E));
  }
  // 4. Collectives: our kernels (one cluster, 128 threads per CTA, clock64 between first and last barrier).
  // They combine 16 B (float4) per thread per step where ClusterFusion's primitive adds one half2.
  const hasModel = (name: string) => backend.collectives.some((c) => c.name === name);
  for (const m of measured.collectives.rows) {
    if (m.grid !== 'one-cluster' || !(m.bytes === 4096 || m.bytes === 32768) || (quick && m.cluster !== 4)) continue;
    if (!hasModel(`${m.onChip ? 'cluster' : 'global'}-${m.op}`)) continue;
    const c = collectiveModel(m.op as 'reduce' | 'gather', !!m.onChip, OUR_KERNEL_ACCESS_BYTES);
    // the measured on-chip reduce ends with one more cluster barrier after its last round
    const extra = m.op === 'reduce' && m.onChip ? dsmem.barrierNs(m.cluster) : 0;
    rows.push(
      row(
        `Cluster${m.op === 'reduce' ? 'Reduce' : 'Gather'} ${m.bytes / 1024} KB per CTA, cluster ${m.cluster}, ${m.onChip ? 'on chip (DSMEM)' : 'off chip (global memory)'}`,
        'measurement',
        m.collectiveUs,
        (c.latencyNs(m.bytes, m.cluster) + extra) / 1000,
        'µs',
        GOAL_PCT,
        OURS_MB,
      ),
    );
  }
  // 6. Cluster placement: clusters of 1 CTA per SM that fit, from the GPC sizes, vs cudaOccupancyMaxActiveClusters.
  for (const n of [2, 4, 8, 16]) {
    rows.push(
      row(
        `max active clusters of ${n} (1 CTA per SM), derived from the GPC placement domains`,
        'calibration',
        OURS.occupancy.oneCtaPerSm[n - 1]!,
        maxActiveClusters(n),
        'clusters',
        0,
        'ours: cudaOccupancyMaxActiveClusters (calibration/h100-microbench-ours.json)',
      ),
    );
  }
  // 7. ClusterFusion's cluster-size trend of the fused kernel (batch 1, context 4K).
  const ctx = 4096;
  for (const heads of quick ? [32] : [32, 64, 128]) {
    const mdl = heads === 32 ? llama : mhaVariant(heads);
    const t: Record<number, number> = {};
    for (const n of [2, 4, 8, 16]) {
      tick(`clusterfusion ${heads} heads N${n}`);
      t[n] = clusterKernelUs(backend, mdl, ctx, n);
    }
    const best = [2, 4, 8, 16].reduce((a, b) => (t[b]! < t[a]! ? b : a));
    const claimed = heads === 128 ? 2 : 4;
    rows.push(
      row(`ClusterFusion: best cluster size for ${heads} heads (fused attention kernel, batch 1, context ${ctx})`, 'claim', claimed, best, 'CTAs', 0, CF),
    );
    if (heads === 32) {
      for (const n of [8, 16]) {
        rows.push(
          row(
            `ClusterFusion: cluster ${n} slower than 4 for 32 heads (time ratio, fused kernel, context ${ctx})`,
            'claim',
            [1, 100],
            t[n]! / t[4]!,
            'ratio',
            0,
            CF,
          ),
        );
      }
      // DSMEM disabled: the same dataflow exchanging through global memory
      tick('clusterfusion off chip');
      const on = clusterFusionTpotMs(backend, llama, 1, ctx, 4, false);
      const off = clusterFusionTpotMs(backend, llama, 1, ctx, 4, true);
      rows.push(
        row(
          `ClusterFusion: disabling DSMEM raises TPOT by up to 33% (Llama2-7B, cluster 4, context ${ctx}; TPOT ratio)`,
          'claim',
          1.33,
          off / on,
          'ratio',
          10,
          CF,
        ),
      );
    }
  }
  return rows;
}

/**
 * Tolerances of the Table 1 rows, %: the goal for times and ratios. The benchmark's fixed work
 * around the collective (data initialisation, barrier setup, timing) is not described by the
 * paper; where the modelled kernel misses it, the row misses.
 */
export const TABLE1_TOLERANCE = { trend: 10, onChip: 10, offChip: 10, speedup: 10 } as const;

/**
 * ClusterFusion's Table 1 (collective kernels on H100, launch included) beside the benchmark
 * modelled as the paper ran it (`clusterFusionBenchKernel`: 32 clusters of 4, the data size the
 * total over them) with the DSMEM and global-memory rates we measured. Per point and, the
 * quantity the paper's argument rests on, the trend: latency at 256 KB over latency at 32 KB.
 *
 * The paper gives neither the benchmark's grid nor what its data size counts, and the public
 * code has no timing harness, so the grid is an assumption. The table constrains it: the
 * gathers barely grow from 32 to 256 KB (+0.25 µs on chip, +0.35 µs off), so each CTA's share
 * must be small, as here; read as one cluster's inputs (a quarter per CTA) a 256 KB gather would
 * end with 256 KB per CTA, more than the 227 KB of shared memory a CTA can hold. The off-chip
 * reduce grows by 14.4 µs over the same range, 41× the off-chip gather's growth for 2.7× its
 * bytes per CTA (log2 N rounds of the whole vector against (N − 1)/N of it), which no shared
 * per-byte cost can give; read as a quarter per CTA, the same model comes within ~12% of
 * those rows (and so does our own one-cluster kernel, `measured.collectives`). The two ops
 * cannot share one reading, so those rows miss rather than take a grid chosen to fit them.
 */
export function clusterFusionTableValidation(): ValidationRow[] {
  const rows: ValidationRow[] = [];
  const table = reference.collectiveLatencyUs;
  const { clusters, clusterSize } = CLUSTERFUSION_BENCH;
  for (const op of ['reduce', 'gather'] as const) {
    const Op = `Cluster${op === 'reduce' ? 'Reduce' : 'Gather'}`;
    for (const onChip of [true, false]) {
      const medium = onChip ? 'on chip (DSMEM)' : 'off chip (global memory)';
      const col = onChip ? 1 : 0;
      const tol = onChip ? TABLE1_TOLERANCE.onChip : TABLE1_TOLERANCE.offChip;
      const us: Record<string, number> = {};
      for (const [kb, pair] of Object.entries(table[op])) {
        const k = clusterFusionBenchKernel(op, Number(kb) * 1024, onChip);
        us[kb] = k.kernelUs;
        rows.push(
          row(
            `ClusterFusion Table 1: ${Op} ${kb} KB, ${medium} (kernel incl. launch; ${clusters} clusters of ${clusterSize}, ${k.perCtaBytes} B per CTA)`,
            'claim',
            pair[col]!,
            k.kernelUs,
            'µs',
            tol,
            CF,
          ),
        );
      }
      rows.push(
        row(
          `ClusterFusion Table 1: ${Op} ${medium}, latency at 256 KB over 32 KB (trend)`,
          'claim',
          table[op]['256'][col]! / table[op]['32'][col]!,
          us['256']! / us['32']!,
          'ratio',
          TABLE1_TOLERANCE.trend,
          CF,
        ),
      );
    }
    // The table's speedup column: off-chip over on-chip latency at each size.
    for (const [kb, pair] of Object.entries(table[op])) {
      const off = clusterFusionBenchKernel(op, Number(kb) * 1024, false).kernelUs;
      const on = clusterFusionBenchKernel(op, Number(kb) * 1024, true).kernelUs;
      rows.push(
        speedupRow(
          `ClusterFusion Table 1: ${Op} ${kb} KB, speedup of on chip (DSMEM) over off chip (global memory) (${off.toFixed(2)} → ${on.toFixed(2)} µs)`,
          pair[0]! / pair[1]!,
          off / on,
          TABLE1_TOLERANCE.speedup,
          CF,
        ),
      );
    }
  }
  return rows.map((r) => ({ ...r, suite: 'clusterfusion' }));
}
