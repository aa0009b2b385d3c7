import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, it, expect } from 'vitest';
import {
  API_VERSION,
  BackendRegistry,
  ContainerModule,
  DeadlockError,
  FleetError,
  RooflineCostModel,
  TOKENS,
  checkDescriptor,
  checkFleetField,
  discoverBackendPackages,
  importBackendEntry,
  inspectPackage,
  isApiCompatible,
  loadBackend,
  type Backend,
  type CollectiveModel,
  type BackendTuning,
  type StreamContribution,
} from '../src/index.js';
import * as errors from '../src/errors/fleet-error.js';
import type { Topology } from '../src/topology/topology.js';
import { expectFleetError, testBackend, testParams, testTopology } from './helpers.js';

interface ModuleParts {
  topology?: unknown;
  costModel?: boolean;
  tuning?: BackendTuning;
  policies?: object[];
  contributions?: StreamContribution[];
  collectives?: CollectiveModel[];
}

/** A backend module binding what `parts` says (everything required by default). */
function backendModule(parts: ModuleParts = {}): ContainerModule {
  const topology = 'topology' in parts ? parts.topology : testTopology();
  return new ContainerModule(({ bind }) => {
    if (topology !== undefined) bind(TOKENS.Topology).toConstantValue(topology);
    if (parts.costModel !== false) bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(testTopology(), testParams()));
    if (parts.tuning) bind(TOKENS.Tuning).toConstantValue(parts.tuning);
    for (const p of parts.policies ?? []) bind(TOKENS.Policy).toConstantValue(p);
    for (const c of parts.contributions ?? []) bind(TOKENS.StreamContribution).toConstantValue(c);
    for (const c of parts.collectives ?? []) bind(TOKENS.Collective).toConstantValue(c);
  });
}

function descriptor(parts: ModuleParts = {}, over: Record<string, unknown> = {}) {
  return { name: 'acme-gpu', apiVersion: API_VERSION, module: backendModule(parts), ...over };
}

describe('public entry point', () => {
  it('re-exports the error classes the other tests check against (one class, not a copy)', () => {
    expect(FleetError).toBe(errors.FleetError);
    expect(DeadlockError).toBe(errors.DeadlockError);
  });
});

describe('isApiCompatible', () => {
  it('same major and a minor no newer than the host', () => {
    expect(API_VERSION).toBe('2.0');
    expect(isApiCompatible('2.0')).toBe(true);
    expect(isApiCompatible('1.1')).toBe(false);
    expect(isApiCompatible('1.0', '1.3')).toBe(true);
    expect(isApiCompatible('1.2', '1.3')).toBe(true);
    expect(isApiCompatible('1.4', '1.3')).toBe(false);
    expect(isApiCompatible('2.0', '1.3')).toBe(false);
    expect(isApiCompatible('0.9', '1.0')).toBe(false);
  });
});

describe('checkDescriptor', () => {
  it('accepts a well-formed descriptor', () => {
    const d = descriptor();
    expect(checkDescriptor(d, 'pkg')).toBe(d);
  });

  it('rejects a non-object', () => {
    for (const v of [42, 'backend', null, undefined, [1]]) {
      expectFleetError(() => checkDescriptor(v, 'pkg-a'), 2, 'backend pkg-a', 'not a backend descriptor');
    }
    expectFleetError(() => checkDescriptor(42, 'pkg-a'), 2, '(root): must be object');
  });

  it('rejects a descriptor without a module, naming the property', () => {
    const { module: _m, ...rest } = descriptor();
    expectFleetError(() => checkDescriptor(rest, 'pkg-b'), 2, 'pkg-b', "required property 'module'");
  });

  it('rejects a module that is not a ContainerModule', () => {
    expectFleetError(() => checkDescriptor(descriptor({}, { module: { load() {} } }), 'pkg-c'), 2, 'pkg-c', "'module' must be an inversify ContainerModule");
    expectFleetError(() => checkDescriptor(descriptor({}, { module: 'mod' }), 'pkg-c'), 2, 'pkg-c', '/module');
  });

  it('rejects apiVersion 3.0, naming the supported versions', () => {
    expectFleetError(() => checkDescriptor(descriptor({}, { apiVersion: '3.0' }), 'pkg-d'), 2, 'pkg-d', 'acme-gpu', 'apiVersion 3.0 is not supported', '2.0');
  });

  it('rejects a newer minor and a malformed version or name', () => {
    expectFleetError(() => checkDescriptor(descriptor({}, { apiVersion: '2.1' }), 'pkg-e'), 2, 'apiVersion 2.1 is not supported');
    expectFleetError(() => checkDescriptor(descriptor({}, { apiVersion: 'one' }), 'pkg-e'), 2, '/apiVersion');
    expectFleetError(() => checkDescriptor(descriptor({}, { name: 'Acme GPU' }), 'pkg-e'), 2, '/name');
  });
});

describe('loadBackend', () => {
  it('assembles a Backend from the bindings', () => {
    const metric: StreamContribution = () => ({}) as never;
    const collective: CollectiveModel = { name: 'ring', latencyNs: () => 1, trafficBytes: () => 2, onChip: true };
    const tuning: BackendTuning = { persistent: { workersPerPartition: 3 }, policies: { b: { refuse: 'no hardware support for this' } } };
    const policy = { name: 'mine' };
    const b = loadBackend(descriptor({ tuning, policies: [policy], contributions: [metric], collectives: [collective] }), 'origin');
    expect(b.name).toBe('acme-gpu');
    expect(b.apiVersion).toBe(API_VERSION);
    expect(b.topology.name).toBe('test-gpu');
    expect(b.tuning).toEqual(tuning);
    expect(b.contributions).toEqual([{ token: TOKENS.Policy, value: policy, origin: 'origin' }]);
    expect(b.streamContributions).toEqual([metric]);
    expect(b.collectives).toEqual([collective]);
    expect(b.costModel.dispatchNs).toBe(20);
  });

  it('optional contributions default to empty lists', () => {
    const b = loadBackend(descriptor(), 'origin');
    expect(b.tuning).toEqual({});
    expect(b.contributions).toEqual([]);
    expect(b.streamContributions).toEqual([]);
    expect(b.collectives).toEqual([]);
  });

  it('a module that does not bind TOKENS.CostModel is an error naming the token', () => {
    expectFleetError(() => loadBackend(descriptor({ costModel: false }), 'pkg-f'), 2, 'acme-gpu', 'pkg-f', 'TOKENS.CostModel');
  });

  it('a module that does not bind TOKENS.Topology is an error naming it', () => {
    expectFleetError(() => loadBackend(descriptor({ topology: undefined }), 'pkg-g'), 2, 'TOKENS.Topology');
  });

  it('a topology that fails the schema is an error carrying the JSON pointer', () => {
    const bad = structuredClone(testTopology()) as Topology;
    bad.memory.l2.lineBytes = 0;
    expectFleetError(() => loadBackend(descriptor({ topology: bad }), 'pkg-h'), 2, 'invalid topology from backend acme-gpu', '/memory/l2/lineBytes');
  });

  it('a topology that fails a cross-field rule is an error naming the field', () => {
    const bad = structuredClone(testTopology()) as Topology;
    bad.memory.l2.organisation = 'shared';
    expectFleetError(() => loadBackend(descriptor({ topology: bad }), 'pkg-h'), 2, '/memory/l2', 'halves');
  });

  it('tuning that names an unknown field or an absurd count is an error with its pointer', () => {
    expectFleetError(() => loadBackend(descriptor({ tuning: { persistant: {} } as BackendTuning }), 'pkg-i'), 2, 'TOKENS.Tuning', 'persistant');
    expectFleetError(
      () => loadBackend(descriptor({ tuning: { policies: { mirage: { persistent: { workersPerPartition: 999 } } } } }), 'pkg-i'),
      2,
      '/policies/mirage/persistent/workersPerPartition',
    );
    expectFleetError(() => loadBackend(descriptor({ tuning: { policies: { mirage: { refuse: '' } } } }), 'pkg-i'), 2, 'TOKENS.Tuning', 'refuse');
  });

  it('a contribution that is not an object is an error naming its token', () => {
    expectFleetError(() => loadBackend(descriptor({ policies: [42 as unknown as object] }), 'pkg-i'), 2, 'TOKENS.Policy');
  });

  it('a module whose load throws is reported on one line', () => {
    const module = new ContainerModule(() => {
      throw new Error('boom\nsecond line');
    });
    expectFleetError(() => loadBackend(descriptor({}, { module }), 'pkg-j'), 2, 'pkg-j', 'failed to load', 'boom');
  });

  it('a binding that cannot be resolved is reported on one line', () => {
    const module = new ContainerModule(({ bind }) => {
      bind(TOKENS.Topology).toDynamicValue(() => {
        throw new Error('no topology today\nstack');
      });
      bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(testTopology(), testParams()));
    });
    expectFleetError(() => loadBackend(descriptor({}, { module }), 'pkg-k'), 2, 'pkg-k', 'cannot resolve its bindings');
  });

  it('rejects an invalid descriptor before loading anything', () => {
    expectFleetError(() => loadBackend({ name: 'x' }, 'pkg-l'), 2, 'pkg-l', 'not a backend descriptor');
  });
});

describe('BackendRegistry', () => {
  const named = (name: string): Backend => ({ ...testBackend(), name });

  it('registers and returns backends by name', () => {
    const r = new BackendRegistry();
    const a = named('alpha');
    r.register(a, 'pkg-alpha');
    r.register(named('beta'), 'pkg-beta');
    expect(r.get('alpha')).toBe(a);
    expect(r.names()).toEqual(['alpha', 'beta']);
    expect(r.all().map((b) => b.name)).toEqual(['alpha', 'beta']);
  });

  it('a duplicate name is an error naming both origins', () => {
    const r = new BackendRegistry();
    r.register(named('alpha'), 'first-origin');
    expectFleetError(() => r.register(named('alpha'), 'second-origin'), 2, "duplicate backend name 'alpha'", 'first-origin', 'second-origin');
    expect(r.names()).toEqual(['alpha']);
  });

  it('an unknown backend is an error listing the installed names', () => {
    const r = new BackendRegistry();
    expectFleetError(() => r.get('gamma'), 2, "unknown backend 'gamma'", 'installed: none');
    r.register(named('alpha'), 'a');
    r.register(named('beta'), 'b');
    expectFleetError(() => r.get('gamma'), 2, "unknown backend 'gamma'", 'installed: alpha, beta');
  });
});

describe('package discovery', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  function tempProject(): string {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-discover-'));
    dirs.push(d);
    return d;
  }

  function writePackage(root: string, name: string, pkg: Record<string, unknown>, files: Record<string, string> = {}): string {
    const dir = path.join(root, 'node_modules', ...name.split('/'));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...pkg }));
    for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
    return dir;
  }

  const field = (over: Record<string, unknown> = {}) => ({ kind: 'backend', apiVersion: '2.0', entry: './index.mjs', ...over });

  it('finds scoped and unscoped packages with a fleet field and ignores the rest', () => {
    const root = tempProject();
    const x = writePackage(root, '@acme/backend-x', { fleet: field() });
    const y = writePackage(root, 'backend-y', { fleet: field({ entry: './dist/main.js' }) });
    writePackage(root, 'left-pad', {});
    writePackage(root, '@acme/utils', { main: 'index.js' });
    fs.mkdirSync(path.join(root, 'node_modules', '.bin'), { recursive: true });
    const found = discoverBackendPackages(root);
    expect(found).toEqual([
      { packageName: '@acme/backend-x', dir: x, field: field() },
      { packageName: 'backend-y', dir: y, field: field({ entry: './dist/main.js' }) },
    ]);
  });

  it('an invalid fleet field throws a FleetError naming the package and the field', () => {
    const root = tempProject();
    writePackage(root, '@acme/backend-x', { fleet: field() });
    writePackage(root, '@acme/backend-bad', { fleet: field({ apiVersion: 'x' }) });
    expectFleetError(() => discoverBackendPackages(root), 2, 'package @acme/backend-bad', "invalid 'fleet' field", '/apiVersion');
  });

  it('an unsupported apiVersion in the fleet field names the supported range', () => {
    const root = tempProject();
    writePackage(root, '@acme/backend-future', { fleet: field({ apiVersion: '3.0' }) });
    expectFleetError(() => discoverBackendPackages(root), 2, '@acme/backend-future', 'apiVersion 3.0 is not supported', '2.0');
  });

  it('checkFleetField rejects a wrong kind, an entry outside the package and extra keys', () => {
    expectFleetError(() => checkFleetField('p', field({ kind: 'frontend' })), 2, 'package p', '/kind');
    expectFleetError(() => checkFleetField('p', field({ entry: 'index.js' })), 2, '/entry');
    expectFleetError(() => checkFleetField('p', field({ extra: true })), 2, "'extra'");
    expectFleetError(() => checkFleetField('p', 'backend'), 2, '(root)');
    expect(checkFleetField('p', field())).toEqual(field());
  });

  it('keeps the nearest copy of a package when node_modules are nested', () => {
    const outer = tempProject();
    writePackage(outer, '@acme/backend-x', { fleet: field({ entry: './outer.js' }) });
    writePackage(outer, 'backend-only-outer', { fleet: field() });
    const inner = path.join(outer, 'apps', 'cli');
    fs.mkdirSync(inner, { recursive: true });
    const near = writePackage(inner, '@acme/backend-x', { fleet: field({ entry: './inner.js' }) });
    const found = discoverBackendPackages(inner);
    expect(found.map((p) => p.packageName)).toEqual(['@acme/backend-x', 'backend-only-outer']);
    expect(found[0]!.dir).toBe(near);
    expect(found[0]!.field.entry).toBe('./inner.js');
  });

  it('a directory without node_modules finds nothing there; an unreadable package.json is skipped', () => {
    const root = tempProject();
    expect(discoverBackendPackages(root).filter((p) => p.dir.startsWith(root))).toEqual([]);
    const dir = path.join(root, 'node_modules', 'broken');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), '{ not json');
    expect(inspectPackage(dir)).toBeNull();
    expect(discoverBackendPackages(root).filter((p) => p.dir.startsWith(root))).toEqual([]);
  });

  it('importBackendEntry returns the default export, and reports a missing default or a failed import', async () => {
    const root = tempProject();
    writePackage(root, 'backend-ok', { fleet: field() }, { 'index.mjs': 'export default { hello: "world" };\n' });
    writePackage(root, 'backend-nodefault', { fleet: field() }, { 'index.mjs': 'export const x = 1;\n' });
    writePackage(root, 'backend-missing', { fleet: field({ entry: './nope.mjs' }) });
    const found = new Map(discoverBackendPackages(root).map((p) => [p.packageName, p]));
    await expect(importBackendEntry(found.get('backend-ok')!)).resolves.toEqual({ hello: 'world' });
    for (const [name, words] of [
      ['backend-nodefault', ['package backend-nodefault', 'no default export']],
      ['backend-missing', ['package backend-missing', 'cannot import ./nope.mjs']],
    ] as const) {
      const e = await importBackendEntry(found.get(name)!).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(FleetError);
      expect((e as FleetError).exitCode).toBe(2);
      expect((e as FleetError).message).not.toContain('\n');
      for (const w of words) expect((e as FleetError).message).toContain(w);
    }
  });
});
