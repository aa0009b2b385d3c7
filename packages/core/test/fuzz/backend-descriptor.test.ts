/**
 * Property-based fuzzing of backend plugins: descriptors (`checkDescriptor`, `loadBackend`)
 * with missing or mistyped fields, incompatible API versions, modules that throw (or return
 * a promise) on load, bindings of the wrong type; and installed packages
 * (`discoverBackendPackages`, `importBackendEntry`) with broken `fleet` fields and entry
 * files that throw on import. Each is refused with a one-line `FleetError` naming the
 * package or backend, the field and the rule — never a crash or an unhandled rejection.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { RooflineCostModel } from '../../src/cost/roofline-cost-model.js';
import { ContainerModule } from '../../src/index.js';
import { API_VERSION } from '../../src/plugin/contract.js';
import { discoverBackendPackages, importBackendEntry, type DiscoveredPackage } from '../../src/plugin/discover.js';
import { checkDescriptor, isApiCompatible, loadBackend } from '../../src/plugin/load-backend.js';
import { TOKENS } from '../../src/plugin/tokens.js';
import { escapeControls } from '../../src/model/messages.js';
import { testParams, testTopology } from '../helpers.js';
import { FUZZ_TIMEOUT_MS, fuzz, outcome, outcomeAsync, rejected } from './oracle.js';

vi.setConfig({ testTimeout: FUZZ_TIMEOUT_MS });

const ORIGIN = '@acme/backend-fuzz';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-plugin-fuzz-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;

type Binder = (bind: (id: symbol) => { toConstantValue(v: unknown): unknown; toDynamicValue(f: () => unknown): unknown }) => void;

/** The bindings of a valid backend, each of which a property may replace. */
const VALID: Record<string, Binder> = {
  Topology: (bind) => void bind(TOKENS.Topology).toConstantValue(testTopology()),
  CostModel: (bind) => void bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(testTopology(), testParams())),
  Tuning: (bind) =>
    void bind(TOKENS.Tuning).toConstantValue({
      persistent: { workersPerPartition: 3, globalSchedulers: 2 },
      policies: { mirage: { refuse: 'not on this test GPU' } },
    }),
};

function moduleWith(over: Partial<Record<string, Binder | null>> = {}): ContainerModule {
  return new ContainerModule(({ bind }) => {
    for (const binder of Object.values({ ...VALID, ...over })) if (binder) binder(bind as never);
  });
}

const descriptor = (over: Record<string, unknown> = {}) => ({ name: 'acme-gpu', apiVersion: API_VERSION, module: moduleWith(), ...over });

/** Values plugins get wrong, with the awkward ones (null prototypes, multi-line text) on purpose. */
const junk = fc.oneof(
  fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSet: true, withBoxedValues: true, withSparseArray: true, withTypedArray: true }),
  fc.string().map((s) => new Error(`first line\n${s}\n   at fake (file.js:1:1)`)),
  fc.constantFrom(null, undefined, '', '\n\n', Object.create(null), Symbol('s'), () => 1, new Error(''), new Error('\nsecond line only')),
);

describe('backend descriptor fuzzing: checkDescriptor', () => {
  it('any value as a default export is refused with one line, or is a real descriptor', () => {
    fc.assert(
      fc.property(junk, (v) => {
        rejected(
          outcome(() => checkDescriptor(v, ORIGIN)),
          `backend ${ORIGIN}`,
        );
      }),
      fuzz(300),
    );
  });

  it('a missing or mistyped field is refused naming it', () => {
    fc.assert(
      fc.property(fc.constantFrom('name', 'apiVersion', 'module'), fc.option(junk, { nil: undefined }), fc.boolean(), (field, v, remove) => {
        const d: Record<string, unknown> = descriptor({ [field]: v });
        if (remove) delete d[field];
        const o = outcome(() => checkDescriptor(d, ORIGIN));
        const valid = field === 'name' ? typeof v === 'string' && /^[a-z0-9][a-z0-9-]*$/.test(v) : false;
        if (!remove && valid) expect(o.ok).toBe(true);
        else rejected(o, field);
      }),
      fuzz(300),
    );
  });

  it('an API version is accepted exactly when its major matches and its minor is not newer', () => {
    const version = fc.oneof(
      fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 3 })).map(([a, b]) => `${a}.${b}`),
      fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `${a}.${b}`),
      fc.constantFrom('1', '1.0.0', 'v1.0', '1.', '.0', ' 1.0', '1.0\n', '01.0', '1.00', '99999999999999999999.0', ''),
      fc.string(),
    );
    const [hostMajor, hostMinor] = API_VERSION.split('.').map(Number);
    fc.assert(
      fc.property(version, (v) => {
        const o = outcome(() => checkDescriptor(descriptor({ apiVersion: v }), ORIGIN));
        const m = /^(\d+)\.(\d+)$/.exec(v);
        const ok = m !== null && Number(m[1]) === hostMajor && Number(m[2]) <= hostMinor!;
        expect(o.ok).toBe(ok);
        if (m && !ok) expect(rejected(o, 'apiVersion', escapeControls(v))).toContain(`supports ${hostMajor}.0–${API_VERSION}`);
        else if (!ok) rejected(o, 'apiVersion');
        expect(isApiCompatible(v)).toBe(m ? ok : isApiCompatible(v));
      }),
      fuzz(300),
    );
  });
});

describe('backend descriptor fuzzing: loadBackend', () => {
  it('a module whose load callback throws anything is refused on one line', () => {
    fc.assert(
      fc.property(junk, (thrown) => {
        const module = new ContainerModule(() => {
          throw thrown;
        });
        expect(
          rejected(
            outcome(() => loadBackend(descriptor({ module }), ORIGIN)),
            'acme-gpu',
            ORIGIN,
          ),
        ).toContain('failed to load');
      }),
      fuzz(200),
    );
  });

  it('an asynchronous module is refused, and its rejection never escapes unhandled', async () => {
    await fc.assert(
      fc.asyncProperty(junk, fc.boolean(), async (v, reject) => {
        const module = new ContainerModule(async ({ bind }) => {
          bind(TOKENS.CostModel).toConstantValue(v);
          if (reject) throw v;
        });
        expect(
          rejected(
            outcome(() => loadBackend(descriptor({ module }), ORIGIN)),
            'acme-gpu',
          ),
        ).toContain('asynchronous');
        // Let the promise settle inside this case: an unhandled rejection fails the run.
        await new Promise((r) => setTimeout(r, 0));
      }),
      fuzz(50),
    );
  });

  it('any binding replaced by a value of the wrong type is refused naming the token', () => {
    const tokens = ['Topology', 'CostModel', 'Tuning', 'StreamContribution', 'Collective'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...tokens), junk, fc.boolean(), (token, v, dynamic) => {
        const binder: Binder = (bind) => {
          const b = bind(TOKENS[token]);
          if (dynamic) b.toDynamicValue(() => v);
          else b.toConstantValue(v);
        };
        const o = outcome(() => loadBackend(descriptor({ module: moduleWith({ [token]: binder }) }), ORIGIN));
        if (o.ok) {
          // Only well-typed values may pass: a function is a stream contribution; an empty object is valid tuning.
          const emptyObject = typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
          expect((token === 'StreamContribution' && typeof v === 'function') || (token === 'Tuning' && (v === undefined || emptyObject))).toBe(true);
          return;
        }
        const msg = rejected(o, 'acme-gpu');
        if (token === 'Topology') expect(msg).toContain('invalid topology');
        else expect(msg).toMatch(new RegExp(`TOKENS\\.${token}|cannot resolve`));
      }),
      fuzz(300),
    );
  });

  it('a binding whose factory throws anything is refused on one line', () => {
    fc.assert(
      fc.property(fc.constantFrom('Topology', 'CostModel', 'Tuning'), junk, (token, thrown) => {
        const binder: Binder = (bind) =>
          void bind(TOKENS[token as 'Topology']).toDynamicValue(() => {
            throw thrown;
          });
        expect(
          rejected(
            outcome(() => loadBackend(descriptor({ module: moduleWith({ [token]: binder }) }), ORIGIN)),
            'acme-gpu',
          ),
        ).toContain('cannot resolve');
      }),
      fuzz(100),
    );
  });

  it('a missing required binding is refused naming the token', () => {
    fc.assert(
      fc.property(fc.subarray(['Topology', 'CostModel'], { minLength: 1 }), (missing) => {
        const over = Object.fromEntries(missing.map((t) => [t, null]));
        const msg = rejected(
          outcome(() => loadBackend(descriptor({ module: moduleWith(over) }), ORIGIN)),
          'acme-gpu',
          'missing required binding',
        );
        expect(missing.some((t) => msg.includes(`TOKENS.${t}`))).toBe(true);
      }),
      fuzz(20),
    );
  });

  it('tuning fields are accepted only with the right types and sane counts', () => {
    const field = fc.constantFrom('workersPerPartition', 'schedulersPerPartition', 'globalSchedulers', 'refuse', 'unknownField');
    const value = fc.oneof(junk, fc.integer({ min: -2, max: 5 }), fc.constantFrom(1e9, 2 ** 53, 0.5, Number.NaN, 'device', 'mirage', 'Has Spaces'));
    fc.assert(
      fc.property(field, value, fc.boolean(), (f, v, perPolicy) => {
        const layout = f === 'refuse' ? {} : { [f]: v };
        const tuning = perPolicy || f === 'refuse' ? { policies: { mirage: f === 'refuse' ? { refuse: v } : { persistent: layout } } } : { persistent: layout };
        const binder: Binder = (bind) => void bind(TOKENS.Tuning).toConstantValue(tuning);
        const o = outcome(() => loadBackend(descriptor({ module: moduleWith({ Tuning: binder }) }), ORIGIN));
        const count = (max: number) => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max;
        const valid =
          (v === undefined && f !== 'refuse' && f !== 'unknownField') ||
          (f === 'refuse' && typeof v === 'string' && v.length > 0) ||
          (f === 'workersPerPartition' && count(4)) ||
          (f === 'schedulersPerPartition' && count(4096)) ||
          (f === 'globalSchedulers' && count(65536));
        if (valid) expect(o.ok).toBe(true);
        if (!valid) expect(rejected(o, 'TOKENS.Tuning')).toContain(f);
      }),
      fuzz(300),
    );
  });
});

describe('backend descriptor fuzzing: installed packages', () => {
  const VALID_FIELD = { kind: 'backend', apiVersion: API_VERSION, entry: './index.js' };

  /** The `fleet` field's rules, written independently of the checker. */
  function fieldValid(f: unknown): boolean {
    if (typeof f !== 'object' || f === null || Array.isArray(f)) return false;
    const o = f as Record<string, unknown>;
    if (Object.keys(o).some((k) => !['kind', 'apiVersion', 'entry'].includes(k))) return false;
    if (o.kind !== 'backend' || typeof o.entry !== 'string' || !o.entry.startsWith('./')) return false;
    if (typeof o.apiVersion !== 'string') return false;
    const m = /^(\d+)\.(\d+)$/.exec(o.apiVersion);
    return m !== null && Number(m[1]) === Number(API_VERSION.split('.')[0]) && Number(m[2]) <= Number(API_VERSION.split('.')[1]);
  }

  const fieldValue = fc.oneof(
    fc.record({ kind: fc.constant('backend'), apiVersion: fc.constant(API_VERSION), entry: fc.constant('./index.js') }, { requiredKeys: [] }),
    fc
      .tuple(
        fc.constantFrom('kind', 'apiVersion', 'entry', 'extra'),
        fc.oneof(fc.jsonValue(), fc.constantFrom('backend', 'frontend', '1.0', '2.0', '1.1', 'index.js', './x.js', '../x.js')),
      )
      .map(([k, v]) => ({ ...VALID_FIELD, [k]: v })),
    fc.jsonValue(),
  );
  const pkgName = fc.oneof(fc.constantFrom('acme-backend', '@acme/backend', 'line\nbreak', 'ünïcode'), fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/));

  it('a package.json fleet field is accepted exactly when valid; otherwise the error names the package and field', () => {
    fc.assert(
      fc.property(fieldValue, pkgName, (field, name) => {
        const dir = path.join(root, `d${n++}`);
        const pkgDir = path.join(dir, 'node_modules', name.startsWith('@') ? name : `pkg-${n}`);
        fs.mkdirSync(pkgDir, { recursive: true });
        fs.writeFileSync(path.join(pkgDir, 'package.json'), JSON.stringify({ name, version: '1.0.0', fleet: field }));
        const o = outcome(() => discoverBackendPackages(dir));
        if (field === undefined) return;
        if (fieldValid(field)) {
          expect(o.ok && o.value.map((p) => p.packageName)).toEqual([name]);
        } else {
          const msg = rejected(o, `package ${escapeControls(name)}`);
          expect(msg).toMatch(/'fleet' field|apiVersion/);
        }
      }),
      fuzz(150),
    );
  });

  it('an unreadable or non-JSON package.json is skipped, never a crash', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1')),
          fc.jsonValue().map((v) => JSON.stringify(v) ?? ''),
        ),
        (text) => {
          const dir = path.join(root, `d${n++}`);
          const pkgDir = path.join(dir, 'node_modules', 'weird');
          fs.mkdirSync(pkgDir, { recursive: true });
          fs.writeFileSync(path.join(pkgDir, 'package.json'), text);
          const o = outcome(() => discoverBackendPackages(dir));
          if (!o.ok) rejected(o, 'weird');
        },
      ),
      fuzz(100),
    );
  });

  /** JavaScript source of an entry that throws `v` (or fails to parse) on import. */
  const throwing = fc.oneof(
    fc.jsonValue().map((v) => `throw ${JSON.stringify(v) ?? 'undefined'};`),
    fc.string().map((s) => `throw new Error(${JSON.stringify(s)});`),
    fc.string().map((s) => `throw new TypeError(${JSON.stringify(`line one\n${s}`)});`),
    fc.constantFrom(
      'throw Object.create(null);',
      'throw Symbol("s");',
      'throw undefined;',
      'export default {',
      'import x from "./missing.js"; export default x;',
      'await Promise.reject(new Error("async\\nboom"));',
      'export const notDefault = 1;',
    ),
    fc.string({ maxLength: 30 }),
  );

  it('an entry file that throws on import (or fails to parse) is refused naming the package and entry', async () => {
    await fc.assert(
      fc.asyncProperty(throwing, async (source) => {
        const dir = path.join(root, `e${n++}`);
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'index.mjs'), source);
        const p: DiscoveredPackage = { packageName: ORIGIN, dir, field: { kind: 'backend', apiVersion: API_VERSION, entry: './index.mjs' } };
        const o = await outcomeAsync(() => importBackendEntry(p));
        // A random string can be a valid module with a default export; then the descriptor check refuses it.
        if (o.ok)
          rejected(
            outcome(() => checkDescriptor(o.value, ORIGIN)),
            ORIGIN,
          );
        else expect(rejected(o, `package ${ORIGIN}`)).toContain('./index.mjs');
      }),
      fuzz(60),
    );
  });
});

describe('backend descriptor regressions', () => {
  it('a module that throws a null-prototype object is reported on one line (String() of it used to throw a TypeError)', () => {
    const module = new ContainerModule(() => {
      throw Object.create(null);
    });
    expect(
      rejected(
        outcome(() => loadBackend(descriptor({ module }), ORIGIN)),
        'acme-gpu',
      ),
    ).toContain('failed to load');
  });

  it('an async module that rejects is refused without an unhandled rejection', async () => {
    const module = new ContainerModule(async () => {
      throw new Error('late');
    });
    expect(
      rejected(
        outcome(() => loadBackend(descriptor({ module }), ORIGIN)),
        'acme-gpu',
      ),
    ).toContain('asynchronous');
    await new Promise((r) => setTimeout(r, 10));
  });

  it('tuning or a contributed policy bound to null is refused naming the token (it used to throw a TypeError)', () => {
    const tuning: Binder = (bind) => void bind(TOKENS.Tuning).toConstantValue(null);
    rejected(
      outcome(() => loadBackend(descriptor({ module: moduleWith({ Tuning: tuning }) }), ORIGIN)),
      'TOKENS.Tuning',
    );
    const policy: Binder = (bind) => void bind(TOKENS.Policy).toConstantValue(null);
    rejected(
      outcome(() => loadBackend(descriptor({ module: moduleWith({ Policy: policy }) }), ORIGIN)),
      'TOKENS.Policy',
    );
  });

  it('a cost model without its methods is refused at load (it used to fail mid-simulation)', () => {
    const binder: Binder = (bind) => void bind(TOKENS.CostModel).toConstantValue({ ...testParams() });
    rejected(
      outcome(() => loadBackend(descriptor({ module: moduleWith({ CostModel: binder }) }), ORIGIN)),
      'TOKENS.CostModel',
      'tileComputeNs',
    );
  });

  it('an absurd worker count is refused at load (the runtime would allocate it first)', () => {
    const binder: Binder = (bind) => void bind(TOKENS.Tuning).toConstantValue({ persistent: { workersPerPartition: 1e9 } });
    rejected(
      outcome(() => loadBackend(descriptor({ module: moduleWith({ Tuning: binder }) }), ORIGIN)),
      'TOKENS.Tuning',
      'workersPerPartition',
    );
  });

  it('a package name with a newline gives a one-line error', async () => {
    const p: DiscoveredPackage = { packageName: 'evil\npackage', dir: root, field: { kind: 'backend', apiVersion: API_VERSION, entry: './nope.js' } };
    rejected(await outcomeAsync(() => importBackendEntry(p)), 'evil\\npackage');
  });
});
