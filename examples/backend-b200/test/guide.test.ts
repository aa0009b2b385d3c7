// docs/writing-a-backend.md is tested by this example: its snippets are copied from the
// example's files, its file layout exists, and its command output and error messages are what
// the CLI prints. Markers in the guide (HTML comments, invisible when rendered) say what each
// block is checked against.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { topologySummary } from '@fleet/cli';
import { loadBackend, loadModel } from '@fleet/core';
import { predictDecode } from '@fleet/ops';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, assertBuilt, exampleDir, fleet, mistakes } from './cli-harness.js';

const guidePath = join(exampleDir, '..', '..', 'docs', 'writing-a-backend.md');
const guide = readFileSync(guidePath, 'utf8');

interface Block {
  kind: string;
  arg: string;
  lang: string;
  body: string;
}

/** Fenced blocks preceded by a `<!-- kind: arg -->` marker line. */
function markedBlocks(markdown: string): Block[] {
  const re = /^<!-- (\w+)(?:: (\S+))? -->\n```(\w*)\n([\s\S]*?)^```$/gm;
  return [...markdown.matchAll(re)].map((m) => ({ kind: m[1]!, arg: m[2] ?? '', lang: m[3]!, body: m[4]! }));
}

/** Every key of `part` has an equal value in `whole` (arrays compared whole). */
function isSubset(part: unknown, whole: unknown): boolean {
  if (part === null || typeof part !== 'object' || Array.isArray(part)) return JSON.stringify(part) === JSON.stringify(whole);
  if (whole === null || typeof whole !== 'object') return false;
  return Object.entries(part).every(([k, v]) => isSubset(v, (whole as Record<string, unknown>)[k]));
}

/** The parts of a snippet between `// …` elision lines, without surrounding blank lines. */
function chunks(body: string): string[] {
  return body
    .split(/^\s*\/\/ …\s*$/m)
    .map((c) => c.replace(/^\n+|\s+$/g, ''))
    .filter((c) => c.length > 0);
}

const blocks = markedBlocks(guide);
const examples = blocks.filter((b) => b.kind === 'example');

describe('docs/writing-a-backend.md', () => {
  it('marks the snippets of every file a backend author writes', () => {
    const files = new Set(examples.map((b) => b.arg));
    for (const f of [
      'package.json',
      'tsconfig.json',
      'src/topology.ts',
      'src/cost-params.ts',
      'src/tuning.ts',
      'src/module.ts',
      'src/index.ts',
      'test/conformance.test.ts',
    ]) {
      expect(files).toContain(f);
    }
  });

  for (const [i, b] of examples.entries()) {
    it(`snippet ${i + 1} is copied from ${b.arg}`, () => {
      const source = readFileSync(join(exampleDir, b.arg), 'utf8');
      if (b.lang === 'json') {
        expect(isSubset(JSON.parse(b.body), JSON.parse(source))).toBe(true);
        return;
      }
      let from = 0;
      for (const c of chunks(b.body)) {
        const at = source.indexOf(c, from);
        expect(at, `not found in ${b.arg} (in order):\n${c}`).toBeGreaterThanOrEqual(0);
        from = at + c.length;
      }
    });
  }

  it('shows a file layout that exists', () => {
    const layout = blocks.find((b) => b.kind === 'layout');
    expect(layout).toBeDefined();
    const stack: string[] = [];
    const paths: string[] = [];
    for (const line of layout!.body.split('\n').filter((l) => l.trim() !== '')) {
      const depth = (line.length - line.trimStart().length) / 2;
      const name = line.trim().split(/\s+/)[0]!;
      stack.length = depth;
      if (depth > 0) paths.push([...stack.slice(1), name.replace(/\/$/, '')].join('/'));
      if (name.endsWith('/')) stack[depth] = name.replace(/\/$/, '');
    }
    expect(paths.length).toBeGreaterThan(8);
    expect(paths.filter((p) => !existsSync(join(exampleDir, p)))).toEqual([]);
  });

  describe('against the CLI', () => {
    const sandbox = new Sandbox();
    beforeAll(assertBuilt);
    afterAll(() => sandbox.dispose());

    it('shows the line `fleet backends` prints for the backend', async () => {
      const shown = blocks.filter((b) => b.kind === 'output' && b.arg === 'backends');
      expect(shown).toHaveLength(1);
      const r = await fleet(sandbox.project([exampleDir]), ['backends']);
      expect(r.code).toBe(0);
      expect(r.out.split('\n')).toContain(shown[0]!.body.trimEnd());
    });

    it('troubleshoots every mistake the example reproduces', () => {
      const ids = blocks.filter((b) => b.kind === 'error').map((b) => b.arg);
      expect(ids.sort()).toEqual(Object.keys(mistakes).sort());
    });

    for (const b of blocks.filter((x) => x.kind === 'error')) {
      it(`quotes the error for ${b.arg} exactly`, async () => {
        const r = await mistakes[b.arg]!(sandbox);
        expect(r.err.trimEnd()).toBe(b.body.trimEnd());
      });
    }
  });
});

// Section 11's backend is a whole file: saved into a package folder beside this example (so
// `@fleet/core` resolves), it must load, describe a single-die GDDR part, and predict.
describe('docs/writing-a-backend.md, section 11: a complete single-die GDDR backend', () => {
  const runnable = blocks.filter((b) => b.kind === 'runnable');
  const dir = mkdtempSync(join(exampleDir, '.guide-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is one TypeScript block', () => {
    expect(runnable.map((b) => [b.arg, b.lang])).toEqual([['index.ts', 'ts']]);
  });

  it('loads as a backend with one die and device memory, and runs a prediction', async () => {
    const file = join(dir, 'index.ts');
    writeFileSync(file, runnable[0]!.body);
    const mod = (await import(pathToFileURL(file).href)) as { default: unknown };
    const backend = loadBackend(mod.default, 'guide section 11');
    expect(backend.name).toBe('gddr-gpu');
    expect(backend.topology.partitions.computeUnits).toEqual([142]);
    expect(topologySummary(backend)).toBe('142 SMs in 1 die, 96 MiB L2, 48 GiB device memory at 0.76 TB/s achievable (0.86 peak)');
    expect(guide).toContain('`142 SMs in 1 die, 96 MiB L2, 48 GiB device memory at 0.76 TB/s\nachievable (0.86 peak)`');
    const r = predictDecode(backend, loadModel('llama2-7b'), { policy: 'kernel-per-op-graph', batch: 1, prompt: 64, decode: 8, layers: 1 });
    expect(r.status).toBe('ok');
    // A bandwidth-bound decode step cannot beat reading the weights once at the achievable bandwidth.
    expect(r.tpotMs).toBeGreaterThan((6.7e9 * 2) / 760 / 1e6);
    const cf = predictDecode(backend, loadModel('llama2-7b'), { policy: 'clusterfusion', batch: 1, prompt: 64, decode: 8, layers: 1 });
    expect(cf.reason).toMatch(/no thread-block clusters/);
  });
});
