import { BackendRegistry, FleetError, TOKENS } from '@fleet/core';
import { describe, expect, it } from 'vitest';
import { installedSuites } from '../src/commands/validate.js';
import { contributedSections } from '../src/report/sections.js';

/** A registry holding one extension per `[origin, token, value]`. */
function registryWith(...bound: [string, symbol, unknown][]): BackendRegistry {
  const r = new BackendRegistry();
  for (const [origin, token, value] of bound) r.addExtension({ name: origin, apiVersion: '2.0', contributions: [{ token, value, origin }] }, origin);
  return r;
}

function errorOf(f: () => unknown): FleetError {
  try {
    f();
  } catch (e) {
    if (e instanceof FleetError) return e;
    throw e;
  }
  throw new Error('no error');
}

const suite = { name: 'mine', description: 'a suite', backends: ['mi350'], points: 1, run: () => [] };
const section = { id: 'mine', title: 'Mine', caption: 'how to read it', chart: () => null };

describe('contributed suites and report sections are checked before use', () => {
  it('accepts well-formed ones in load order', () => {
    expect(installedSuites(registryWith(['pkg-a', TOKENS.ValidationSuite, suite])).map((s) => s.name)).toEqual(['mine']);
    expect(contributedSections(registryWith(['pkg-a', TOKENS.ReportSection, section])).map((s) => s.id)).toEqual(['mine']);
  });

  it('refuses a wrong field, naming the plugin and the field', () => {
    const e = errorOf(() => installedSuites(registryWith(['pkg-b', TOKENS.ValidationSuite, { ...suite, points: -1 }])));
    expect([e.exitCode, e.message]).toEqual([2, expect.stringMatching(/^pkg-b: TOKENS\.ValidationSuite \/points/)]);
    expect(errorOf(() => contributedSections(registryWith(['pkg-b', TOKENS.ReportSection, { ...section, id: 'Not Dashed' }]))).message).toMatch(
      /^pkg-b: .*\/id/,
    );
  });

  it('refuses a missing method', () => {
    const { run: _, ...noRun } = suite;
    expect(errorOf(() => installedSuites(registryWith(['pkg-c', TOKENS.ValidationSuite, noRun]))).message).toBe(
      'pkg-c: TOKENS.ValidationSuite must have a method run()',
    );
  });

  it('refuses the same name from two plugins, naming both', () => {
    const twice = registryWith(['pkg-d', TOKENS.ValidationSuite, suite], ['pkg-e', TOKENS.ValidationSuite, suite]);
    expect(errorOf(() => installedSuites(twice)).message).toBe("TOKENS.ValidationSuite 'mine' is bound twice: by pkg-d and pkg-e");
  });
});
