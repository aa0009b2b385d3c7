import { Option, type Command } from 'commander';
import {
  COLLECTIVE_OPS,
  collectiveCost,
  collectiveRounds,
  collectiveTrafficBytes,
  inputError,
  type Backend,
  type ClusterCollectiveKind,
  type CollectiveModel,
  type CollectiveOpName,
  type CollectiveProtocol,
} from '@fleet/core';
import { loadBackends } from '../backends.js';
import type { Io } from '../io.js';

/** Binary unit prefixes a byte count may carry. */
const UNIT_BYTES: Readonly<Record<string, number>> = { k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 };

/** `32768`, `32K`, `32KiB`, `1M`, `1G` → bytes (binary units). */
export function parseBytes(flag: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:([kmg])(?:i?b)?)?\s*$/i.exec(value);
  const n = m ? Number(m[1]) * (m[2] ? UNIT_BYTES[m[2].toLowerCase()]! : 1) : NaN;
  if (!m || !Number.isInteger(n) || n < 1 || n > 2 ** 30) throw inputError(`${flag}: '${value}' is not a byte count in 1..1GiB (e.g. 32768, 32K, 1M, 1G)`);
  return n;
}

export interface CollectiveResult {
  collective: string;
  onChip: boolean;
  latencyUs: number;
  trafficBytes: number;
  rounds: number;
}

function pick(backend: Backend, op: ClusterCollectiveKind, onChip: boolean): CollectiveModel {
  const m = backend.collectives.find((c) => c.onChip === onChip && c.name.endsWith(`-${op}`));
  if (!m) {
    const known = backend.collectives.map((c) => `${c.name} (${c.onChip ? 'on' : 'off'} chip)`).join(', ') || 'none';
    throw inputError(`backend ${backend.name} models no ${onChip ? 'on-chip' : 'off-chip'} ${op} collective (it has: ${known})`);
  }
  return m;
}

/** Latency and traffic of one collective of `bytes` per participant over a cluster of `cluster`. */
export function runCollective(backend: Backend, op: ClusterCollectiveKind, bytes: number, cluster: number, onChip: boolean): CollectiveResult {
  const m = pick(backend, op, onChip);
  return {
    collective: m.name,
    onChip: m.onChip,
    latencyUs: Math.round(m.latencyNs(bytes, cluster)) / 1000,
    trafficBytes: m.trafficBytes(bytes, cluster),
    rounds: collectiveRounds(op, bytes, cluster).length,
  };
}

/** How a multi-device collective is launched: its own kernel launch from the host, or a node of a CUDA/HIP graph. */
export type LaunchMode = 'eager' | 'graph';

/** Which implementation runs a device collective, and whether a protocol is forced (NCCL_PROTO). */
export interface DeviceCollectiveChoice {
  /** Let the serving engine's custom all-reduce take small all-reduces (default true); false: the library alone. */
  customAllReduce?: boolean;
  /** Restrict the library to one protocol, as NCCL_PROTO does. */
  protocol?: CollectiveProtocol;
}

/**
 * A multi-device collective over `devices` devices of the backend's node: the library's
 * algorithm, protocol and channels for this size (or the engine's custom all-reduce where it
 * runs faster), and its latency including the kernel's launch.
 */
export function runDeviceCollective(
  backend: Backend,
  op: CollectiveOpName,
  bytes: number,
  devices: number,
  mode: LaunchMode,
  choice: DeviceCollectiveChoice = {},
) {
  if (!backend.node) throw inputError(`backend ${backend.name} describes no multi-device node (TOKENS.Node); --op ${op} needs one`);
  const base = backend.node.library;
  if (choice.protocol && !base.protocols.includes(choice.protocol))
    throw inputError(`--proto: '${choice.protocol}' is not a protocol ${base.name} runs on ${backend.name} (it runs: ${base.protocols.join(', ')})`);
  const library = choice.protocol ? { ...base, protocols: [choice.protocol] } : base;
  const c = collectiveCost({ ...backend.node, library }, op, bytes, devices, { customAllReduce: choice.customAllReduce ?? true });
  const cm = backend.costModel;
  // The collective is one kernel: launched by the host (eager) or replayed as a graph node after the previous kernel's barrier.
  const launchUs = c.algorithm === 'none' ? 0 : (mode === 'eager' ? cm.launch.eagerNs : cm.launch.graphNodeNs + cm.endOfKernel.barrierNs) / 1000;
  const r3 = (x: number) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null);
  return {
    schemaVersion: 1,
    backend: backend.name,
    node: backend.node.topology.name,
    interconnect: backend.node.topology.interconnect.name,
    library: c.library,
    op,
    bytes,
    devices,
    mode,
    onChip: false,
    latencyUs: r3(c.latencyUs + launchUs)!,
    collectiveUs: r3(c.latencyUs)!,
    launchUs: r3(launchUs)!,
    algorithm: c.algorithm,
    protocol: c.protocol,
    channels: c.channels,
    threads: c.threads,
    libraryEstimateUs: r3(c.estimateUs)!,
    busBandwidthGBps:
      r3(bytes / ((c.latencyUs + launchUs) * 1000)) === null
        ? null
        : r3((bytes / ((c.latencyUs + launchUs) * 1000)) * (op === 'all-reduce' ? (2 * (devices - 1)) / devices : (devices - 1) / devices)),
    algBandwidthGBps: r3(bytes / ((c.latencyUs + launchUs) * 1000)),
    linkBandwidthGBps: r3(c.linkBandwidthGBps),
    candidates: c.candidates.map((k) => ({
      algorithm: k.algorithm,
      protocol: k.protocol,
      channels: k.channels,
      latencyUs: r3(k.latencyUs),
      libraryEstimateUs: r3(k.estimateUs),
    })),
  };
}

/** `fleet collective`: a cluster collective's latency on chip (DSMEM) or through global memory, or a collective over the devices of a node. */
export function registerCollective(program: Command, io: Io): void {
  program
    .command('collective')
    .description(
      'latency of a cluster collective (ClusterReduce / ClusterGather) over DSMEM or through global memory, or of an all-reduce / all-gather / reduce-scatter over the devices of a node (NCCL/RCCL model)',
    )
    .requiredOption('--backend <name>', 'backend (one that models collectives, e.g. h100)')
    .addOption(
      new Option('--op <op>', 'collective: reduce/gather over a cluster of CTAs, or all-reduce/all-gather/reduce-scatter over devices')
        .choices(['reduce', 'gather', ...COLLECTIVE_OPS])
        .makeOptionMandatory(),
    )
    .requiredOption(
      '--bytes <n>',
      'bytes per participant (CTA): a reduce vector or a gather slice (e.g. 8192, 32K); ClusterFusion Table 1 sizes are totals over 32 clusters (fleet validate --suite clusterfusion)',
    )
    .option('--cluster <n>', 'participants (CTAs in the cluster): a power of two', '4')
    .option('--devices <n>', 'devices of the node taking part (all-reduce, all-gather, reduce-scatter)', '8')
    .addOption(new Option('--mode <mode>', 'device collectives: launched eagerly or inside a CUDA/HIP graph').choices(['eager', 'graph']).default('graph'))
    .option('--no-custom-all-reduce', "device all-reduce: the collective library alone (NCCL/RCCL), never the serving engine's custom all-reduce")
    .addOption(new Option('--proto <protocol>', 'device collectives: only this library protocol, as NCCL_PROTO does').choices(['LL', 'LL128', 'Simple']))
    .option('--off-chip', 'through global memory instead of on chip')
    .option('--both', 'on chip and off chip, side by side')
    .option('--json', 'machine-readable output')
    .action(async (o) => {
      const registry = await loadBackends(io.cwd);
      const backend = registry.get(o.backend as string);
      const bytes = parseBytes('--bytes', o.bytes as string);
      if ((COLLECTIVE_OPS as readonly string[]).includes(o.op as string)) {
        const devices = Number(o.devices);
        const max = backend.node?.topology.devices ?? 1;
        if (!/^\d+$/.test(String(o.devices)) || devices < 1 || devices > max)
          throw inputError(`--devices: '${o.devices}' must be an integer in 1..${max} (the devices of ${backend.name}'s node)`);
        if (o.offChip || o.both) throw inputError(`--off-chip and --both apply to cluster collectives (--op reduce|gather), not --op ${o.op}`);
        const r = runDeviceCollective(backend, o.op as CollectiveOpName, bytes, devices, o.mode as LaunchMode, {
          customAllReduce: o.customAllReduce as boolean,
          protocol: o.proto as CollectiveProtocol | undefined,
        });
        if (o.json) {
          io.out(`${JSON.stringify(r, null, 2)}\n`);
          return;
        }
        io.out(`${backend.name} ${r.op} ${bytes} B over ${devices} devices of ${r.node} (${r.interconnect}, ${r.library}, ${r.mode})\n`);
        io.out(
          `  ${r.latencyUs.toFixed(3)} µs: ${r.algorithm}/${r.protocol} on ${r.channels} channels ${r.collectiveUs.toFixed(3)} µs + launch ${r.launchUs.toFixed(3)} µs; bus bandwidth ${r.busBandwidthGBps ?? '-'} GB/s (links ${r.linkBandwidthGBps} GB/s per direction)\n`,
        );
        if (r.algorithm === 'ring' || r.algorithm === 'tree') io.out(`  the library's own estimate, by which it chose: ${r.libraryEstimateUs.toFixed(3)} µs\n`);
        return;
      }
      const op = o.op as ClusterCollectiveKind;
      const cluster = Number(o.cluster);
      pick(backend, op, !o.offChip);
      const max = backend.topology.levels.chiplet.maxSize ?? 1;
      if (!Number.isInteger(cluster) || cluster < 1 || cluster > max || (cluster & (cluster - 1)) !== 0) {
        throw inputError(`--cluster: '${o.cluster}' must be a power of two in 1..${max} on ${backend.name}`);
      }
      if (o.offChip && o.both) throw inputError('--off-chip and --both exclude each other');
      if (o.proto || o.customAllReduce === false)
        throw inputError(`--proto and --no-custom-all-reduce apply to device collectives (--op ${COLLECTIVE_OPS.join('|')}), not --op ${op}`);
      const primary = runCollective(backend, op, bytes, cluster, !o.offChip);
      const results = o.both ? [primary, runCollective(backend, op, bytes, cluster, false)] : [primary];
      const out = {
        schemaVersion: 1,
        backend: backend.name,
        op,
        bytes,
        cluster,
        ...primary,
        // the same schedule's traffic, whatever the medium (seeds §3 formulas)
        formulaTrafficBytes: collectiveTrafficBytes(op, bytes, cluster),
        ...(o.both ? { results, onChipSpeedup: Math.round((results[1]!.latencyUs / results[0]!.latencyUs) * 1000) / 1000 } : {}),
      };
      if (o.json) {
        io.out(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      io.out(`${backend.name} ${op} ${bytes} B per participant, cluster ${cluster}, ${primary.rounds} rounds, ${out.formulaTrafficBytes} B exchanged\n`);
      for (const r of results) io.out(`  ${(r.onChip ? 'on chip ' : 'off chip').padEnd(9)} ${r.collective.padEnd(15)} ${r.latencyUs.toFixed(3)} µs\n`);
    });
}
