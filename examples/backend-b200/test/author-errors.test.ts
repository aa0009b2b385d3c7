// The errors a backend author meets, through @fleet/core's public API: one line each, naming
// what is wrong and what is allowed, exit code 2.
import { BackendRegistry, FleetError, checkFleetField, loadBackend } from '@fleet/core';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import b200, { topology } from '../src/index.js';
import { misspeltL2, withApiVersion, withTopology, withoutCostModel } from './broken-copies.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; fleet: unknown };

/** The error `fn` throws; fails the test if it throws nothing or something that is not a one-line FleetError. */
function errorOf(fn: () => unknown): FleetError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FleetError);
    const err = e as FleetError;
    expect(err.exitCode).toBe(2);
    expect(err.message).not.toContain('\n');
    return err;
  }
  throw new Error('expected an error');
}

describe('errors a backend author meets', () => {
  it('the real descriptor and package.json field load without error', () => {
    expect(loadBackend(b200, pkg.name).name).toBe('b200');
    expect(checkFleetField(pkg.name, pkg.fleet)).toEqual({ kind: 'backend', apiVersion: '2.0', entry: './dist/index.js' });
  });

  it('a wrong apiVersion in the descriptor says which versions are supported', () => {
    expect(errorOf(() => loadBackend(withApiVersion('3.0'), pkg.name)).message).toBe(
      `backend ${pkg.name} (b200): apiVersion 3.0 is not supported; this Fleet supports 2.0–2.0`,
    );
    // a newer minor than the host's is refused too; an older one would be accepted
    expect(errorOf(() => loadBackend(withApiVersion('1.9'), pkg.name)).message).toMatch(/apiVersion 1\.9 is not supported/);
  });

  it('a wrong apiVersion in package.json is caught before the entry is imported', () => {
    const field = { ...(pkg.fleet as object), apiVersion: '3.0' };
    expect(errorOf(() => checkFleetField(pkg.name, field)).message).toBe(`package ${pkg.name}: apiVersion 3.0 is not supported; this Fleet supports 2.0–2.0`);
    expect(errorOf(() => checkFleetField(pkg.name, { ...field, apiVersion: '1' })).message).toMatch(/\/apiVersion: must match pattern/);
  });

  it('a topology that fails its schema names the JSON pointer and the rule', () => {
    expect(errorOf(() => loadBackend(withTopology(misspeltL2()), pkg.name)).message).toBe(
      'invalid topology from backend b200: /memory/l2/organisation: must be equal to one of the allowed values (allowed: per-partition, shared)',
    );
    const { sources: _, ...withoutSources } = topology;
    expect(errorOf(() => loadBackend(withTopology(withoutSources), pkg.name)).message).toMatch(
      /^invalid topology from backend b200: \(root\): must have required property 'sources'$/,
    );
  });

  it('a missing required binding names the token', () => {
    expect(errorOf(() => loadBackend(withoutCostModel(), pkg.name)).message).toBe(`backend b200 (${pkg.name}): missing required binding TOKENS.CostModel`);
  });

  it('a second backend with the same name names both packages', () => {
    const registry = new BackendRegistry();
    registry.register(loadBackend(b200, pkg.name), pkg.name);
    expect(errorOf(() => registry.register(loadBackend(b200, '@acme/backend-b200-copy'), '@acme/backend-b200-copy')).message).toBe(
      `duplicate backend name 'b200': from ${pkg.name} and @acme/backend-b200-copy`,
    );
  });

  it('a module that is not a ContainerModule from @fleet/core (a second copy of core) is refused', () => {
    expect(errorOf(() => loadBackend({ ...b200, module: {} }, pkg.name)).message).toMatch(
      /'module' must be an inversify ContainerModule \(import it from @fleet\/core so there is one copy\)/,
    );
  });
});
