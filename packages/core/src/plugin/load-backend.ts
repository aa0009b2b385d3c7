import 'reflect-metadata';
import { schemaValidator } from '../topology/schema-compiler.js';
import { Container, ContainerModule, inject, injectable, multiInject, optional } from 'inversify';
import { firstLine, lineError } from '../model/messages.js';
import { describeAjvError, validateTopology } from '../topology/validate.js';
import type { Topology } from '../topology/topology.js';
import type { KernelLibrary } from '../compute/kernel-library.js';
import type { NodeSpec } from '../node/collectives.js';
import { checkNodeSpec } from '../node/check.js';
import {
  API_VERSION,
  type Backend,
  type BackendDescriptor,
  type CollectiveModel,
  type BackendTuning,
  type Contribution,
  type CostModel,
  type ExtensionDescriptor,
  type StreamContribution,
} from './contract.js';
import { CONTRIBUTION_TOKENS, REQUIRED_TOKENS, TOKENS } from './tokens.js';

const descriptorSchema = {
  type: 'object',
  required: ['name', 'apiVersion', 'module'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' },
    apiVersion: { type: 'string', pattern: '^\\d+\\.\\d+$' },
    module: { type: 'object' },
  },
} as const;
const validateDescriptor = schemaValidator(descriptorSchema);

/** Overheads a backend states, ns: up to a millisecond, as the topology's latencies. */
const overheadNs = { type: 'number', minimum: 0, maximum: 1e6 } as const;
/** A framework kernel's workgroups (`RowKernel`). */
const rowKernel = {
  type: 'object',
  additionalProperties: false,
  properties: {
    inFlightBytes: { type: 'number', exclusiveMinimum: 0 },
    residentTiles: { type: 'integer', minimum: 1, maximum: 64 },
    fixedNs: { type: 'number', minimum: 0 },
    elementsPerTile: { type: 'integer', minimum: 1, maximum: 1 << 20 },
    vectorFlopsPerElement: { type: 'number', minimum: 0 },
  },
} as const;
const count = (max: number) => ({ type: 'integer', minimum: 1, maximum: max }) as const;

/**
 * What a bound `BackendTuning` must look like: the runtimes size worker and scheduler
 * arrays from it, so a wrong type or an absurd count must stop here, not in the simulation.
 */
const persistentTuning = {
  type: 'object',
  additionalProperties: false,
  properties: {
    workersPerPartition: count(4096),
    schedulersPerPartition: count(4096),
    globalSchedulers: count(65536),
    descriptorBytes: count(65536),
    linearGrid: { enum: ['mpk-rocm'] },
  },
} as const;
const validateTuning = schemaValidator({
  type: 'object',
  additionalProperties: false,
  properties: {
    persistent: persistentTuning,
    kernels: {
      type: 'object',
      additionalProperties: false,
      properties: {
        unfused: { type: 'boolean' },
        splitKReduce: { type: 'boolean' },
        splitKReduceKernel: rowKernel,
        routingKernelFixedNs: { type: 'number', minimum: 0, maximum: 1e6 },
        perOp: { type: 'object', additionalProperties: count(64) },
        rowKernels: { type: 'object', additionalProperties: rowKernel },
      },
    },
    cluster: {
      type: 'object',
      additionalProperties: false,
      required: ['size'],
      properties: {
        size: count(64),
        maxActiveClusters: count(65536),
        ctasPerUnit: count(64),
        pipeline: {
          type: 'object',
          additionalProperties: false,
          required: ['inFlightBytes', 'overlap'],
          properties: { inFlightBytes: { type: 'number', exclusiveMinimum: 0, maximum: 2 ** 40 }, overlap: { type: 'number', minimum: 1, maximum: 2 ** 20 } },
        },
      },
    },
    policies: {
      type: 'object',
      propertyNames: { pattern: '^[a-z0-9][a-z0-9.-]*$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: { persistent: persistentTuning, refuse: { type: 'string', minLength: 1 } },
      },
    },
  },
});

/** The data half of a `CostModel` (its two methods are checked by hand). */
const validateCostData = schemaValidator({
  type: 'object',
  $defs: {
    pipeline: {
      type: 'object',
      required: ['inFlightBytes', 'overlap'],
      properties: {
        inFlightBytes: { type: 'number', exclusiveMinimum: 0, maximum: 2 ** 40 },
        dramInFlightBytes: { type: 'number', exclusiveMinimum: 0, maximum: 2 ** 40 },
        overlap: { type: 'number', minimum: 1, maximum: 2 ** 20 },
        waitsOnFills: { type: 'boolean' },
      },
    },
  },
  required: ['dispatchNs', 'fetchNs', 'launch', 'endOfKernel', 'hardwareDispatch'],
  properties: {
    dispatchNs: overheadNs,
    fetchNs: overheadNs,
    launch: { type: 'object', required: ['eagerNs', 'graphNodeNs'], properties: { eagerNs: overheadNs, graphNodeNs: overheadNs, graphLaunchNs: overheadNs } },
    endOfKernel: { type: 'object', required: ['barrierNs', 'writeBackL2'], properties: { barrierNs: overheadNs, writeBackL2: { type: 'boolean' } } },
    hardwareDispatch: { enum: ['round-robin-partition', 'greedy'] },
    pipelines: {
      type: 'object',
      required: ['persistent', 'kernel'],
      properties: { persistent: { $ref: '#/$defs/pipeline' }, kernel: { $ref: '#/$defs/pipeline' } },
    },
  },
});

function isObjectLike(v: unknown): v is Record<string, unknown> {
  return (typeof v === 'object' && v !== null) || typeof v === 'function';
}

/** Check what the module bound, so that a wrong type fails here with its token, not mid-simulation. */
function checkBindings(where: string, a: BackendAssembly, topology: Topology): void {
  const cm: unknown = a.costModel;
  if (!isObjectLike(cm) || typeof cm.tileComputeNs !== 'function' || typeof cm.tileOverheadNs !== 'function') {
    throw lineError(`${where}: TOKENS.CostModel must be an object with methods tileComputeNs and tileOverheadNs`);
  }
  if (!validateCostData(cm)) throw lineError(`${where}: TOKENS.CostModel ${describeAjvError(validateCostData.errors![0]!)}`);
  if (a.tuning !== undefined) {
    if (!validateTuning(a.tuning)) throw lineError(`${where}: TOKENS.Tuning ${describeAjvError(validateTuning.errors![0]!)}`);
    const fewest = Math.min(...topology.partitions.computeUnits);
    const layouts: [string, number | undefined][] = [
      ['/persistent', a.tuning.persistent?.workersPerPartition],
      ...Object.entries(a.tuning.policies ?? {}).map(([name, p]): [string, number | undefined] => [
        `/policies/${name}/persistent`,
        p.persistent?.workersPerPartition,
      ]),
    ];
    for (const [at, workers] of layouts) {
      if (workers !== undefined && workers > fewest) {
        throw lineError(
          `${where}: TOKENS.Tuning ${at}/workersPerPartition (${workers}) must be at most ${fewest}, the compute units of its smallest partition`,
        );
      }
    }
  }
  for (const [i, c] of a.streamContributions.entries()) {
    if (typeof c !== 'function') throw lineError(`${where}: TOKENS.StreamContribution binding ${i} must be a function (an RxJS operator on the event stream)`);
  }
  for (const [i, c] of a.collectives.entries()) {
    const v: unknown = c;
    if (
      !isObjectLike(v) ||
      typeof v.name !== 'string' ||
      typeof v.latencyNs !== 'function' ||
      typeof v.trafficBytes !== 'function' ||
      typeof v.onChip !== 'boolean'
    ) {
      throw lineError(`${where}: TOKENS.Collective binding ${i} must be {name: string, latencyNs(), trafficBytes(), onChip: boolean}`);
    }
  }
  const lib: unknown = a.kernelLibrary;
  if (
    lib !== undefined &&
    (!isObjectLike(lib) || typeof lib.name !== 'string' || typeof lib.gemm !== 'function' || typeof lib.decodeAttention !== 'function')
  ) {
    throw lineError(`${where}: TOKENS.KernelLibrary must be {name: string, gemm(), decodeAttention()}`);
  }
}

/**
 * Load the descriptor's module synchronously. A load callback that returns something is
 * refused, as inversify's synchronous `load` does; a returned promise is settled here so
 * that its rejection cannot escape as an unhandled rejection, which would end the process
 * with a stack trace.
 */
function loadSynchronously(container: Container, where: string, module: ContainerModule): void {
  let result: unknown;
  try {
    container.load(new ContainerModule((options) => void (result = module.load(options))));
  } catch (e) {
    throw lineError(`${where}: its module failed to load: ${firstLine(e)}`);
  }
  if (result === undefined) return;
  const thenable = (typeof result === 'object' || typeof result === 'function') && result !== null && typeof (result as { then?: unknown }).then === 'function';
  if (thenable) {
    Promise.resolve(result).catch(() => undefined);
    throw lineError(`${where}: its module's load callback is asynchronous (returns a promise); a backend must bind synchronously`);
  }
  throw lineError(`${where}: its module's load callback returned a value; it must bind synchronously and return nothing`);
}

/** Same major, and a minor no newer than core's: what this core can host. */
export function isApiCompatible(pluginVersion: string, hostVersion = API_VERSION): boolean {
  const [pMaj, pMin] = pluginVersion.split('.').map(Number);
  const [hMaj, hMin] = hostVersion.split('.').map(Number);
  return pMaj === hMaj && pMin! <= hMin!;
}

/** Check a default export is a well-formed descriptor with a compatible `apiVersion`. */
export function checkDescriptor(value: unknown, origin: string): BackendDescriptor {
  if (!validateDescriptor(value)) {
    const e = validateDescriptor.errors?.[0];
    throw lineError(`backend ${origin}: default export is not a backend descriptor {name, apiVersion, module}: ${e ? describeAjvError(e) : ''}`);
  }
  const d = value as unknown as BackendDescriptor;
  if (!(d.module instanceof ContainerModule)) {
    throw lineError(`backend ${origin}: 'module' must be an inversify ContainerModule (import it from @fleet/core so there is one copy)`);
  }
  if (!isApiCompatible(d.apiVersion)) {
    throw lineError(
      `backend ${origin} (${d.name}): apiVersion ${d.apiVersion} is not supported; this Fleet supports ${API_VERSION.split('.')[0]}.0–${API_VERSION}`,
    );
  }
  return d;
}

/** Assembles the `Backend` view from the contribution points (explicit tokens throughout). */
@injectable()
class BackendAssembly {
  constructor(
    @inject(TOKENS.Topology) readonly topology: Topology,
    @inject(TOKENS.CostModel) readonly costModel: CostModel,
    @inject(TOKENS.Tuning) @optional() readonly tuning?: BackendTuning,
    @multiInject(TOKENS.StreamContribution) @optional() readonly streamContributions: StreamContribution[] = [],
    @multiInject(TOKENS.Collective) @optional() readonly collectives: CollectiveModel[] = [],
    @inject(TOKENS.KernelLibrary) @optional() readonly kernelLibrary?: KernelLibrary,
    @inject(TOKENS.Node) @optional() readonly node?: NodeSpec,
  ) {}
}

/**
 * Load a backend: validate the descriptor, bind its module in a fresh container, check the
 * required bindings and the topology, and return the assembled `Backend`.
 */
export function loadBackend(value: unknown, origin: string): Backend {
  const d = checkDescriptor(value, origin);
  const where = `backend ${d.name} (${origin})`;
  const container = new Container({ defaultScope: 'Singleton' });
  loadSynchronously(container, where, d.module);
  for (const key of REQUIRED_TOKENS) {
    if (!container.isBound(TOKENS[key])) {
      throw lineError(`${where}: missing required binding TOKENS.${key}`);
    }
  }
  container.bind(BackendAssembly).toSelf();
  let a: BackendAssembly;
  try {
    a = container.get(BackendAssembly);
  } catch (e) {
    throw lineError(`${where}: cannot resolve its bindings: ${firstLine(e)}`);
  }
  const topology = validateTopology(a.topology, `backend ${d.name}`);
  checkBindings(where, a, topology);
  const node = a.node === undefined ? undefined : checkNodeSpec(a.node, `backend ${d.name}`, d.name);
  const contributions = contributionsOf(container, where, origin);
  return {
    name: d.name,
    apiVersion: d.apiVersion,
    topology,
    costModel: a.costModel,
    tuning: a.tuning ?? {},
    streamContributions: a.streamContributions,
    collectives: a.collectives,
    ...(a.kernelLibrary ? { kernelLibrary: a.kernelLibrary } : {}),
    ...(node ? { node } : {}),
    contributions,
  };
}

/** The contribution points a loaded module multi-bound, each with the package it came from. */
function contributionsOf(container: Container, where: string, origin: string): Contribution[] {
  const out: Contribution[] = [];
  for (const key of CONTRIBUTION_TOKENS) {
    const token = TOKENS[key];
    if (!container.isBound(token)) continue;
    let values: unknown[];
    try {
      values = container.getAll(token);
    } catch (e) {
      throw lineError(`${where}: cannot resolve TOKENS.${key}: ${firstLine(e)}`);
    }
    for (const value of values) {
      if (!isObjectLike(value)) throw lineError(`${where}: a TOKENS.${key} binding must be an object`);
      out.push({ token, value, origin });
    }
  }
  return out;
}

/** A loaded extension: its name and what it contributes. */
export interface Extension {
  name: string;
  apiVersion: string;
  contributions: readonly Contribution[];
}

/**
 * Load an extension package's descriptor (`fleet.kind: "extension"`): contributions only —
 * policies, validation suites, report sections — in a fresh container.
 */
export function loadExtension(value: unknown, origin: string): Extension {
  const d = checkDescriptor(value, origin) as ExtensionDescriptor;
  const where = `extension ${d.name} (${origin})`;
  const container = new Container({ defaultScope: 'Singleton' });
  loadSynchronously(container, where, d.module);
  const contributions = contributionsOf(container, where, origin);
  if (contributions.length === 0) throw lineError(`${where}: its module binds none of ${CONTRIBUTION_TOKENS.map((k) => `TOKENS.${k}`).join(', ')}`);
  return { name: d.name, apiVersion: d.apiVersion, contributions };
}

/**
 * Loaded backends by name (a second backend with the same name is an error), and what every
 * loaded plugin contributed.
 */
export class BackendRegistry {
  private readonly byName = new Map<string, { backend: Backend; origin: string }>();
  private readonly extensions = new Map<string, { extension: Extension; origin: string }>();

  /** Add an extension's contributions; a second extension with the same name is an error. */
  addExtension(extension: Extension, origin: string): void {
    const prev = this.extensions.get(extension.name);
    if (prev) throw lineError(`duplicate extension name '${extension.name}': from ${prev.origin} and ${origin}`);
    this.extensions.set(extension.name, { extension, origin });
  }

  /** What the loaded backends, then the extensions, bound to a contribution token, in load order. */
  contributions(token: symbol): Contribution[] {
    const all = [
      ...[...this.byName.values()].flatMap((b) => b.backend.contributions),
      ...[...this.extensions.values()].flatMap((e) => e.extension.contributions),
    ];
    return all.filter((c) => c.token === token);
  }

  register(backend: Backend, origin: string): void {
    const prev = this.byName.get(backend.name);
    if (prev) throw lineError(`duplicate backend name '${backend.name}': from ${prev.origin} and ${origin}`);
    this.byName.set(backend.name, { backend, origin });
  }

  get(name: string): Backend {
    const b = this.byName.get(name);
    if (!b) throw lineError(`unknown backend '${name}' (installed: ${this.names().join(', ') || 'none'})`);
    return b.backend;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  all(): Backend[] {
    return [...this.byName.values()].map((v) => v.backend);
  }
}
