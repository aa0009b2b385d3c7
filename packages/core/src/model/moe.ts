import * as fs from 'node:fs';
import { readBoundedText } from './files.js';
import { lineError, oneLine, showValue } from './messages.js';
import type { ModelSpec, MoeSpec } from './model-spec.js';

export type { MlaSpec, MoeSpec } from './model-spec.js';

/**
 * Mixture-of-Experts and multi-head latent attention: the parts of a `ModelSpec` that change
 * a decode step's op graph, and routing — which experts the tokens of one step go to. Routing
 * is an input (it depends on the data, not the model): uniform by default, Zipf-skewed, or a
 * measured per-expert histogram. Everything here is deterministic.
 */

/** At most this many routed experts: more is a corrupt file (DeepSeek-V3 has 256). */
export const MAX_EXPERTS = 4096;

/** Whether decoder layer `l` of `spec` runs the MoE FFN. */
export function isMoeLayer(spec: ModelSpec, l: number): boolean {
  return spec.moe !== undefined && !spec.moe.denseLayers.includes(l);
}

/** Values cached per token and layer: K and V per KV head, or MLA's latent plus its rotary key. */
export function kvElementsPerToken(spec: ModelSpec): number {
  return spec.mla ? spec.mla.kvLoraRank + spec.mla.ropeDim : 2 * spec.numKvHeads * spec.headDim;
}

/** Expert routing of a decode step: an input, like the batch. */
export type Routing = { kind: 'uniform' } | { kind: 'zipf'; s: number } | { kind: 'histogram'; weights: number[]; origin: string };

export const UNIFORM_ROUTING: Routing = { kind: 'uniform' };

/** Zipf exponents accepted (0 = uniform; 4 puts nearly all tokens on the top-k experts). */
export const MAX_ZIPF_S = 8;

/**
 * Parse a `routing` option (the CLI's `--routing`): `uniform`, `zipf:<s>` (expert popularity ∝ 1/rank^s), or a JSON file of
 * per-expert token counts — an array, or `{ "counts": [...] }` — taken as the popularity
 * histogram (e.g. counted over a trace); its length must be the model's expert count.
 */
export function parseRouting(text: string): Routing {
  const t = String(text).trim();
  if (t === 'uniform') return UNIFORM_ROUTING;
  const z = /^zipf:(.*)$/.exec(t);
  if (z) {
    const s = Number(z[1]);
    if (z[1]!.trim() === '' || !Number.isFinite(s) || s < 0 || s > MAX_ZIPF_S) {
      throw lineError(`\`routing\`: zipf exponent '${z[1]}' must be a number in 0..${MAX_ZIPF_S} (e.g. zipf:1.2)`, 'routing');
    }
    return { kind: 'zipf', s };
  }
  if (!fs.existsSync(t)) throw lineError(`\`routing\`: '${t}' is not uniform, zipf:<s> or an existing JSON file of per-expert token counts`, 'routing');
  const body = readBoundedText(t, 16 * 2 ** 20, 'a routing histogram');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    throw lineError(`${t}: invalid JSON: ${oneLine(e)}`);
  }
  const arr = Array.isArray(json) ? json : typeof json === 'object' && json !== null ? (json as Record<string, unknown>).counts : undefined;
  if (!Array.isArray(arr) || arr.length === 0 || arr.length > MAX_EXPERTS) {
    throw lineError(`${t}: must be an array of per-expert token counts, or { "counts": [...] }, with 1..${MAX_EXPERTS} entries`);
  }
  arr.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw lineError(`${t}: counts[${i}] (${showValue(v)}) must be a non-negative number`);
  });
  if (!arr.some((v) => (v as number) > 0)) throw lineError(`${t}: counts are all zero; at least one expert must receive tokens`);
  return { kind: 'histogram', weights: arr as number[], origin: t };
}

/** A `routing` option as written back (reports, JSON). */
export function describeRouting(r: Routing): string {
  return r.kind === 'uniform' ? 'uniform' : r.kind === 'zipf' ? `zipf:${r.s}` : r.origin;
}

/** Tokens routed to one expert in one step. */
export interface ExpertLoad {
  expert: number;
  tokens: number;
}

/**
 * Expert popularity of layer `layer` (sums to 1). Zipf ranks are rotated by layer so that
 * different layers favour different experts (as trained routers do); a histogram holds for
 * every layer.
 */
export function expertPopularity(r: Routing, numExperts: number, layer: number): number[] {
  if (r.kind === 'histogram') {
    if (r.weights.length !== numExperts) {
      throw lineError(`${r.origin}: has ${r.weights.length} per-expert counts, the model has ${numExperts} experts`);
    }
    const sum = r.weights.reduce((a, b) => a + b, 0);
    return r.weights.map((w) => w / sum);
  }
  const s = r.kind === 'zipf' ? r.s : 0;
  const p = new Array<number>(numExperts);
  const shift = (layer * 37) % numExperts;
  for (let rank = 0; rank < numExperts; rank++) p[(rank + shift) % numExperts] = (rank + 1) ** -s;
  const sum = p.reduce((a, b) => a + b, 0);
  return p.map((x) => x / sum);
}

/**
 * Probability that one token picks each expert, given popularity `p` and top-k: k·p capped at
 * 1 (a token picks k distinct experts), the excess moved to the others in proportion.
 */
export function selectionProbabilities(p: readonly number[], k: number): number[] {
  const q = p.map(() => 0);
  let free = p.map((_, i) => i).filter((i) => p[i]! > 0);
  let budget = Math.min(k, free.length);
  for (;;) {
    const mass = free.reduce((a, i) => a + p[i]!, 0);
    const capped = free.filter((i) => (budget * p[i]!) / mass >= 1);
    if (capped.length === 0) {
      for (const i of free) q[i] = (budget * p[i]!) / mass;
      return q;
    }
    for (const i of capped) q[i] = 1;
    budget -= capped.length;
    free = free.filter((i) => !capped.includes(i));
    if (budget <= 0 || free.length === 0) return q;
  }
}

/** Expected number of distinct experts `batch` tokens reach: Σ 1 − (1 − q_e)^batch (uniform: E·(1 − (1 − k/E)^batch)). */
export function expectedActiveExperts(q: readonly number[], batch: number): number {
  return q.reduce((a, x) => a + 1 - (1 - x) ** batch, 0);
}

/**
 * The per-expert token counts of one step of `batch` tokens in layer `layer`: the expected
 * number of distinct experts (rounded) — the most popular ones — receive the batch × top-k
 * token slots in proportion to their selection probability, at least one and at most `batch`
 * each (largest remainders, ties to the lower expert id). Deterministic.
 */
export function expertLoads(routing: Routing, moe: Pick<MoeSpec, 'numExperts' | 'expertsPerToken'>, batch: number, layer: number): ExpertLoad[] {
  const E = moe.numExperts;
  const k = Math.min(moe.expertsPerToken, E);
  const q = selectionProbabilities(expertPopularity(routing, E, layer), k);
  const candidates = q.map((x, i) => ({ i, x })).filter((c) => c.x > 0);
  const slots = batch * k;
  // A token reaches k distinct experts; batch tokens at most batch·k of them.
  const lo = Math.min(k, candidates.length);
  const hi = Math.min(candidates.length, slots);
  const active = Math.max(lo, Math.min(hi, Math.round(expectedActiveExperts(q, batch))));
  // Equally popular experts (uniform routing) are taken in a fixed pseudo-random order per
  // layer, as a trained router's picks look: not always experts 0, 1, 2…
  const order = (i: number) => Math.imul(i + 1, 2654435761) ^ Math.imul(layer + 1, 40503);
  const chosen = candidates.sort((a, b) => b.x - a.x || (order(a.i) >>> 0) - (order(b.i) >>> 0) || a.i - b.i).slice(0, active);
  // Every expert's tokens are at most `batch`; fill the rest in proportion to q.
  const tokens = chosen.map(() => 1);
  let left = slots - active;
  while (left > 0) {
    const open = chosen.map((_, j) => j).filter((j) => tokens[j]! < batch);
    if (open.length === 0) break;
    const mass = open.reduce((a, j) => a + chosen[j]!.x, 0);
    const share = open.map((j) => ({ j, want: (left * chosen[j]!.x) / mass }));
    let given = 0;
    for (const s of share) {
      const add = Math.min(batch - tokens[s.j]!, Math.floor(s.want));
      tokens[s.j]! += add;
      given += add;
    }
    if (given === 0) {
      // Largest remainders take the last few slots, one each.
      share.sort((a, b) => b.want - Math.floor(b.want) - (a.want - Math.floor(a.want)) || a.j - b.j);
      for (const s of share) {
        if (given === left) break;
        if (tokens[s.j]! < batch) {
          tokens[s.j]! += 1;
          given += 1;
        }
      }
    }
    left -= given;
  }
  return chosen.map((c, j) => ({ expert: c.i, tokens: tokens[j]! })).sort((a, b) => a.expert - b.expert);
}
