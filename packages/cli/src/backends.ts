import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BackendRegistry,
  discoverBackendPackages,
  importBackendEntry,
  inspectPackage,
  loadBackend,
  type Backend,
} from '@fleet/core';
import { createRequire } from 'node:module';

/** The backends Fleet ships with; always available. */
const BUILTIN = ['@fleet/backend-mi350', '@fleet/backend-mi300x', '@fleet/backend-h100'];

/**
 * Load every backend: the built-in ones, then any installed package (from the current
 * directory up, and beside the CLI) that declares a `fleet` field in its package.json.
 */
export async function loadBackends(cwd = process.cwd()): Promise<BackendRegistry> {
  const registry = new BackendRegistry();
  const require = createRequire(import.meta.url);
  const seen = new Set<string>();
  const packages = BUILTIN.map((name) => {
    const dir = dirname(require.resolve(`${name}/package.json`));
    const p = inspectPackage(dir);
    if (!p) throw new Error(`built-in backend ${name} has no 'fleet' field`);
    return p;
  });
  const here = dirname(fileURLToPath(import.meta.url));
  packages.push(...discoverBackendPackages(cwd), ...discoverBackendPackages(here));
  for (const p of packages) {
    if (seen.has(p.packageName)) continue;
    seen.add(p.packageName);
    const value = await importBackendEntry(p);
    registry.register(loadBackend(value, p.packageName), p.packageName);
  }
  return registry;
}

/** One-line topology summary for `fleet backends`. */
export function topologySummary(b: Backend): string {
  const t = b.topology;
  const cus = t.partitions.computeUnits;
  const total = cus.reduce((a, c) => a + c, 0);
  const l2 = t.memory.l2;
  const l2Desc =
    l2.organisation === 'per-partition'
      ? `${cus.length} × ${mib(l2.capacityBytes)} L2`
      : `${mib(l2.capacityBytes)} L2 (${l2.halves} halves)`;
  const llc = t.memory.llc ? `, ${mib(t.memory.llc.capacityBytes)} LLC` : '';
  return `${total} ${t.levels.cu.unit.toUpperCase()}s in ${cus.length} ${t.partitions.kind}s, ${l2Desc}${llc}, HBM ${(t.memory.hbm.achievableBandwidthBytesPerNs / 1000).toFixed(2)} TB/s`;
}

function mib(bytes: number): string {
  return bytes >= 2 ** 20 ? `${+(bytes / 2 ** 20).toFixed(1)} MiB` : `${bytes / 1024} KiB`;
}
