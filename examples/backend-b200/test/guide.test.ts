// docs/writing-a-backend.md is tested by this example: its snippets are copied from the
// example's files, its file layout exists, and its command output and error messages are what
// the CLI prints. Markers in the guide (HTML comments, invisible when rendered) say what each
// block is checked against.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
