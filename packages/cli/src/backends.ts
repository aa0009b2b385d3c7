import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BackendRegistry,
  describeAjvError,
  discoverBackendPackages,
  importBackendEntry,
  inputError,
  schemaValidator,
  inspectPackage,
  loadBackend,
  loadExtension,
  type Backend,
  type DiscoveredPackage,
} from '@fleet/core';

/** `fleet.config.json`: backends to load besides the discovered ones (package names or paths). */
export interface FleetConfig {
  backends?: string[];
}

const CONFIG_FILE = 'fleet.config.json';
const validateConfig = schemaValidator<FleetConfig>({
  type: 'object',
  additionalProperties: false,
  properties: { backends: { type: 'array', items: { type: 'string', minLength: 1 } } },
});

/** Read `fleet.config.json` from `cwd` if there is one. */
export function readConfig(cwd: string): FleetConfig {
  const path = join(cwd, CONFIG_FILE);
  if (!existsSync(path)) return {};
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw inputError(`${path}: invalid JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!validateConfig(data)) throw inputError(`${path}: ${describeAjvError(validateConfig.errors![0]!)}`);
  return data;
}

/** A configured backend: a directory (relative to the config) or an installed package name. */
function configuredPackage(entry: string, cwd: string): DiscoveredPackage {
  let dir: string;
  if (entry.startsWith('.') || isAbsolute(entry)) dir = resolve(cwd, entry);
  else {
    try {
      dir = dirname(createRequire(join(cwd, 'noop.js')).resolve(`${entry}/package.json`));
    } catch {
      throw inputError(`${CONFIG_FILE}: backend package '${entry}' is not installed (or does not export ./package.json)`);
    }
  }
  const p = inspectPackage(dir);
  if (!p) throw inputError(`${CONFIG_FILE}: '${entry}' (${dir}) has no 'fleet' field in its package.json`);
  return p;
}

/**
 * The backends Fleet ships with, always available: every dependency of this package that
 * declares a `fleet` field, in the order its package.json lists them (the order `fleet
 * backends` and `fleet compare` show). Adding a device to the CLI is adding the dependency.
 */
function builtinPackages(): DiscoveredPackage[] {
  const require = createRequire(import.meta.url);
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies?: Record<string, string> };
  return Object.keys(manifest.dependencies ?? {}).flatMap((name) => {
    let dir: string;
    try {
      dir = dirname(require.resolve(`${name}/package.json`));
    } catch {
      return []; // a dependency without an exported package.json is no backend
    }
    const p = inspectPackage(dir);
    return p ? [p] : [];
  });
}

/**
 * Load every plugin: the built-in backends, those `fleet.config.json` lists, then any
 * installed package (from the current directory up, and beside the CLI) that declares a
 * `fleet` field in its package.json — backends, and extensions contributing policies,
 * validation suites and report sections.
 */
export async function loadBackends(cwd = process.cwd()): Promise<BackendRegistry> {
  const registry = new BackendRegistry();
  const seen = new Set<string>();
  const packages = builtinPackages();
  const here = dirname(fileURLToPath(import.meta.url));
  const config = readConfig(cwd);
  packages.push(...(config.backends ?? []).map((e) => configuredPackage(e, cwd)));
  packages.push(...discoverBackendPackages(cwd), ...discoverBackendPackages(here));
  for (const p of packages) {
    if (seen.has(p.packageName)) continue;
    seen.add(p.packageName);
    const value = await importBackendEntry(p);
    // The package.json field and the descriptor must agree: a package cannot declare one API and be written against another.
    const declared = (value as { apiVersion?: unknown } | null)?.apiVersion;
    if (typeof declared === 'string' && declared !== p.field.apiVersion)
      throw inputError(
        `package ${p.packageName}: package.json declares fleet.apiVersion ${p.field.apiVersion} but its descriptor says apiVersion ${declared}; make them equal`,
      );
    if (p.field.kind === 'extension') registry.addExtension(loadExtension(value, p.packageName), p.packageName);
    else registry.register(loadBackend(value, p.packageName), p.packageName);
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
      : `${mib(l2.capacityBytes)} L2${(l2.halves ?? 1) > 1 ? ` in ${l2.halves} halves` : ''}`;
  const llc = t.memory.llc ? `, ${mib(t.memory.llc.capacityBytes)} LLC` : '';
  // `memory.hbm` describes the device memory whatever its kind (HBM, GDDR): say what the numbers are.
  const dram = t.memory.hbm;
  const tbps = (bytesPerNs: number) => (bytesPerNs / 1000).toFixed(2);
  return (
    `${plural(total, t.levels.cu.unit.toUpperCase())} in ${plural(cus.length, t.partitions.kind)}, ${l2Desc}${llc}, ` +
    `${+(dram.capacityBytes / 2 ** 30).toFixed(1)} GiB device memory at ${tbps(dram.achievableBandwidthBytesPerNs)} TB/s achievable (${tbps(dram.peakBandwidthBytesPerNs)} peak)`
  );
}

/** `1 die`, `8 xcds`. */
function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function mib(bytes: number): string {
  return bytes >= 2 ** 20 ? `${+(bytes / 2 ** 20).toFixed(1)} MiB` : `${bytes / 1024} KiB`;
}
