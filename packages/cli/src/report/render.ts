import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/**
 * Render a Vega-Lite spec to SVG in Node, without a DOM or canvas (Vega estimates text
 * widths). Element ids get `prefix-` so that several charts can be inlined in one page.
 */
export async function renderSvg(spec: TopLevelSpec, prefix: string): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return namespaceIds(svg, prefix);
  } finally {
    view.finalize();
  }
}

/** Prefix every `id` and its references (`url(#…)`, `href="#…"`). */
export function namespaceIds(svg: string, prefix: string): string {
  return svg
    .replace(/\bid="([^"]+)"/g, (_, id: string) => `id="${prefix}-${id}"`)
    .replace(/url\(#([^)]+)\)/g, (_, id: string) => `url(#${prefix}-${id})`)
    .replace(/href="#([^"]+)"/g, (_, id: string) => `href="#${prefix}-${id}"`);
}

/** A PNG copy of an SVG at twice its size, with the system's fonts (DejaVu Sans on Debian). */
export function renderPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 2 },
    background: 'white',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  });
  return resvg.render().asPng();
}
