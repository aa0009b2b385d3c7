import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { schemaValidator } from '../topology/schema-compiler.js';
import { firstLine, lineError } from '../model/messages.js';
import { describeAjvError } from '../topology/validate.js';
import { isApiCompatible } from './load-backend.js';
import { API_VERSION } from './contract.js';

/**
 * The `fleet` field a plugin package declares in its package.json: a backend (a device) or an
 * extension (policies, validation suites, report sections for any device).
 */
export interface FleetPackageField {
  kind: 'backend' | 'extension';
  apiVersion: string;
  entry: string;
}

export interface DiscoveredPackage {
  packageName: string;
  dir: string;
  field: FleetPackageField;
}

const fieldSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'apiVersion', 'entry'],
  properties: {
    kind: { enum: ['backend', 'extension'] },
    apiVersion: { type: 'string', pattern: '^\\d+\\.\\d+$' },
    entry: { type: 'string', pattern: '^\\./' },
  },
} as const;
const validateField = schemaValidator<FleetPackageField>(fieldSchema);

function readJson(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** Validate a package's `fleet` field and its API version before anything is imported. */
export function checkFleetField(pkgName: string, field: unknown): FleetPackageField {
  if (!validateField(field)) {
    const e = validateField.errors?.[0];
    throw lineError(`package ${pkgName}: invalid 'fleet' field in package.json: ${e ? describeAjvError(e) : ''}`);
  }
  if (!isApiCompatible(field.apiVersion)) {
    throw lineError(`package ${pkgName}: apiVersion ${field.apiVersion} is not supported; this Fleet supports ${API_VERSION.split('.')[0]}.0–${API_VERSION}`);
  }
  return field;
}

/** Inspect one package directory: a `DiscoveredPackage` if it declares a `fleet` field. */
export function inspectPackage(dir: string): DiscoveredPackage | null {
  const pkg = readJson(join(dir, 'package.json'));
  if (!pkg || pkg.fleet === undefined) return null;
  const name = typeof pkg.name === 'string' ? pkg.name : dir;
  return { packageName: name, dir, field: checkFleetField(name, pkg.fleet) };
}

/**
 * Find installed backend packages: every `node_modules` from `startDir` up to the root,
 * scoped packages included, keeping the nearest copy of each package name.
 */
export function discoverBackendPackages(startDir: string): DiscoveredPackage[] {
  const found = new Map<string, DiscoveredPackage>();
  let dir = resolve(startDir);
  for (;;) {
    const nm = join(dir, 'node_modules');
    if (existsSync(nm)) {
      for (const entry of safeReaddir(nm)) {
        const dirs = entry.startsWith('@') ? safeReaddir(join(nm, entry)).map((e) => join(nm, entry, e)) : [join(nm, entry)];
        for (const d of dirs) {
          const p = inspectPackage(d);
          if (p && !found.has(p.packageName)) found.set(p.packageName, p);
        }
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return [...found.values()].sort((a, b) => a.packageName.localeCompare(b.packageName));
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Import a discovered package's entry and return its default export (not yet validated). */
export async function importBackendEntry(p: DiscoveredPackage): Promise<unknown> {
  const url = pathToFileURL(resolve(p.dir, p.field.entry)).href;
  let mod: { default?: unknown };
  try {
    mod = (await import(url)) as { default?: unknown };
  } catch (e) {
    throw lineError(`package ${p.packageName}: cannot import ${p.field.entry}: ${firstLine(e)}`);
  }
  if (mod.default === undefined) throw lineError(`package ${p.packageName}: ${p.field.entry} has no default export`);
  return mod.default;
}
