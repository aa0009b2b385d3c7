import { run } from './helpers.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompareRow } from '../src/index.js';
import { OP_CLASSES } from '../src/report/index.js';

const CHROMIUM = process.env.FLEET_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const CHARTS = ['tpot-vs-batch', 'l2-hit-vs-batch', 'hbm-bytes-per-token', 'roofline', 'time-breakdown'];
const grid = ['--backends', 'mi350,h100', '--policies', 'mirage,fleet-mtile', '--batch', '1,8', '--sample-layers', '1', '--decode', '16'];

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => relative(dir, join(dir, f)))
    .sort();
}

/** PNG width and height from its IHDR chunk. */
function pngSize(buf: Buffer): { width: number; height: number } {
  expect(buf.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('fleet report', () => {
  const a = mkdtempSync(join(tmpdir(), 'fleet-report-a-'));
  const b = mkdtempSync(join(tmpdir(), 'fleet-report-b-'));
  let first: { code: number; out: string; err: string };
  let rows: CompareRow[];

  beforeAll(async () => {
    first = await run(['report', '--out', a, ...grid]);
    rows = JSON.parse(readFileSync(join(a, 'compare.json'), 'utf8')).results;
  }, 120_000);

  it('opens with the answer: the fastest policy per backend and batch, with its margin, before any detail', () => {
    const html = readFileSync(join(a, 'index.html'), 'utf8');
    const sections = [...html.matchAll(/<section id="([a-z-]+)">/g)].map((m) => m[1]);
    expect(sections[0]).toBe('winners');
    const winners = html.slice(html.indexOf('<section id="winners">'), html.indexOf('<section id="backends">'));
    for (const backend of ['mi350', 'h100'])
      for (const batch of [1, 8]) {
        const ran = rows.filter((r) => r.backend === backend && r.batch === batch && r.status === 'ok');
        const best = ran.reduce((x, y) => (y.tpotMs! < x.tpotMs! ? y : x));
        expect(winners).toMatch(new RegExp(`<td>${backend} batch ${batch}</td><td><b>${best.policy}</b></td><td class="num">${best.tpotMs!.toFixed(3)}</td>`));
      }
    expect(winners).toMatch(/Fastest overall: batch 1: <b>/);
  });

  it('draws one panel per backend, so no chart repeats a colour', () => {
    for (const id of ['tpot-vs-batch', 'l2-hit-vs-batch', 'hbm-bytes-per-token']) {
      const spec = JSON.parse(readFileSync(join(a, 'charts', `${id}.vl.json`), 'utf8'));
      expect(spec.facet.column.field, id).toBe('backend');
      const scale = spec.spec.encoding.color.scale;
      expect(scale.domain.length).toBeLessThanOrEqual(scale.scheme === 'tableau10' ? 10 : 20);
    }
  });

  it('writes the page, the comparison in three formats, and each chart as SVG, PNG and spec', () => {
    expect(first.code).toBe(0);
    expect(first.out).toContain(join(a, 'index.html'));
    expect(files(a)).toEqual(
      [
        'index.html',
        'compare.json',
        'compare.csv',
        'compare.md',
        ...CHARTS.flatMap((c) => [`charts/${c}.svg`, `charts/${c}.png`, `charts/${c}.vl.json`]),
      ].sort(),
    );
    for (const c of CHARTS) {
      const { width, height } = pngSize(readFileSync(join(a, 'charts', `${c}.png`)));
      expect(width).toBeGreaterThan(300);
      expect(height).toBeGreaterThan(200);
    }
  });

  it('compare.json is exactly what `fleet compare --json` prints for the same options', async () => {
    const c = await run(['compare', '--json', ...grid]);
    expect(c.code).toBe(0);
    expect(readFileSync(join(a, 'compare.json'), 'utf8')).toBe(c.out);
    expect(rows.filter((r) => r.status === 'ok')).toHaveLength(6);
  }, 120_000);

  it('the same input gives byte-identical files', async () => {
    const again = await run(['report', '--out', b, ...grid]);
    expect(again.code).toBe(0);
    expect(files(b)).toEqual(files(a));
    for (const f of files(a)) expect(readFileSync(join(b, f)).equals(readFileSync(join(a, f))), f).toBe(true);
  }, 120_000);

  it('the page is self-contained: no scripts, nothing fetched, every chart inline', () => {
    const html = readFileSync(join(a, 'index.html'), 'utf8');
    expect(html).not.toMatch(/<script|<link|<img|@import|src=/i);
    expect(html.match(/href="https?:/g)).toBeNull();
    expect(html.match(/<svg /g)).toHaveLength(CHARTS.length);
    expect(html).not.toContain(a);
  });

  it('time per op class adds up to TPOT; roofline points sit at B / (1 − hit rate)', () => {
    const spec = JSON.parse(readFileSync(join(a, 'charts', 'time-breakdown.vl.json'), 'utf8'));
    const values: { label: string; opClass: string; ms: number }[] = spec.data.values;
    for (const r of rows.filter((x) => x.status === 'ok')) {
      const mine = values.filter((v) => v.label === `${r.backend} · ${r.policy} · b${r.batch}`);
      expect(mine.map((v) => v.opClass)).toEqual([...OP_CLASSES]);
      expect(mine.reduce((s, v) => s + v.ms, 0)).toBeCloseTo(r.tpotMs!, 6);
      expect(mine.find((v) => v.opClass === 'linear')!.ms).toBeGreaterThan(0.5 * r.tpotMs!);
    }
    const roof = JSON.parse(readFileSync(join(a, 'charts', 'roofline.vl.json'), 'utf8'));
    const pts: { backend: string; policy: string; batch: number; ai: number }[] = roof.layer[1].data.values;
    expect(pts).toHaveLength(6);
    for (const p of pts) {
      const r = rows.find((x) => x.backend === p.backend && x.policy === p.policy && x.batch === p.batch)!;
      expect(p.ai).toBeCloseTo(p.batch / (1 - r.l2HitRate!), 9);
    }
  });

  // Runs wherever Chromium is installed; in CI (`.ci/run` installs it) a missing browser fails rather than skips.
  it.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(
    'renders in headless Chromium with every chart present and non-empty',
    async () => {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const requests: string[] = [];
        const errors: string[] = [];
        page.on('request', (r) => requests.push(r.url()));
        page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
        page.on('pageerror', (e) => errors.push(e.message));
        const url = pathToFileURL(join(a, 'index.html')).href;
        await page.goto(url);
        const charts = await page.$$eval('figure.chart', (figs) =>
          figs.map((f) => {
            const svg = f.querySelector('svg')!;
            const box = svg.getBoundingClientRect();
            const count = (sel: string) => svg.querySelectorAll(sel).length;
            return {
              id: f.id,
              width: box.width,
              height: box.height,
              lines: count('g.mark-line path'),
              symbols: count('g.mark-symbol path'),
              rects: count('g.mark-rect path'),
              texts: count('text'),
            };
          }),
        );
        expect(charts.map((c) => c.id)).toEqual(CHARTS.map((c) => `chart-${c}`));
        for (const c of charts) {
          expect(c.width, c.id).toBeGreaterThan(300);
          expect(c.height, c.id).toBeGreaterThan(100);
          expect(c.texts, c.id).toBeGreaterThan(5);
        }
        const ok = rows.filter((r) => r.status === 'ok');
        const series = new Set(ok.map((r) => `${r.backend}·${r.policy}`)).size;
        const by = Object.fromEntries(charts.map((c) => [c.id.replace('chart-', ''), c]));
        expect(by['tpot-vs-batch']!.lines).toBe(series);
        expect(by['l2-hit-vs-batch']!.lines).toBe(series);
        expect(by['hbm-bytes-per-token']!.rects).toBe(ok.length);
        expect(by.roofline!.symbols).toBeGreaterThanOrEqual(ok.length);
        expect(by['time-breakdown']!.rects).toBe(ok.length * OP_CLASSES.length);
        expect(await page.locator('#comparison tbody tr').count()).toBe(rows.length);
        expect(requests).toEqual([url]);
        expect(errors).toEqual([]);
        if (process.env.FLEET_REPORT_SCREENSHOT) await page.screenshot({ path: process.env.FLEET_REPORT_SCREENSHOT, fullPage: true });
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  it('bad input: one line, exit code 2', async () => {
    const r = await run(['report', '--out', a, '--batch', '0']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--batch: '0'/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    const m = await run(['report', '--batch', '1']);
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/--out/);
  });
});
