import 'reflect-metadata';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Container, ContainerModule, inject, injectable, multiInject, optional } from 'inversify';
import { inputError } from '../errors/fleet-error.js';
import { describeAjvError, validateTopology } from '../topology/validate.js';
import type { Topology } from '../topology/topology.js';
import {
  API_VERSION,
  type Backend,
  type BackendDescriptor,
  type CollectiveModel,
  type CostModel,
  type PolicySupport,
  type StreamContribution,
} from './contract.js';
import { REQUIRED_TOKENS, TOKENS } from './tokens.js';

const descriptorSchema = {
  type: 'object',
  required: ['name', 'apiVersion', 'module'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' },
    apiVersion: { type: 'string', pattern: '^\\d+\\.\\d+$' },
    module: { type: 'object' },
  },
} as const;
const ajv = new Ajv2020({ strict: true });
const validateDescriptor = ajv.compile(descriptorSchema);

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
    throw inputError(`backend ${origin}: default export is not a backend descriptor {name, apiVersion, module}: ${e ? describeAjvError(e) : ''}`);
  }
  const d = value as unknown as BackendDescriptor;
  if (!(d.module instanceof ContainerModule)) {
    throw inputError(`backend ${origin}: 'module' must be an inversify ContainerModule (import it from @fleet/core so there is one copy)`);
  }
  if (!isApiCompatible(d.apiVersion)) {
    throw inputError(`backend ${origin} (${d.name}): apiVersion ${d.apiVersion} is not supported; this Fleet supports ${API_VERSION.split('.')[0]}.0–${API_VERSION}`);
  }
  return d;
}

/** Assembles the `Backend` view from the contribution points (explicit tokens throughout). */
@injectable()
class BackendAssembly {
  constructor(
    @inject(TOKENS.Topology) readonly topology: Topology,
    @inject(TOKENS.CostModel) readonly costModel: CostModel,
    @multiInject(TOKENS.PolicySupport) readonly policies: PolicySupport[],
    @multiInject(TOKENS.StreamContribution) @optional() readonly streamContributions: StreamContribution[] = [],
    @multiInject(TOKENS.Collective) @optional() readonly collectives: CollectiveModel[] = [],
  ) {}
}

/**
 * Load a backend: validate the descriptor, bind its module in a fresh container, check the
 * required bindings and the topology, and return the assembled `Backend`.
 */
export function loadBackend(value: unknown, origin: string): Backend {
  const d = checkDescriptor(value, origin);
  const container = new Container({ defaultScope: 'Singleton' });
  try {
    container.load(d.module);
  } catch (e) {
    throw inputError(`backend ${d.name} (${origin}): its module failed to load: ${firstLine(e)}`);
  }
  for (const key of REQUIRED_TOKENS) {
    if (!container.isBound(TOKENS[key])) {
      throw inputError(`backend ${d.name} (${origin}): missing required binding TOKENS.${key}`);
    }
  }
  container.bind(BackendAssembly).toSelf();
  let a: BackendAssembly;
  try {
    a = container.get(BackendAssembly);
  } catch (e) {
    throw inputError(`backend ${d.name} (${origin}): cannot resolve its bindings: ${firstLine(e)}`);
  }
  const topology = validateTopology(a.topology, `backend ${d.name}`);
  const seen = new Set<string>();
  for (const p of a.policies) {
    if (seen.has(p.policy)) throw inputError(`backend ${d.name} (${origin}): policy '${p.policy}' is bound twice`);
    seen.add(p.policy);
  }
  return {
    name: d.name,
    apiVersion: d.apiVersion,
    topology,
    costModel: a.costModel,
    policies: a.policies,
    streamContributions: a.streamContributions,
    collectives: a.collectives,
  };
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

/** Loaded backends by name; a second backend with the same name is an error. */
export class BackendRegistry {
  private readonly byName = new Map<string, { backend: Backend; origin: string }>();

  register(backend: Backend, origin: string): void {
    const prev = this.byName.get(backend.name);
    if (prev) throw inputError(`duplicate backend name '${backend.name}': from ${prev.origin} and ${origin}`);
    this.byName.set(backend.name, { backend, origin });
  }

  get(name: string): Backend {
    const b = this.byName.get(name);
    if (!b) throw inputError(`unknown backend '${name}' (installed: ${this.names().join(', ') || 'none'})`);
    return b.backend;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  all(): Backend[] {
    return [...this.byName.values()].map((v) => v.backend);
  }
}
