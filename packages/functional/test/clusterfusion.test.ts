import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, checkTaskGraph, type TaskGraph } from '@fleet/core';
import { BUILTIN_POLICIES, compilePolicy } from '@fleet/ops';
import { dropDependency, stagesOf, TINY_MODEL, verifyDecode, type VerifyOptions } from '../src/index.js';
import { hopperLike } from './helpers.js';

const backend = hopperLike();
const clusterfusion = BUILTIN_POLICIES.find((p) => p.name === 'clusterfusion')!;

function verify(opts: Partial<VerifyOptions> = {}, spec = TINY_MODEL) {
  return verifyDecode(backend, spec, { policy: 'clusterfusion', steps: 1, ...opts });
}

/** A copy of the graph with `edit` applied to the named task. */
function editTask(name: string, edit: (t: TaskGraph['tasks'][number], tg: TaskGraph) => void): (tg: TaskGraph) => TaskGraph {
  return (tg) => {
    const t = tg.tasks.find((x) => x.name === name);
    if (!t) throw new Error(`no task ${name}`);
    edit(t, tg);
    return tg;
  };
}

const reads = (tg: TaskGraph, tile: TaskGraph['tasks'][number]['tiles'][number], buffer: string) =>
  tile.reads.some((r) => tg.buffers[r.buffer]!.name === buffer);

describe('functional execution of the ClusterFusion block', () => {
  it('reproduces the straight-line logits and KV caches over several steps', () => {
    const r = verify({ steps: 2 });
    expect(r.status, r.reason).toBe('pass');
    expect(r.steps).toHaveLength(2);
    for (const s of r.steps) {
      expect(s.maxRelError).toBeLessThanOrEqual(r.tolerance);
      expect(s.cacheRelError).toBeLessThanOrEqual(r.tolerance);
      expect(s.tokenMismatches).toBe(0);
    }
  });

  it('every cluster size and both dataflows, with clusters taking several units in turn', () => {
    for (const size of [1, 2, 4, 8, 16]) {
      for (const dataflow of ['split-token', 'split-head'] as const) {
        const own = verify({ cluster: { size, dataflow } });
        expect(own.status, `N=${size} ${dataflow}: ${own.reason}`).toBe('pass');
        // one cluster at a time serves all (request, KV head) units
        const shared = verify({ cluster: { size, dataflow, maxActiveClusters: 1 }, batch: 3, contextLen: 40 });
        expect(shared.status, `N=${size} ${dataflow}, one cluster: ${shared.reason}`).toBe('pass');
      }
    }
  });

  it('MQA without q/k-norm, Gemma-style norms, an empty prompt and a multi-chunk sequence', () => {
    const gemmaish = { ...TINY_MODEL, qkNorm: false, numKvHeads: 1, normsPerLayer: 4 as const, activation: 'gelu-tanh' as const, tieWordEmbeddings: true };
    // The fused kernel's op list names the block's ops the model has (the compiler may list q/k-norm regardless).
    const graph = buildDecodeGraph(gemmaish, { batch: 3, contextLen: 1 });
    const ops = new Set(graph.ops.map((o) => o.id));
    const ownOps = (tg: TaskGraph) => {
      for (const k of tg.kernels) k.opIds = k.opIds.filter((id) => ops.has(id));
      return tg;
    };
    const r = verify({ batch: 3, contextLen: 0, transform: ownOps }, gemmaish);
    expect(r.status, r.reason).toBe('pass');
    // one CTA per cluster reads all 601 positions: three flash-decoding chunks combined
    expect(verify({ batch: 1, contextLen: 600, cluster: { size: 1 } }).status).toBe('pass');
  });

  it('a cluster kernel task computes QKV projection through output projection', () => {
    const graph = buildDecodeGraph(TINY_MODEL, { batch: 2, contextLen: 8 });
    const tg = compilePolicy(graph, clusterfusion, backend, { layers: [0, 1] });
    const st = stagesOf(graph, tg);
    const cta = tg.tasks.findIndex((t) => t.name === 'L1.cluster0.cta1');
    expect(st[cta]!.kind).toBe('cluster');
    expect(st[cta]!.ops.map((o) => o.id)).toEqual(['qkv_proj', 'qk_norm', 'rope', 'kv_append', 'attention', 'o_proj'].map((o) => `L1.${o}`));
    // Launched together with the residual + norm kernel before it, the block keeps its stage.
    const merged = dropDependency(tg, 'L1.qkv_proj');
    const ms = stagesOf(graph, merged);
    expect(ms[cta]!.ops.map((o) => o.id)).toEqual(st[cta]!.ops.map((o) => o.id));
    const norm = merged.tasks.findIndex((t) => t.opId === 'L0.ffn_residual');
    expect(ms[norm]!.ops.map((o) => o.id)).toEqual(['L0.ffn_residual', 'L1.attn_norm']);
  });
});

describe('a scheduling or tiling bug in the ClusterFusion graph makes verification fail', () => {
  function failing(transform: (tg: TaskGraph) => TaskGraph, steps = 1, extra: Partial<VerifyOptions> = {}) {
    const r = verify({
      steps,
      ...extra,
      transform: (tg) => {
        const g = transform(tg);
        checkTaskGraph(g, backend.topology.partitions.computeUnits.length);
        return g;
      },
    });
    expect(r.status).toBe('fail');
    return r;
  }

  it('the fused kernel launched together with the norm before it reads a stale activation', () => {
    expect(verify().maxRelError).toBe(0);
    // layer 0 reads the zeros `x` started with; layer 1 the previous layer's FFN-norm output
    expect(failing((tg) => dropDependency(tg, 'L0.qkv_proj')).maxRelError).toBeGreaterThan(0.05);
    expect(failing((tg) => dropDependency(tg, 'L1.attention')).maxRelError).toBeGreaterThan(0.03);
  });

  it('the residual launched together with the fused kernel adds a partly accumulated output', () => {
    expect(failing((tg) => dropDependency(tg, 'L1.attn_residual')).maxRelError).toBeGreaterThan(0.05);
  });

  it('a CTA that loses its output-projection tile, a KV chunk or its QKV slice', () => {
    failing(editTask('L1.cluster0.cta2', (t, tg) => (t.tiles = t.tiles.filter((x) => !x.writes.some((w) => tg.buffers[w.buffer]!.name === 'o')))));
    failing(
      editTask('L1.cluster1.cta1', (t, tg) =>
        t.tiles.splice(
          t.tiles.findIndex((x) => reads(tg, x, 'L1.k_cache')),
          1,
        ),
      ),
    );
    failing(
      editTask('L0.cluster1.cta3', (t, tg) =>
        t.tiles.splice(
          t.tiles.findIndex((x) => reads(tg, x, 'L0.w_qkv')),
          1,
        ),
      ),
    );
  });

  it('a cluster serves every request of the batch: a CTA whose input read or output write names only the first request', () => {
    // one cluster per KV head (2), so each serves both requests
    const wholeBatch = { batch: 2, cluster: { maxActiveClusters: 2 } };
    expect(verify(wholeBatch).status).toBe('pass');
    const firstRowOnly = (buffer: string) =>
      editTask('L1.cluster0.cta1', (t, tg) => {
        for (const x of t.tiles) for (const r of [...x.reads, ...x.writes]) if (tg.buffers[r.buffer]!.name === buffer) delete r.rows;
      });
    expect(failing(firstRowOnly('x'), 1, wholeBatch).maxRelError).toBeGreaterThan(0.01);
    expect(failing(firstRowOnly('o'), 1, wholeBatch).maxRelError).toBeGreaterThan(0.01);
  });

  it('a lost KV append shows in the cache at once', () => {
    const r = failing(
      editTask('L0.cluster0.cta0', (t, tg) => {
        for (const x of t.tiles) x.writes = x.writes.filter((w) => tg.buffers[w.buffer]!.name !== 'L0.v_cache');
      }),
    );
    expect(r.steps[0]!.cacheRelError).toBeGreaterThan(0.1);
    expect(r.reason).toMatch(/KV cache differs/);
  });

  it('an output-projection tile whose W_o rows do not match the output it writes', () => {
    const r = failing(
      editTask('L0.cluster0.cta1', (t, tg) => {
        const tile = t.tiles.find((x) => reads(tg, x, 'L0.w_o'))!;
        tile.writes = tile.writes.map((w) => ({ ...w, offset: w.offset + 2 }));
      }),
    );
    expect(r.reason).toMatch(/reads L0\.w_o rows/);
  });
});
