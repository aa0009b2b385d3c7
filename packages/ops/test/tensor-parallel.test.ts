import { buildDecodeGraph, loadBackend, loadModel, MODEL_PRESETS, type Backend, type NodeSpec } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { describe, expect, it } from 'vitest';
import { compilePolicy, collectivesFor, BUILTIN_POLICIES, predictDecode, residentBytes } from '../src/index.js';
import { mi350Backend } from './helpers.js';

const backend = loadBackend(h100, 'test');
const qwen = MODEL_PRESETS['qwen3-8b']!;

/** The same backend on a node whose links run at `gbps` per direction. */
function withLink(b: Backend, gbps: number): Backend {
  const node = b.node as NodeSpec;
  return { ...b, node: { ...node, topology: { ...node.topology, interconnect: { ...node.topology.interconnect, linkBytesPerNsPerDirection: gbps } } } };
}

describe('tensor-parallel predictions', () => {
  it('per-device memory shrinks with TP: weights/N + KV/N', () => {
    const one = residentBytes(qwen, 8, 2048, undefined, 1);
    const two = residentBytes(qwen, 8, 2048, undefined, 2);
    expect(two).toBeLessThan(one / 1.9);
    expect(two).toBeGreaterThan(one / 2);
  });

  it('TP=2 beats TP=1 at large batch only when the link is fast enough', () => {
    const opts = { policy: 'kernel-per-op-graph', batch: 64, prompt: 512, decode: 1, positions: 1, layers: 2 };
    const tp1 = predictDecode(backend, qwen, opts).tpotMs;
    const fast = predictDecode(backend, qwen, { ...opts, tp: 2 }).tpotMs;
    const slow = predictDecode(withLink(backend, 0.05), qwen, { ...opts, tp: 2 }).tpotMs;
    expect(fast).toBeLessThan(tp1);
    expect(slow).toBeGreaterThan(tp1);
  });

  it('a backend without a node, a TP beyond the node or a dense model with --ep are unsupported with a reason', () => {
    const none = { ...backend, node: undefined };
    expect(predictDecode(none, qwen, { policy: 'kernel-per-op-graph', batch: 1, prompt: 8, decode: 1, tp: 2 }).reason).toMatch(/no multi-device node/);
    expect(predictDecode(backend, qwen, { policy: 'kernel-per-op-graph', batch: 1, prompt: 8, decode: 1, tp: 16 }).reason).toMatch(
      /16 devices; node hgx-h100-8 has 8/,
    );
    expect(predictDecode(backend, qwen, { policy: 'kernel-per-op-graph', batch: 1, prompt: 8, decode: 1, ep: 2 }).reason).toMatch(/mixture-of-experts/);
    expect(predictDecode(backend, qwen, { policy: 'clusterfusion', batch: 1, prompt: 8, decode: 1, tp: 2 }).reason).toMatch(/no tensor-parallel schedule/);
  });

  it('a mixture-of-experts model under --tp or --ep is unsupported with the reason, not taken for dense, not an exit', () => {
    const moe = loadModel('qwen3-30b-a3b');
    const opts = { policy: 'kernel-per-op-graph', batch: 1, prompt: 8, decode: 1 };
    expect(predictDecode(backend, moe, { ...opts, tp: 2 }).reason).toMatch(/modelled for dense models; qwen3-30b-a3b has expert layers/);
    expect(predictDecode(backend, moe, { ...opts, ep: 2 }).reason).toMatch(/not modelled yet: .*128 of qwen3-30b-a3b's experts/);
    expect(predictDecode(backend, loadModel('deepseek-v3'), { ...opts, tp: 8 }).reason).toMatch(/modelled for dense models/);
  });

  it("MPK's put-with-signal slices start while the producing GEMM is still running (overlap)", () => {
    const def = BUILTIN_POLICIES.find((p) => p.name === 'mirage')!;
    const g = buildDecodeGraph(qwen, { batch: 1, contextLen: 64, tp: 2 });
    const multi = collectivesFor(backend, g)!;
    const tg = compilePolicy(g, def, backend, { layers: [0], collective: multi.collective });
    const slices = tg.tasks.filter((t) => t.opId === 'L0.o_allreduce');
    const producers = tg.tasks.filter((t) => t.opId === 'L0.o_proj');
    expect(slices.length).toBe(producers.length);
    // Slice i waits on producer i alone, through its own event; the slices' event is owned by this GPU and signalled remotely.
    expect(new Set(slices.map((s) => s.waits[0])).size).toBe(slices.length);
    expect(tg.events[slices[0]!.signal!]!.remote).toBe(true);
    expect(slices.every((s) => (s.tiles[0]!.linkBytes ?? 0) > 0)).toBe(true);
  });

  it('FLEET chiplet-tasks shrink with TP', () => {
    const b = mi350Backend();
    const def = BUILTIN_POLICIES.find((p) => p.name === 'fleet-mtile')!;
    const cols = (tp: number) => {
      const g = buildDecodeGraph(qwen, { batch: 1, contextLen: 64, ...(tp > 1 ? { tp } : {}) });
      const multi = tp > 1 ? collectivesFor(b, g) : null;
      const tg = compilePolicy(g, def, b, { layers: [0], ...(multi ? { collective: multi.collective } : {}) });
      return tg.tasks.find((t) => t.opId === 'L0.gate_up_proj')!.tiles.length;
    };
    expect(cols(2)).toBeLessThan(cols(1));
  });
});
