/**
 * Published 8-GPU collective results beside Fleet's library model (no engine custom
 * all-reduce): NCCL's ring bus bandwidth on 2–8 H100s of an HGX node at 2–4 GiB, and RCCL on
 * eight MI300X at 8 MiB (published/nccl-rccl-tests.json, each point with its thread and quote).
 * Nothing here sets a parameter.
 */
import { collectiveCost, relativeError, type Backend, type ValidationRow } from '@fleet/core';
import published from './nccl-rccl-tests.json' with { type: 'json' };

const SUITE = 'nccl-published';
// Times and bandwidths are judged at 10%.
const TOLERANCE_PCT = 10;

type Point = (typeof published.points)[number];

function rows(): { point: Point; devices: number }[] {
  return published.points.flatMap((point) => point.devices.map((devices) => ({ point, devices })));
}

export function ncclPublishedPoints(): number {
  return rows().reduce((n, { point }) => n + (point.timeUs === undefined ? 1 : 2), 0);
}

/** The backends the published points are on. */
export const NCCL_PUBLISHED_BACKENDS = [...new Set(published.points.map((p) => p.backend))];

function judged(experiment: string, value: number | [number, number], predicted: number, unit: string, source: string): ValidationRow {
  const error = relativeError(predicted, value);
  const r = (x: number) => Math.round(x * 1e4) / 1e4;
  return {
    suite: SUITE,
    experiment,
    kind: 'measurement',
    published: Array.isArray(value) ? [value[0], value[1]] : value,
    predicted: r(predicted),
    unit,
    error: Math.round(error * 10) / 10,
    errorUnit: '%',
    tolerance: TOLERANCE_PCT,
    ok: Math.abs(error) <= TOLERANCE_PCT,
    source,
  };
}

export function ncclPublishedValidation(backends: Record<string, Backend>, tick: (label: string) => void = () => {}): ValidationRow[] {
  return rows().flatMap(({ point, devices }) => {
    tick(`${point.id} ${devices} GPUs`);
    const backend = backends[point.backend];
    if (!backend?.node) throw new Error(`backend ${point.backend} describes no node`);
    const c = collectiveCost(backend.node, 'all-reduce', point.bytes, devices, { customAllReduce: false });
    const size = point.bytes >= 2 ** 30 ? `${point.bytes / 2 ** 30} GiB` : `${point.bytes / 2 ** 20} MiB`;
    const what = `${point.library.toUpperCase()} all-reduce ${size}, ${devices} × ${point.backend.toUpperCase()} (${c.algorithm}/${c.protocol}, ${c.channels} channels)`;
    const source = `${point.url}: ${point.what}`;
    // Back-to-back calls from one stream: each kernel after the previous one's end, as graph nodes are.
    const gapUs = (backend.costModel.launch.graphNodeNs + backend.costModel.endOfKernel.barrierNs) / 1000;
    const busGBps = (c.busBandwidthGBps * c.latencyUs) / (c.latencyUs + gapUs);
    const out = [judged(`${what}: bus bandwidth`, point.busGBps as number | [number, number], busGBps, 'GB/s', source)];
    if (point.timeUs !== undefined) out.push(judged(`${what}: time per call`, point.timeUs, c.latencyUs + gapUs, 'µs', source));
    return out;
  });
}
