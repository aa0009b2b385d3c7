import { describe, expect, it } from 'vitest';
import {
  buildDecodeGraph,
  loadBackend,
  loadModel,
  repetitionProvable,
  simulateGraph,
  type Backend,
  type ModelSpec,
  type OpGraph,
  type SimulationOptions,
  type TaskGraph,
} from '@fleet/core';
import h100Descriptor from '@fleet/backend-h100';
import mi300xDescriptor from '@fleet/backend-mi300x';
import { backendCompileOptions, DECODE_ITERATIONS, predictDecode, PROOF_LAYERS, proofTries, resolvePolicy, sameLayerOps } from '../src/index.js';
import { mi350Backend } from './helpers.js';

const backend = mi350Backend();
const model = loadModel('qwen3-8b');

/** A whole-model step memoised (proof, skipped layers, extrapolation) equals simulating every layer (an observer sees every event). */
function expectMemoisedEqualsEveryLayer(b: Backend, m: ModelSpec, policy: string, batch: number): void {
  const opts = { policy, batch, prompt: 1023, decode: 1, positions: 1, layers: m.numLayers };
  const memo = predictDecode(b, m, opts);
  const full = predictDecode(b, m, { ...opts, observers: [() => {}] });
  expect(memo.sampling.layersExtrapolated).toBe('proven');
  expect(memo.sampling.layersSimulated).toBeLessThan(m.numLayers);
  expect(full.sampling).toMatchObject({ layersSimulated: m.numLayers, layersExtrapolated: 'none' });
  expect(Math.abs(memo.tpotMs / full.tpotMs - 1)).toBeLessThan(1e-9);
  for (const k of ['hbmReadBytes', 'hbmWriteBytes', 'fabricReadBytes', 'l2HitRate'] as const) {
    expect(Math.abs(memo[k] - full[k])).toBeLessThanOrEqual(1e-9 * Math.abs(full[k]));
  }
}

/** The proof's sample of layers of `g` compiled under `policy`, with the policy's runtime options. */
function compiledSample(b: Backend, policy: string, g: OpGraph) {
  const resolved = resolvePolicy(b, policy);
  if ('reason' in resolved) throw new Error(resolved.reason);
  const layers = Array.from({ length: PROOF_LAYERS }, (_, i) => i);
  const tg = resolved.policy.compile(g, b, resolved.schedule, { ...backendCompileOptions(b), layers });
  return { tg, runtime: resolved.policy.runtime(b, resolved.schedule) };
}

/** Skipping the layers that repeat a proven one leaves the run as simulating them does, to the last bit. */
function expectSkipEqualsFull(
  b: Backend,
  tg: TaskGraph,
  opts: SimulationOptions,
  keys: readonly ('dispatches' | 'fences' | 'descriptorFetches' | 'descriptorsFetched' | 'launches' | 'steadyFrom')[],
): void {
  const skipped = simulateGraph(b, tg, opts);
  const full = simulateGraph(b, tg, { ...opts, observers: [() => {}] });
  expect(skipped.steadyFrom).not.toBeNull();
  expect(skipped.engineEvents).toBeLessThan(full.engineEvents);
  expect(skipped.timeNs).toBe(full.timeNs);
  expect(skipped.layerEndNs).toEqual(full.layerEndNs);
  expect(skipped.counters).toEqual(full.counters);
  for (const k of keys) expect(skipped[k]).toBe(full[k]);
}

describe('whole-model decode with a proven steady layer', () => {
  it('kernel-per-op: stops once a layer provably repeats, and matches simulating all 36 layers', () => {
    const opts = { policy: 'kernel-per-op-graph', batch: 8, prompt: 1023, decode: 1, positions: 1, layers: model.numLayers };
    const memo = predictDecode(backend, model, opts);
    // An observer sees every event, so every layer is simulated.
    const full = predictDecode(backend, model, { ...opts, observers: [() => {}] });
    expect(memo.sampling.layersExtrapolated).toBe('proven');
    expect(memo.sampling.layersSimulated).toBeLessThan(model.numLayers);
    expect(full.sampling).toMatchObject({ layersSimulated: model.numLayers, layersExtrapolated: 'none' });
    expect(memo.tpotMs).toBeCloseTo(full.tpotMs, 9);
    expect(memo.hbmReadBytes / full.hbmReadBytes).toBeCloseTo(1, 12);
    expect(memo.l2HitRate).toBeCloseTo(full.l2HitRate, 12);
  });

  // Persistent megakernels' round-robin cursors advance by a number of tasks per layer that is
  // not a multiple of their workers, so consecutive layers start on different workers: their
  // repetition is proven up to that relabelling of interchangeable workers.
  const h100 = loadBackend(h100Descriptor, 'test');
  const short = { ...model, numLayers: 12 };
  // A narrower Qwen3 (2048 wide, 8 layers, a 32K vocabulary): whole steps at batch 64 stay
  // quick, and a layer's weights (~100 MB) still outgrow the caches as the real model's do.
  const small = { ...model, name: 'qwen3-small', numLayers: 8, hiddenSize: 2048, numHeads: 16, numKvHeads: 8, intermediateSize: 6144, vocabSize: 32768 };
  const cases: [string, Backend, number][] = [
    ['kernel-per-op', backend, 8],
    ['kernel-per-op-graph', backend, 8],
    ['mirage', h100, 8],
    ['fleet-mtile', backend, 8],
    ['fleet-msplit', backend, 8],
    ['fleet-ksplit', backend, 8],
    ['fleet-wave-ksplit', backend, 8],
    ['clusterfusion', h100, 8],
  ];
  for (const [policy, b, batch] of cases) {
    it(`${policy} on ${b.name}: the memoised whole model equals simulating every layer`, () => expectMemoisedEqualsEveryLayer(b, short, policy, batch));
  }

  // The head runs after 3 sampled layers here but after 36 when every layer is simulated: the
  // caches it inherits are equal only up to the layer translation, so any state the proof does
  // not compare (such as which way of a set a block sits in, once LRU stamps can tie) shows up
  // in the head's hits and time.
  it('fleet-mtile on mi300x: a 3-layer sample equals simulating all 36 layers, the head included', () => {
    const mi300x = loadBackend(mi300xDescriptor, 'test');
    const opts = { policy: 'fleet-mtile', batch: 32, prompt: 832, decode: 1, positions: 1 };
    const memo = predictDecode(mi300x, model, { ...opts, layers: 3 });
    const full = predictDecode(mi300x, model, { ...opts, layers: model.numLayers, observers: [() => {}] });
    expect(memo.sampling).toMatchObject({ layersSimulated: 3, layersExtrapolated: 'proven' });
    expect(full.sampling).toMatchObject({ layersSimulated: model.numLayers, layersExtrapolated: 'none' });
    expect(Math.abs(memo.tpotMs / full.tpotMs - 1)).toBeLessThan(1e-9);
    for (const k of ['hbmReadBytes', 'fabricReadBytes', 'l2HitRate'] as const) {
      expect(Math.abs(memo[k] - full[k])).toBeLessThanOrEqual(1e-9 * Math.abs(full[k]));
    }
  });

  // MPK on CDNA: 31 workers per scheduler spread round-robin over 8 XCDs, so no rotation of a
  // cursor keeps workers in their XCD, and a layer's CU-tasks (811) are no multiple of 31: no
  // two boundaries can be proven alike, and the whole model is simulated without a first try.
  it('mirage on mi350: no repetition can be proven, and every layer is simulated', () => {
    const { tg, runtime } = compiledSample(backend, 'mirage', buildDecodeGraph(short, { batch: 1, contextLen: 1023 }));
    expect(repetitionProvable(backend, tg, { ...runtime, checkSteadyState: true })).toBe(false);
    const opts = { policy: 'mirage', batch: 1, prompt: 1023, decode: 1, positions: 1, layers: short.numLayers };
    const whole = predictDecode(backend, short, opts);
    const observed = predictDecode(backend, short, { ...opts, observers: [() => {}] });
    expect(whole.sampling).toMatchObject({ layersSimulated: short.numLayers, layersExtrapolated: 'none' });
    expect(whole.tpotMs).toBe(observed.tpotMs);
    expect(whole.hbmReadBytes).toBe(observed.hbmReadBytes);
  });

  // Once a layer is proven to repeat, a kernel-per-op run moves the machine past the sampled
  // layers that repeat it instead of simulating them: the result is the one simulating them
  // gives (an observer sees every event, so nothing is skipped there), to the last bit.
  for (const [policy, b] of [
    ['kernel-per-op-graph', h100],
    ['kernel-per-op', backend],
    ['clusterfusion', h100],
  ] as const) {
    it(`${policy} on ${b.name}: skipping the layers that repeat a proven one changes nothing`, () => {
      const { tg, runtime } = compiledSample(b, policy, buildDecodeGraph(model, { batch: 8, contextLen: 1023 }));
      expectSkipEqualsFull(b, tg, { ...runtime, checkSteadyState: true }, ['launches', 'steadyFrom']);
    });
  }

  // A persistent megakernel runs two decode iterations in its one launch. Once a layer is
  // proven to repeat, each iteration moves the machine past the sampled layers that repeat it
  // (cursors on by the tasks each scheduler dealt, events fired): the result is the one
  // simulating them gives (an observer sees every event, so nothing is skipped there), to the
  // last bit.
  const mi300x = loadBackend(mi300xDescriptor, 'test');
  const persistentCases: [string, Backend, number][] = [
    ['mirage', h100, 64],
    ['fleet-mtile', mi300x, 8],
    ['fleet-msplit', mi300x, 16],
    ['fleet-ksplit', backend, 1],
    ['fleet-wave-ksplit', mi300x, 8],
  ];
  for (const [policy, b, batch] of persistentCases) {
    it(`${policy} on ${b.name} at batch ${batch}: skipping the layers that repeat a proven one changes nothing`, () => {
      const { tg, runtime } = compiledSample(b, policy, buildDecodeGraph(batch > 8 ? small : model, { batch, contextLen: 1023 }));
      const opts = { ...runtime, persistent: { ...runtime.persistent!, iterations: DECODE_ITERATIONS }, checkSteadyState: true };
      expectSkipEqualsFull(b, tg, opts, ['dispatches', 'fences', 'descriptorFetches', 'descriptorsFetched', 'launches', 'steadyFrom']);
    });
  }

  // The last iteration reaches its proven boundary in the state the first had there, so the
  // rest of it (the layers after and the head) is the first iteration's rest again: it is
  // replayed, not simulated (the skip tests above show the result is the simulated one).
  for (const [policy, b, batch] of [persistentCases[0]!, persistentCases[1]!, persistentCases[3]!]) {
    it(`${policy} on ${b.name}: the last iteration's rest is replayed from the first`, () => {
      const { tg, runtime } = compiledSample(b, policy, buildDecodeGraph(batch > 8 ? small : model, { batch, contextLen: 1023 }));
      const events = (iterations: number) =>
        simulateGraph(b, tg, { ...runtime, persistent: { ...runtime.persistent!, iterations }, checkSteadyState: true }).engineEvents;
      const one = events(1);
      // Simulated, a second iteration costs what the first does; replayed, it stops at its proof.
      expect(events(2) - one).toBeLessThan(0.75 * one);
    });
  }

  // Whole small models at a larger batch: the memoised step (proof, skipped layers,
  // extrapolation) equals simulating every layer of every iteration.
  for (const [policy, b] of [
    ['mirage', h100],
    ['fleet-ksplit', mi300x],
    ['fleet-wave-ksplit', backend],
  ] as const) {
    it(`${policy} on ${b.name}: a whole small model at batch 64 memoised equals simulating every layer`, () =>
      expectMemoisedEqualsEveryLayer(b, small, policy, 64));
  }

  // A try at a proof with too few layers: kernel-per-op on MI350 repeats from layer 3 (its
  // memory-side cache takes another layer to turn over), so 3 layers prove nothing, and the
  // try stops at the head's boundary instead of simulating the head.
  it('a try that proves nothing by the head stops there', () => {
    const g = buildDecodeGraph(model, { batch: 1, contextLen: 1023 });
    const resolved = resolvePolicy(backend, 'kernel-per-op');
    if ('reason' in resolved) throw new Error(resolved.reason);
    const tg = resolved.policy.compile(g, backend, resolved.schedule, { ...backendCompileOptions(backend), layers: [0, 1, 2] });
    const opts = { ...resolved.policy.runtime(backend, resolved.schedule), checkSteadyState: true };
    const whole = simulateGraph(backend, tg, opts);
    const tried = simulateGraph(backend, tg, { ...opts, abandonUnproven: true });
    expect(whole).toMatchObject({ steadyFrom: null, abandoned: false });
    expect(tried).toMatchObject({ steadyFrom: null, abandoned: true });
    expect(tried.engineEvents).toBeLessThan(whole.engineEvents);
    // The whole model comes out proven from the first try made on this machine.
    expect(
      predictDecode(backend, model, { policy: 'kernel-per-op', batch: 1, prompt: 1023, decode: 1, positions: 1, layers: model.numLayers }).sampling,
    ).toMatchObject({
      layersSimulated: proofTries(backend)[0],
      layersExtrapolated: 'proven',
    });
  });

  // ClusterFusion's last layer runs a little longer than the steady one (the head's kernels
  // follow it): a proven step extrapolates the steady layer alone, never an average with the
  // last sampled layer, which stands for the model's last.
  it('clusterfusion on h100 at batch 256: the unsimulated layers repeat the steady one, not the last', () => {
    const opts = { policy: 'clusterfusion', batch: 256, prompt: 1023, decode: 1, positions: 1, layers: small.numLayers };
    const memo = predictDecode(h100, small, opts);
    const full = predictDecode(h100, small, { ...opts, observers: [() => {}] });
    expect(memo.sampling.layersExtrapolated).toBe('proven');
    expect(memo.tpotMs).toBe(full.tpotMs);
    expect(memo.hbmReadBytes).toBe(full.hbmReadBytes);
  });

  it('layers with different ops are not taken for repeats', () => {
    const g = buildDecodeGraph(model, { batch: 4, contextLen: 100 });
    expect(sameLayerOps(g, 1, 2)).toBe(true);
    expect(sameLayerOps(g, 1, 35)).toBe(true);
    const op = g.ops.find((o) => o.layer === 5 && o.kind === 'linear')!;
    (op as { n: number }).n += 128;
    expect(sameLayerOps({ ...g }, 1, 5)).toBe(false);
  });
});
