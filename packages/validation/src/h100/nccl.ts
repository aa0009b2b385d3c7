/**
 * The NCCL suites: all-reduce inside a CUDA graph, per protocol, 8 KB–64 MB, on two H100s of one
 * host (NVLink 4 ×18; measured/h100x2-nccl-ours.json, `h100-nccl`) and on four H200s of one HGX
 * board and two of them (../h200/measured/, `h200-nccl`) — our own runs, validation only —
 * beside NCCL alone — no engine's custom all-reduce — as the library model prices it (its
 * tuning model's choice run on the channels its enqueue gives the size) plus the graph node's
 * launch. Four rows of the two-H100 run set the run model's rates (family-hopper
 * NCCL_H100X2_CALIBRATION: LL at 8 and 64 MiB, LL128 at 64 MiB, Simple at 8 KiB) and are labelled
 * calibration; the rest, and both H200 runs, validate.
 */
import { collectiveCost, type Backend, type CollectiveProtocol, type ValidationRow } from '@fleet/core';
import { NCCL_H100X2_CALIBRATION, NCCL_SWEEP_GRAPH_CALLS } from '@fleet/family-hopper';
import h200x2 from '../h200/measured/h200x2-nccl-ours.json' with { type: 'json' };
import h200x4 from '../h200/measured/h200x4-nccl-ours.json' with { type: 'json' };
import nccl from './measured/h100x2-nccl-ours.json' with { type: 'json' };
import { GOAL_PCT, graphLaunchShareNs, row, type H100ValidationOptions } from './validation.js';

/** One run of bench/device/nccl.py: the GPUs it spanned and where its numbers live. */
interface NcclRun {
  devices: number;
  data: typeof nccl;
  source: string;
  /** Whether the rows of NCCL_H100X2_CALIBRATION come from this run (and are labelled calibration). */
  calibrates?: boolean;
}

/** Whether a row of a run is one that sets a parameter of the library's run model. */
function isCalibration(run: NcclRun, proto: string, bytes: number, us: number): boolean {
  if (!run.calibrates) return false;
  return Object.values(NCCL_H100X2_CALIBRATION).some((c) => c.proto === proto && c.bytes === bytes && c.us === us);
}

const H100X2: NcclRun = {
  devices: 2,
  data: nccl,
  source: 'ours: bench/device/nccl.py on 2 H100 80GB HBM3 (NV18), NCCL 2.28.9, 2026-11-25 (packages/validation/src/h100/measured/h100x2-nccl-ours.json)',
  calibrates: true,
};
const H200_RUNS: NcclRun[] = [
  {
    devices: 4,
    data: h200x4,
    source: 'ours: bench/device/nccl.py on 4 H200s (NVSwitch), NCCL 2.28.9, 2026-11-27 (packages/validation/src/h200/measured/h200x4-nccl-ours.json)',
  },
  {
    devices: 2,
    data: h200x2,
    source: 'ours: bench/device/nccl.py on 2 of the same 4 H200s, 2026-11-27 (packages/validation/src/h200/measured/h200x2-nccl-ours.json)',
  },
];

function points(run: NcclRun, quick: boolean) {
  return Object.entries(run.data.protocols).flatMap(([proto, rows]) =>
    rows.filter((r) => !quick || (proto === 'default' && [8192, 64 * 2 ** 20].includes(r.bytes))).map((r) => ({ proto, ...r })),
  );
}

export function ncclValidationPoints(quick = false): number {
  return points(H100X2, quick).length;
}

export function h200NcclValidationPoints(quick = false): number {
  return H200_RUNS.reduce((n, run) => n + points(run, quick).length, 0);
}

/**
 * NCCL all-reduce over `devices` GPUs of the backend's node as one call of bench/device/nccl.py's
 * graphs (20 calls each): the collective, one kernel boundary and its share of the graph's
 * launch, µs; `proto` forces a protocol.
 */
export function ncclGraphAllReduceUs(backend: Backend, bytes: number, devices: number, proto?: CollectiveProtocol): number {
  return ncclGraphAllReduce(backend, bytes, devices, proto).us;
}

function ncclGraphAllReduce(backend: Backend, bytes: number, devices: number, proto?: CollectiveProtocol) {
  if (!backend.node) throw new Error(`backend ${backend.name} describes no node`);
  const library = proto ? { ...backend.node.library, protocols: [proto] } : backend.node.library;
  const c = collectiveCost({ ...backend.node, library }, 'all-reduce', bytes, devices, { customAllReduce: false });
  const cm = backend.costModel;
  const graphNs = cm.launch.graphNodeNs + cm.endOfKernel.barrierNs + graphLaunchShareNs(backend, NCCL_SWEEP_GRAPH_CALLS);
  return { us: c.latencyUs + graphNs / 1000, choice: `${c.algorithm}/${c.protocol}, ${c.channels} ch` };
}

export function h100NcclValidation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return ncclRunRows(backend, H100X2, opts).map((r) => ({ ...r, suite: 'h100-nccl' }));
}

export function h200NcclValidation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  return H200_RUNS.flatMap((run) => ncclRunRows(backend, run, opts)).map((r) => ({ ...r, suite: 'h200-nccl' }));
}

function ncclRunRows(backend: Backend, run: NcclRun, opts: H100ValidationOptions): ValidationRow[] {
  const tick = opts.tick ?? (() => {});
  return points(run, opts.quick ?? false).map((p) => {
    tick(`nccl ${p.proto} ${p.bytes}`);
    const proto = p.proto === 'default' ? undefined : (p.proto as CollectiveProtocol);
    const size = p.bytes >= 2 ** 20 ? `${p.bytes / 2 ** 20} MB` : `${p.bytes / 1024} KB`;
    const predicted = ncclGraphAllReduce(backend, p.bytes, run.devices, proto);
    return row(
      `NCCL all-reduce ${size} bf16, ${run.devices} GPUs, ${proto ? `NCCL_PROTO=${proto}` : "NCCL's choice"}, one CUDA graph (${predicted.choice})`,
      isCalibration(run, p.proto, p.bytes, p.graphUs) ? 'calibration' : 'measurement',
      p.graphUs,
      predicted.us,
      'µs',
      GOAL_PCT,
      run.source,
    );
  });
}
