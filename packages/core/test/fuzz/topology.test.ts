/**
 * Property-based fuzzing of topology JSON (`validateTopology`): every field of two real
 * topologies (H100: shared L2; MI300X: per-partition L2 and an LLC) deleted, retyped, set to
 * negative, zero, NaN, infinite, tiny or huge values, and given extra properties. A rejected
 * topology gets a one-line `FleetError` naming the origin and the JSON pointer; an accepted
 * one must be simulatable: a synthetic graph runs on it to a finite time, quickly.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { topology as h100 } from '../../../backend-h100/src/topology.js';
import { topology as mi300x } from '../../../backend-mi300x/src/topology.js';
import { syntheticGraph } from '../../src/conformance/synthetic-graph.js';
import { escapeControls } from '../../src/model/messages.js';
import { simulateGraph } from '../../src/simulation/simulate.js';
import type { Topology } from '../../src/topology/topology.js';
import { validateTopology } from '../../src/topology/validate.js';
import { testBackend } from '../helpers.js';
import { FUZZ_TIMEOUT_MS, fuzz, outcome, rejected } from './oracle.js';

vi.setConfig({ testTimeout: FUZZ_TIMEOUT_MS });

const ORIGIN = 'fuzz.json';
const BASES: Record<string, Topology> = { h100, mi300x };
const baseName = fc.constantFrom(...Object.keys(BASES));

/** One place in a JSON document: its pointer, its parent's pointer and its key there. */
interface Place {
  pointer: string;
  parent: string;
  key: string;
  path: string[];
  value: unknown;
}

const escapeToken = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

function places(value: unknown, path: string[] = []): Place[] {
  const out: Place[] = [];
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      const p = [...path, k];
      out.push({
        pointer: `/${p.map(escapeToken).join('/')}`,
        parent: path.length === 0 ? '(root)' : `/${path.map(escapeToken).join('/')}`,
        key: k,
        path: p,
        value: v,
      });
      out.push(...places(v, p));
    }
  }
  return out;
}

const PLACES: Record<string, Place[]> = Object.fromEntries(Object.entries(BASES).map(([n, t]) => [n, places(t)]));
const OBJECTS: Record<string, Place[]> = Object.fromEntries(
  Object.entries(PLACES).map(([n, ps]) => [n, ps.filter((p) => typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value))]),
);
const NUMBERS: Record<string, Place[]> = Object.fromEntries(Object.entries(PLACES).map(([n, ps]) => [n, ps.filter((p) => typeof p.value === 'number')]));

/** A base topology and one of its places (of the kind `table` lists). */
const placeIn = (table: Record<string, Place[]>) => baseName.chain((n) => fc.tuple(fc.constant(n), fc.constantFrom(...table[n]!)));

function mutate(name: string, path: string[], change: (parent: Record<string, unknown> | unknown[], key: string) => void): unknown {
  const t = structuredClone(BASES[name]!) as unknown as Record<string, unknown>;
  let o: Record<string, unknown> | unknown[] = t;
  for (const k of path.slice(0, -1)) o = (o as Record<string, unknown>)[k] as Record<string, unknown>;
  change(o, path[path.length - 1]!);
  return t;
}

/** The message names the place: its own pointer, or its parent's pointer and its key. */
function namesPlace(msg: string, p: Place): void {
  expect(msg).toContain(`invalid topology from ${ORIGIN}`);
  const own = escapeControls(p.pointer);
  if (msg.includes(own)) return;
  expect(msg).toContain(escapeControls(p.parent));
  if (!/^\d+$/.test(p.key)) expect(msg).toContain(escapeControls(p.key));
}

/**
 * What an accepted topology must allow: a simulation that ends at a finite time, quickly
 * and with bounded memory (`outcome` enforces 1 s and 256 MiB), in both runtime styles.
 */
function checkSimulatable(t: Topology): void {
  const backend = testBackend({}, t);
  const P = t.partitions.computeUnits.length;
  const workers = Math.max(1, Math.min(...t.partitions.computeUnits) - 1);
  for (const style of ['kernel-per-op', 'persistent'] as const) {
    const persistent = style === 'persistent' ? { workersPerPartition: workers, chipletAware: true, schedulers: P, twoLevelCounting: true } : undefined;
    const o = outcome(() => simulateGraph(backend, syntheticGraph(t, style), { persistent }));
    if (!o.ok) throw new Error(`accepted topology does not simulate (${style}): ${o.error.message}`);
    expect(Number.isFinite(o.value.timeNs) && o.value.timeNs > 0).toBe(true);
  }
}

/** Fields the schema lets a topology leave out (given the rest of these two topologies). */
function mayBeAbsent(name: string, p: Place): boolean {
  const t = BASES[name]!;
  if (p.path[0] === 'sources' && p.path.length === 2) return true;
  if (
    p.pointer === '/memory/llc' ||
    p.pointer === '/memory/hbm/loadedLatency' ||
    p.pointer === '/computeUnit/matrixFlopsPerNs/fp8' ||
    p.pointer === '/levels/chiplet/maxSize'
  )
    return true;
  if ((p.key === 'halves' || p.key === 'farExtraLatencyNs') && p.parent === '/memory/l2') return t.memory.l2.organisation === 'per-partition';
  if (p.parent === '/partitions/computeUnits') return t.partitions.computeUnits.length > 1;
  if (p.parent === '/coherence') return !['chiplet', 'device'].includes(t.coherence[Number(p.key)]!.scope);
  return false;
}

const BAD_VALUES: unknown[] = [
  null,
  true,
  false,
  'x',
  '',
  '12',
  -1,
  0,
  -0,
  0.5,
  1e-9,
  5e-324,
  Number.NaN,
  Infinity,
  -Infinity,
  1e300,
  2 ** 53,
  2 ** 64,
  [],
  [1],
  {},
  { a: 1 },
];

describe('topology fuzzing: validateTopology', () => {
  it('the unmodified topologies are accepted and simulate', () => {
    for (const t of Object.values(BASES)) {
      const o = outcome(() => validateTopology(structuredClone(t), ORIGIN));
      expect(o.ok).toBe(true);
      if (o.ok) checkSimulatable(o.value);
    }
  });

  it('deleting any field is refused naming it, unless the field is optional', () => {
    fc.assert(
      fc.property(placeIn(PLACES), ([name, p]) => {
        const t = mutate(name, p.path, (o, k) => (Array.isArray(o) ? o.splice(Number(k), 1) : delete o[k]));
        const o = outcome(() => validateTopology(t, ORIGIN));
        if (o.ok) expect(mayBeAbsent(name, p), `${p.pointer} was deleted and the topology still accepted`).toBe(true);
        else {
          expect(mayBeAbsent(name, p)).toBe(false);
          namesPlace(rejected(o), p);
        }
      }),
      fuzz(200),
    );
  });

  it('any field set to a wrong type, negative, zero, NaN, infinite, tiny or huge value is refused naming it, or stays simulatable', () => {
    fc.assert(
      fc.property(placeIn(PLACES), fc.oneof(fc.constantFrom(...BAD_VALUES), fc.anything()), ([name, p], v) => {
        const t = mutate(name, p.path, (o, k) => ((o as Record<string, unknown>)[k] = v));
        const o = outcome(() => validateTopology(t, ORIGIN));
        if (o.ok) checkSimulatable(o.value);
        else namesPlace(rejected(o), p);
      }),
      fuzz(300),
    );
  });

  it('any number set to any double (NaN, infinities, denormals, extremes) is refused naming it, or stays simulatable', () => {
    const double = fc.oneof(fc.double(), fc.double({ min: 0, max: 2 }), fc.double({ min: 1e5, max: 1e12 }), fc.integer({ min: -1, max: 2 ** 33 }));
    fc.assert(
      fc.property(placeIn(NUMBERS), double, ([name, p], v) => {
        const t = mutate(name, p.path, (o, k) => ((o as Record<string, unknown>)[k] = v));
        const o = outcome(() => validateTopology(t, ORIGIN));
        if (o.ok) checkSimulatable(o.value);
        else namesPlace(rejected(o), p);
      }),
      fuzz(200),
    );
  });

  it('an extra property anywhere is refused naming the object and the property (sources: strings only)', () => {
    fc.assert(
      fc.property(placeIn(OBJECTS), fc.string({ maxLength: 12 }), fc.jsonValue(), ([name, p], key, v) => {
        fc.pre(!Object.hasOwn(p.value as object, key));
        const t = mutate(name, [...p.path, key], (o, k) => ((o as Record<string, unknown>)[k] = v));
        const o = outcome(() => validateTopology(t, ORIGIN));
        if (p.pointer === '/sources' && typeof v === 'string') expect(o.ok).toBe(true);
        else {
          const msg = rejected(o, `invalid topology from ${ORIGIN}`);
          expect(msg).toContain(
            escapeControls(p.pointer === '/sources' ? `/sources/${escapeToken(key)}` : `${p.pointer}: must NOT have additional properties '${key}'`),
          );
        }
      }),
      fuzz(200),
    );
  });

  it('an extra property at the root is refused naming it', () => {
    fc.assert(
      fc.property(baseName, fc.string({ maxLength: 12 }), fc.jsonValue(), (name, key, v) => {
        fc.pre(!Object.hasOwn(BASES[name]!, key));
        const t = { ...structuredClone(BASES[name]!), [key]: v };
        rejected(
          outcome(() => validateTopology(t, ORIGIN)),
          `(root): must NOT have additional properties '${escapeControls(key)}'`,
        );
      }),
      fuzz(60),
    );
  });

  it('random JSON and random values are refused with one line', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything()), (v) => {
        rejected(
          outcome(() => validateTopology(v, ORIGIN)),
          `invalid topology from ${ORIGIN}`,
        );
      }),
      fuzz(200),
    );
  });

  it('several fields changed at once are refused, or the topology stays simulatable', () => {
    const change = placeIn(NUMBERS).chain(([name]) =>
      fc.tuple(
        fc.constant(name),
        fc.array(fc.tuple(fc.constantFrom(...NUMBERS[name]!), fc.oneof(fc.double({ min: 0, max: 2 ** 33 }), fc.constantFrom(1, 1e6, 1e9, 2 ** 32))), {
          minLength: 1,
          maxLength: 6,
        }),
      ),
    );
    fc.assert(
      fc.property(change, ([name, edits]) => {
        const t = structuredClone(BASES[name]!) as unknown as Record<string, unknown>;
        for (const [p, v] of edits) {
          let o = t;
          for (const k of p.path.slice(0, -1)) o = o[k] as Record<string, unknown>;
          o[p.path[p.path.length - 1]!] = v;
        }
        const o = outcome(() => validateTopology(t, ORIGIN));
        if (o.ok) checkSimulatable(o.value);
        else rejected(o, `invalid topology from ${ORIGIN}`);
      }),
      fuzz(100),
    );
  });
});

describe('topology regressions', () => {
  const withValue = (name: string, pointer: string, v: unknown) => mutate(name, pointer.split('/').slice(1), (o, k) => ((o as Record<string, unknown>)[k] = v));

  it('keys holding newlines give one-line errors', () => {
    const t = { ...structuredClone(h100), 'bad\nkey': 1 };
    expect(rejected(outcome(() => validateTopology(t, ORIGIN)))).toContain("'bad\\nkey'");
    const s = { ...structuredClone(h100), sources: { 'a\nb': 5 } };
    expect(rejected(outcome(() => validateTopology(s, 'two\nlines')))).toContain('/sources/a\\nb');
  });

  it('a cache too large to simulate is refused (it used to throw a RangeError in the simulation)', () => {
    rejected(
      outcome(() => validateTopology(withValue('h100', '/memory/l2/capacityBytes', 1e300), ORIGIN)),
      '/memory/l2/capacityBytes',
      'must be <=',
    );
    const msg = rejected(
      outcome(() => validateTopology(withValue('mi300x', '/memory/l2/capacityBytes', 2 ** 30), ORIGIN)),
      '/memory/l2/capacityBytes',
    );
    expect(msg).toContain('per-partition L2s');
  });

  it('denormal bandwidths and throughputs are refused (they used to fail the engine with NaN times)', () => {
    rejected(
      outcome(() => validateTopology(withValue('h100', '/memory/hbm/achievableBandwidthBytesPerNs', 5e-324), ORIGIN)),
      '/memory/hbm/achievableBandwidthBytesPerNs',
      'must be >=',
    );
    rejected(
      outcome(() => validateTopology(withValue('h100', '/computeUnit/matrixFlopsPerNs/bf16', 5e-324), ORIGIN)),
      '/computeUnit/matrixFlopsPerNs/bf16',
      'must be >=',
    );
  });

  it('astronomic latencies and bandwidths are refused (they used to end in a spurious deadlock)', () => {
    rejected(
      outcome(() => validateTopology(withValue('h100', '/memory/l2/latencyNs', 1e308), ORIGIN)),
      '/memory/l2/latencyNs',
      'must be <=',
    );
    rejected(
      outcome(() => validateTopology(withValue('h100', '/memory/hbm/latencyNs', 1e9), ORIGIN)),
      '/memory/hbm/latencyNs',
      'must be <=',
    );
    rejected(
      outcome(() => validateTopology(withValue('h100', '/computeUnit/maxBandwidthBytesPerNs', 1e9), ORIGIN)),
      '/computeUnit/maxBandwidthBytesPerNs',
      'must be <=',
    );
  });

  it('every rate at its bound, every latency at its bound: still simulatable', () => {
    for (const name of Object.keys(BASES)) {
      for (const [r, l] of [
        [1e6, 0],
        [1, 1e6],
        [1e6, 1e6],
        [1, 0],
      ] as const) {
        const t = structuredClone(BASES[name]!) as unknown as Record<string, unknown>;
        for (const p of NUMBERS[name]!) {
          let o = t;
          for (const k of p.path.slice(0, -1)) o = o[k] as Record<string, unknown>;
          if (/PerNs$/.test(p.key) || p.parent === '/computeUnit/matrixFlopsPerNs') o[p.key] = r;
          else if (/Ns$/.test(p.key)) o[p.key] = l;
        }
        const o = outcome(() => validateTopology(t, ORIGIN));
        expect(o.ok).toBe(true);
        if (o.ok) checkSimulatable(o.value);
      }
    }
  });
});
