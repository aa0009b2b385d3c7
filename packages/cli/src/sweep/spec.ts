/**
 * Sweep specs: a JSON or YAML mapping of lists (one per axis), checked against a JSON Schema
 * and expanded into a job list whose order and ids depend only on the spec.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { inputError, listPresets, loadModel, parseRouting, type BackendRegistry } from '@fleet/core';
import { parseWeightType } from '@fleet/ops';
import { policiesOf } from '../policies.js';
import { DEFAULT_MAX_JOBS, SWEEP_AXES, type SweepAxis, type SweepParams } from './axes.js';

/** A spec as written: each axis a list (a single value stands for a one-element list). */
export type SweepSpecFile = Partial<Record<string, unknown[]>>;

export interface SweepJobSpec {
  /** 16 hex digits of SHA-256 over the job's parameters: the same parameters, the same id. */
  id: string;
  params: SweepParams;
}

export interface ExpandedSweep {
  jobs: SweepJobSpec[];
  /** Where relative model paths are resolved (the spec's folder). */
  baseDir: string;
}

/** The spec's JSON Schema, with the installed backends and known policies as enums. */
export function sweepSchema(backends: readonly string[], policies: readonly string[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const a of SWEEP_AXES) {
    let item = a.item;
    if (a.specKey === 'backends') item = { enum: [...backends] };
    if (a.specKey === 'policies') item = { enum: [...policies] };
    properties[a.specKey] = { type: 'array', minItems: 1, uniqueItems: true, items: item };
  }
  return { type: 'object', additionalProperties: false, properties };
}

/** Read a spec file: YAML for .yaml/.yml (and anything not .json), JSON for .json. */
export function readSpecFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw inputError(`${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    if (extname(path).toLowerCase() === '.json') return JSON.parse(text);
    // Aliases are capped so a small file cannot expand into a huge document.
    return parseYaml(text, { maxAliasCount: 50 });
  } catch (e) {
    throw inputError(`${path}: not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${firstLine((e as Error).message)}`);
  }
}

/**
 * Check a parsed spec and expand it into jobs: the cartesian product of the axes in
 * `SWEEP_AXES` order (policies default to each backend's own). Bad input throws one line
 * naming the field, e.g. `batch[2]: must be an integer in 1..4096 (got 0)`.
 */
export function expandSweep(data: unknown, registry: BackendRegistry, origin: string, baseDir: string, maxJobs = DEFAULT_MAX_JOBS): ExpandedSweep {
  const fail = (msg: string): never => {
    throw inputError(`${origin}: ${msg}`);
  };
  if (data === null || data === undefined) fail('the spec is empty (expected a mapping of lists, e.g. batch: [1, 8])');
  if (typeof data !== 'object' || Array.isArray(data)) fail(`the spec must be a mapping of lists (got ${kindOf(data)})`);
  // A single value stands for a one-element list; remember which, to name the field plainly.
  const spec: Record<string, unknown> = {};
  const scalars = new Set<string>();
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (Array.isArray(v) || !SWEEP_AXES.some((a) => a.specKey === k)) spec[k] = v;
    else {
      spec[k] = [v];
      scalars.add(k);
    }
  }
  const backendNames = registry.all().map((b) => b.name);
  const known = policiesOf(registry).names();
  const validate = new Ajv2020({ strict: true, allErrors: false, verbose: true }).compile(sweepSchema(backendNames, known));
  if (!validate(spec)) fail(describeSpecError(validate.errors![0]!, scalars));
  const lists = spec as Record<string, unknown[] | undefined>;

  for (const [i, w] of (lists.weights ?? []).entries()) parseWeightType(w as string, `${origin}: ${field('weights', i, scalars)}`);
  for (const [i, m] of (lists.model ?? []).entries()) {
    try {
      loadModel(modelPath(m as string, baseDir));
    } catch (e) {
      fail(`${field('model', i, scalars)}: ${(e as Error).message}`);
    }
  }

  for (const [i, r] of (lists.routing ?? []).entries()) {
    if (r === null) continue;
    try {
      parseRouting(/^(uniform|zipf:)/.test(r as string) ? (r as string) : resolve(baseDir, r as string));
    } catch (e) {
      fail(`${field('routing', i, scalars)}: ${(e as Error).message}`);
    }
  }

  const values = (a: SweepAxis): readonly unknown[] => lists[a.specKey] ?? a.default ?? [];
  // Count before expanding: a spec of long lists must be refused, not built in memory.
  const count = SWEEP_AXES.reduce(
    (n, a) =>
      n *
      (a.specKey === 'backends' && lists.backends === undefined
        ? backendNames.length
        : a.specKey === 'policies' && lists.policies === undefined
          ? known.length
          : values(a).length),
    1,
  );
  if (count > maxJobs)
    fail(
      `the spec expands to ${count.toLocaleString('en-US')} configurations (the product of its lists' lengths), over the limit of ${maxJobs.toLocaleString('en-US')}; shorten its lists or raise --max-jobs`,
    );
  const jobs: SweepJobSpec[] = [];
  const walk = (depth: number, acc: Partial<SweepParams>) => {
    if (depth === SWEEP_AXES.length) {
      const params = acc as SweepParams;
      jobs.push({ id: jobId(params), params });
      return;
    }
    const axis = SWEEP_AXES[depth]!;
    let vals = values(axis);
    if (axis.specKey === 'backends' && lists.backends === undefined) vals = backendNames;
    if (axis.specKey === 'policies' && lists.policies === undefined) vals = known;
    for (const v of vals) walk(depth + 1, { ...acc, [axis.param]: v });
  };
  walk(0, {});
  return { jobs, baseDir };
}

/** Load and expand a spec file (model paths resolve against its folder). */
export function loadSweep(path: string, registry: BackendRegistry, maxJobs = DEFAULT_MAX_JOBS): ExpandedSweep {
  return expandSweep(readSpecFile(path), registry, path, dirname(resolve(path)), maxJobs);
}

export { DEFAULT_MAX_JOBS };

/**
 * A job's id: SHA-256 over its parameters in axis order, leaving out those that are `null`
 * (no override) — so adding a new axis whose `null` keeps today's behaviour keeps old ids,
 * and resuming an output file written before still skips the same jobs.
 */
export function jobId(p: SweepParams): string {
  const entries = SWEEP_AXES.map((a) => [a.param, p[a.param]] as const).filter(([, v]) => v !== null);
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 16);
}

/** A model reference as the loader takes it: presets as they are, paths against `baseDir`. */
export function modelPath(ref: string, baseDir: string): string {
  const preset = listPresets().includes(ref.trim().toLowerCase());
  return preset || isAbsolute(ref) ? ref : resolve(baseDir, ref);
}

function field(key: string, index: number, scalars: ReadonlySet<string>): string {
  return scalars.has(key) ? key : `${key}[${index}]`;
}

/** One Ajv error as `field: what is wrong (allowed values / range)`. */
function describeSpecError(e: ErrorObject, scalars: ReadonlySet<string>): string {
  const parts = e.instancePath.split('/').slice(1);
  const key = parts[0];
  const where = key === undefined ? '' : parts.length > 1 ? field(key, Number(parts[1]), scalars) : key;
  const got = clip(JSON.stringify(e.data) ?? String(e.data));
  const axes = SWEEP_AXES.map((a) => a.specKey).join(', ');
  const schema = (e.parentSchema ?? {}) as { minimum?: number; maximum?: number; type?: string };
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown field '${clip(String((e.params as { additionalProperty: string }).additionalProperty))}' (allowed: ${axes})`;
    case 'enum': {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map((v) => (v === null ? 'null' : String(v)));
      return `${where}: ${got} is not one of ${allowed.join(', ')}`;
    }
    case 'minimum':
    case 'maximum':
      return `${where}: must be an integer in ${schema.minimum}..${schema.maximum} (got ${got})`;
    case 'type':
      if (key === undefined) return `the spec must be a mapping of lists (got ${kindOf(e.data)})`;
      if (schema.type === 'integer' && schema.minimum !== undefined) return `${where}: must be an integer in ${schema.minimum}..${schema.maximum} (got ${got})`;
      return `${where}: must be ${(e.params as { type: string }).type === 'array' ? 'a list' : `a ${(e.params as { type: string }).type}`} (got ${got})`;
    case 'minItems':
      return `${where}: must list at least one value`;
    case 'uniqueItems':
      return `${where}: lists a value twice (${got})`;
    case 'minLength':
      return `${where}: must not be empty`;
    default:
      return `${where || '(root)'}: ${e.message ?? e.keyword}`;
  }
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v;
}

function clip(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replaces control characters so a name prints on one line
  const one = s.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return one.length > 60 ? `${one.slice(0, 57)}...` : one;
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.trim();
}
