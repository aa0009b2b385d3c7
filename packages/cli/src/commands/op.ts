import { Option, type Command } from 'commander';
import {
  addCounters,
  inputError,
  l2HitRate,
  loadModel,
  simulateGraph,
  uniqueReadBytes,
  zeroCounters,
  type Backend,
  type LinearOp,
  type TaskGraph,
} from '@fleet/core';
import {
  attentionModuleLatency,
  DENSE_BF16,
  fp8RefusalOn,
  linearOpGraph,
  parseWeightType,
  PolicyRegistry,
  type Policy,
  type PolicyOverrides,
  type WeightType,
} from '@fleet/ops';
import { loadBackends } from '../backends.js';
import { policiesOf, requirePolicy } from '../policies.js';
import { parseInt1 } from '../compare.js';
import { CLUSTER_SIZES, overridesOf } from '../report/compare-options.js';
import type { Io } from '../io.js';

export interface OpResult {
  backend: string;
  policy: string;
  op: 'linear';
  m: number;
  n: number;
  k: number;
  /** Weight type: `bf16`, or a low-bit type with its group (e.g. `u4g128`). */
  weights: string;
  /** Bytes of the weight as stored: packed codes plus group scales when quantized. */
  weightBytes: number;
  timeUs: number;
  /**
   * Distinct bytes the op reads from buffers it does not write (weights, scales, input): a
   * cold op reads at least these from DRAM.
   */
  uniqueReadBytes: number;
  /** Bytes read from DRAM (HBM), after the memory-side LLC where there is one. */
  hbmReadBytes: number;
  /** L2 read misses sent to the fabric (the LLC or HBM serves them): L2-to-fabric counters. */
  fabricReadBytes: number;
  hbmWriteBytes: number;
  l2HitRate: number;
  tasks: number;
  /** Stored weight bytes over the time: the bandwidth the op reached. */
  weightTBps: number;
}

/** A linear op compiled on its own under a policy, ready to simulate. */
export interface CompiledLinearOp {
  graph: TaskGraph;
  /** The policy the op ran under: the one asked for, or its `linearPolicy`. */
  policy: Policy;
  /** Bytes of the weight as stored: packed codes plus group scales when quantized. */
  weightBytes: number;
}

/**
 * Compile one linear op as a decode step's linear would be under `policy` (ClusterFusion
 * runs projections outside its fused block as kernel-per-op-graph kernels).
 */
export function compileLinearOp(
  backend: Backend,
  policy: string,
  m: number,
  n: number,
  k: number,
  weights: WeightType = DENSE_BF16,
  policies: PolicyRegistry = new PolicyRegistry(),
): CompiledLinearOp {
  const asked = requirePolicy(backend, policy, policies).policy;
  const runs = asked.linearPolicy ?? asked;
  // A weight type the policy's kernels or the backend's library cannot run is refused, not simulated as something else.
  const refused = runs.refusesOptions?.({ phase: 'decode', weights }) ?? fp8RefusalOn(backend, weights);
  if (refused) throw inputError(refused, 'weights');
  const opGraph = linearOpGraph(m, n, k);
  // A fused block's outside kernels are its own build, not the framework's ops: no kernel granularity.
  const kernels = asked.linearPolicy ? undefined : backend.tuning.kernels;
  const graph = runs.compile(opGraph, backend, runs.schedule, { layers: [0], weights, kernels, library: backend.kernelLibrary });
  const op = opGraph.ops[0] as LinearOp;
  // What the simulation reads: the weight buffer (packed codes when quantized) and its scales.
  const weightBytes = graph.buffers.filter((b) => b.name === op.weight || b.name === `${op.weight}.scales`).reduce((s, b) => s + b.bytes, 0);
  return { graph, policy: runs, weightBytes };
}

/**
 * One linear op launched on its own under a policy: compiled like a decode step's linear and
 * simulated from a cold cache. Time includes the launch (a graph node for graph policies).
 */
export function runLinearOp(
  backend: Backend,
  policy: string,
  m: number,
  n: number,
  k: number,
  weights: WeightType = DENSE_BF16,
  policies?: PolicyRegistry,
): OpResult {
  const compiled = compileLinearOp(backend, policy, m, n, k, weights, policies);
  const { graph, weightBytes } = compiled;
  const r = simulateGraph(backend, graph, compiled.policy.runtime(backend, compiled.policy.schedule));
  const c = zeroCounters();
  for (const b of r.counters) addCounters(c, b);
  return {
    backend: backend.name,
    policy,
    op: 'linear',
    m,
    n,
    k,
    weights: weights.name,
    weightBytes,
    timeUs: Math.round(r.timeNs) / 1000,
    uniqueReadBytes: uniqueReadBytes(graph),
    hbmReadBytes: Math.round(c.hbmReadBytes),
    fabricReadBytes: Math.round(c.fabricReadBytes),
    hbmWriteBytes: Math.round(c.hbmWriteBytes),
    l2HitRate: Math.round(l2HitRate(c) * 1e4) / 1e4,
    tasks: graph.tasks.length,
    weightTBps: Math.round((weightBytes / r.timeNs / 1000) * 1000) / 1000,
  };
}

/** The attention module (QKV projection … output projection) of layer 0 under a policy and as kernel-per-op-graph kernels. */
export interface AttentionModuleResult {
  backend: string;
  policy: string;
  op: 'attention-module';
  model: string;
  batch: number;
  context: number;
  /** The policy's schedule overrides given (cluster size, dataflow, DSMEM). */
  overrides: PolicyOverrides;
  /** The module under the policy: first kernel's launch to last kernel's end, µs. */
  moduleUs: number;
  kernels: number;
  /** The same ops as kernel-per-op-graph kernels (PyTorch's, one CUDA graph), µs. */
  unfusedUs: number;
  unfusedKernels: number;
  /** unfusedUs / moduleUs. */
  speedup: number;
}

export function runAttentionModule(
  backend: Backend,
  policy: string,
  model: string,
  batch: number,
  context: number,
  overrides: PolicyOverrides = {},
  policies?: PolicyRegistry,
): AttentionModuleResult {
  const spec = loadModel(model);
  const fused = attentionModuleLatency(backend, spec, policy, { batch, context, overrides, policies });
  const base = attentionModuleLatency(backend, spec, 'kernel-per-op-graph', { batch, context, policies });
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    backend: backend.name,
    policy,
    op: 'attention-module',
    model: spec.name,
    batch,
    context,
    overrides,
    moduleUs: r3(fused.moduleUs),
    kernels: fused.kernels,
    unfusedUs: r3(base.moduleUs),
    unfusedKernels: base.kernels,
    speedup: r3(base.moduleUs / fused.moduleUs),
  };
}

/** `fleet op`: one operator launched on its own. */
export function registerOp(program: Command, io: Io): void {
  program
    .command('op')
    .description('predict one operator launched on its own: time, unique/fabric/HBM bytes, L2 hit rate')
    .requiredOption('--backend <name>', 'backend to simulate')
    .addOption(
      new Option(
        '--op <op>',
        "operator: linear (one y = x·Wᵀ), or attention-module (layer 0's QKV projection + attention + output projection of --model, under --policy and as kernel-per-op-graph kernels)",
      )
        .choices(['linear', 'attention-module'])
        .default('linear'),
    )
    .option('--m <n>', 'linear: rows of the activation (tokens)')
    .option('--n <n>', 'linear: output features (rows of the weight)')
    .option('--k <n>', 'linear: input features')
    .option('--model <name|path>', 'attention-module: the model', 'llama2-7b')
    .option('--batch <n>', 'attention-module: requests', '1')
    .option('--context <n>', 'attention-module: tokens in the KV cache, the new one included', '4096')
    .addOption(new Option('--cluster-size <n>', 'attention-module, cluster policies: CTAs per thread-block cluster').choices(CLUSTER_SIZES))
    .addOption(new Option('--dataflow <d>', 'attention-module, cluster policies: split-token or split-head').choices(['split-token', 'split-head']))
    .addOption(new Option('--dsmem <on|off>', 'attention-module, cluster policies: collectives through DSMEM or through global memory').choices(['on', 'off']))
    .option('--policy <name>', 'scheduling policy whose decomposition to use (default: kernel-per-op-graph; attention-module: clusterfusion)')
    .option(
      '--weights <type>',
      'weight type: bf16; W8A8 FP8 f8e4m3 (per-tensor scales), f8e4m3c (per-channel), f8e4m3ae5m2 (e5m2 activations), f8e4m3fnuz (CDNA3); or a low-bit type with a group, e.g. u4g128, i6g128, f6e3m2g128 (packed codes + scales, dequantized in the kernel)',
      'bf16',
    )
    .option('--json', 'machine-readable output')
    .action(async (o) => {
      const registry = await loadBackends(io.cwd);
      const backend = registry.get(o.backend as string);
      // The module's point is a fused policy against the unfused kernels.
      const policy = (o.policy as string | undefined) ?? (o.op === 'attention-module' ? 'clusterfusion' : 'kernel-per-op-graph');
      if (o.op === 'attention-module') {
        for (const f of ['m', 'n', 'k', 'weights'] as const) {
          if (o[f] !== undefined && !(f === 'weights' && o[f] === 'bf16')) throw inputError(`--${f} applies to --op linear (got --op attention-module)`);
        }
        const batch = parseInt1('--batch', o.batch as string, 1, 65536);
        const context = parseInt1('--context', o.context as string, 1, 1 << 22);
        const r = runAttentionModule(backend, policy, o.model as string, batch, context, overridesOf(o) ?? {}, policiesOf(registry));
        if (o.json) io.out(`${JSON.stringify({ schemaVersion: 1, ...r }, null, 2)}\n`);
        else
          io.out(
            `${r.backend} ${r.model} attention module (layer 0, batch ${batch}, context ${context}): ${r.policy} ${r.moduleUs.toFixed(2)} µs in ${r.kernels} kernel(s); kernel-per-op-graph ${r.unfusedUs.toFixed(2)} µs in ${r.unfusedKernels} kernels; speedup ${r.speedup.toFixed(2)}×\n`,
          );
        return;
      }
      for (const f of ['m', 'n', 'k'] as const) if (o[f] === undefined) throw inputError(`--${f} is required for --op linear`);
      const m = parseInt1('--m', o.m as string, 1, 65536);
      const n = parseInt1('--n', o.n as string, 1, 1 << 20);
      const k = parseInt1('--k', o.k as string, 1, 1 << 20);
      const weights = parseWeightType(String(o.weights));
      if (weights.kind === 'dense' && weights.bits !== 16)
        throw inputError(
          `--weights: '${String(o.weights)}': dense weights are modelled as 16-bit (bf16, fp16); use a low-bit type such as u4g128 to change the bytes`,
        );
      const r = runLinearOp(backend, policy, m, n, k, weights, policiesOf(registry));
      if (o.json) io.out(`${JSON.stringify({ schemaVersion: 1, ...r }, null, 2)}\n`);
      else
        io.out(
          `${r.backend} ${r.policy} linear m=${m} n=${n} k=${k} ${r.weights}: ${r.timeUs.toFixed(2)} µs, HBM read ${(r.hbmReadBytes / 1e6).toFixed(3)} MB (unique ${(r.uniqueReadBytes / 1e6).toFixed(3)} MB, fabric ${(r.fabricReadBytes / 1e6).toFixed(3)} MB), L2 hit ${(r.l2HitRate * 100).toFixed(1)}%, ${r.weightTBps} TB/s of weights, ${r.tasks} tasks\n`,
        );
    });
}
