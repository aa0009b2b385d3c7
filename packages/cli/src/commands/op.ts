import { Option, type Command } from 'commander';
import {
  addCounters,
  inputError,
  l2HitRate,
  simulateGraph,
  zeroCounters,
  type Backend,
  type LinearOp,
  type OpGraph,
  type PersistentOptions,
} from '@fleet/core';
import { CLUSTERFUSION_BASE, compilePolicy, POLICIES, type PolicyDef } from '@fleet/ops';
import { loadBackends } from '../backends.js';
import { parseInt1 } from '../compare.js';
import type { Io } from '../io.js';

/** A graph holding one linear op y[m, n] = x[m, k] · W[n, k]ᵀ in bf16. */
export function singleLinearGraph(m: number, n: number, k: number): OpGraph {
  const op: LinearOp = { id: 'L0.proj', kind: 'linear', layer: 0, m, n, k, weight: 'L0.w', inputs: ['x', 'L0.w'], outputs: ['y'] };
  return {
    model: 'linear',
    batch: m,
    contextLen: 0,
    layers: 1,
    tensors: [
      { name: 'x', kind: 'activation', shape: [m, k], dtype: 'bf16' },
      { name: 'L0.w', kind: 'weight', shape: [n, k], dtype: 'bf16' },
      { name: 'y', kind: 'activation', shape: [m, n], dtype: 'bf16' },
    ],
    ops: [op],
  };
}

export interface OpResult {
  backend: string;
  policy: string;
  op: 'linear';
  m: number;
  n: number;
  k: number;
  timeUs: number;
  hbmReadBytes: number;
  hbmWriteBytes: number;
  l2HitRate: number;
  tasks: number;
  /** Weight bytes over the time: the bandwidth the op reached. */
  weightTBps: number;
}

/**
 * One linear op launched on its own under a policy: compiled like a decode step's linear and
 * simulated from a cold cache. Time includes the launch (a graph node for graph policies).
 * ClusterFusion runs projections outside its fused block as kernel-per-op-graph kernels.
 */
export function runLinearOp(backend: Backend, policy: string, m: number, n: number, k: number): OpResult {
  const support = backend.policies.find((p) => p.policy === policy);
  if (!support) throw inputError(`--policy: backend ${backend.name} does not declare '${policy}' (it has: ${backend.policies.map((p) => p.policy).join(', ')})`);
  if (support.unsupportedReason) throw inputError(`--policy: ${backend.name} cannot run '${policy}': ${support.unsupportedReason}`);
  const def: PolicyDef | undefined = policy === 'clusterfusion' ? CLUSTERFUSION_BASE : POLICIES.find((p) => p.name === policy);
  if (!def) throw inputError(`--policy: '${policy}' has no compiler in @fleet/ops (known: ${POLICIES.map((p) => p.name).join(', ')})`);
  const graph = compilePolicy(singleLinearGraph(m, n, k), def, backend.topology, { layers: [0] });
  const cus = backend.topology.partitions.computeUnits;
  const persistent: PersistentOptions | undefined =
    def.style === 'persistent'
      ? {
          workersPerPartition: support.workersPerPartition ?? Math.min(...cus) - 1,
          chipletAware: def.chipletAware,
          schedulers: support.globalSchedulers ?? (support.schedulersPerPartition ?? 1) * cus.length,
          twoLevelCounting: def.twoLevelCounting,
        }
      : undefined;
  const r = simulateGraph(backend, graph, { launchMode: def.launchMode, persistent });
  const c = zeroCounters();
  for (const b of r.counters) addCounters(c, b);
  return {
    backend: backend.name,
    policy,
    op: 'linear',
    m,
    n,
    k,
    timeUs: Math.round(r.timeNs) / 1000,
    hbmReadBytes: Math.round(c.hbmReadBytes),
    hbmWriteBytes: Math.round(c.hbmWriteBytes),
    l2HitRate: Math.round(l2HitRate(c) * 1e4) / 1e4,
    tasks: graph.tasks.length,
    weightTBps: Math.round(((n * k * 2) / r.timeNs / 1000) * 1000) / 1000,
  };
}

/** `fleet op`: one operator launched on its own. */
export function registerOp(program: Command, io: Io): void {
  program
    .command('op')
    .description('predict one operator launched on its own: time, HBM bytes, L2 hit rate')
    .requiredOption('--backend <name>', 'backend to simulate')
    .addOption(new Option('--op <op>', 'operator').choices(['linear']).default('linear'))
    .requiredOption('--m <n>', 'rows of the activation (tokens)')
    .requiredOption('--n <n>', 'output features (rows of the weight)')
    .requiredOption('--k <n>', 'input features')
    .option('--policy <name>', 'scheduling policy whose decomposition to use', 'kernel-per-op-graph')
    .option('--json', 'machine-readable output')
    .action(async (o) => {
      const registry = await loadBackends(io.cwd);
      const backend = registry.get(o.backend as string);
      const m = parseInt1('--m', o.m as string, 1, 65536);
      const n = parseInt1('--n', o.n as string, 1, 1 << 20);
      const k = parseInt1('--k', o.k as string, 1, 1 << 20);
      const r = runLinearOp(backend, o.policy as string, m, n, k);
      if (o.json) io.out(JSON.stringify({ schemaVersion: 1, ...r }, null, 2) + '\n');
      else io.out(`${r.backend} ${r.policy} linear m=${m} n=${n} k=${k}: ${r.timeUs.toFixed(2)} µs, HBM read ${(r.hbmReadBytes / 1e6).toFixed(2)} MB, L2 hit ${(r.l2HitRate * 100).toFixed(1)}%, ${r.weightTBps} TB/s of weights, ${r.tasks} tasks\n`);
    });
}
