import {
  addCounters,
  collectiveCost,
  DTYPE_BYTES,
  groupBytesPerNs,
  inputError,
  libraryCollectivesOnly,
  parseLayerName,
  addScheduleCounts,
  scheduleCounts,
  simulateGraph,
  repetitionProvable,
  zeroScheduleCounts,
  zeroCounters,
  type Backend,
  type BackendMetric,
  type MemoryCounters,
  type OpGraph,
  type Routing,
  type ScheduleCounts,
  type SimEvent,
  type TaskGraph,
} from '@fleet/core';
import { attentionWindow, isMoeLayer, type ModelSpec } from '@fleet/core';
import type { CompileOptions } from '../compile/lowering.js';
import type { PolicyOverrides } from '../compile/schedule.js';
import type { Policy } from '../policies/policy.js';
import type { PolicyRegistry, ResolvedPolicy } from '../policies/registry.js';
import type { WeightType } from '../quant/weight-type.js';

/** What every prediction (decode, prefill, a mixed step) is asked: the policy, the batch, and how to simulate. */
export interface StepOptions {
  /** A policy name (Fleet's own policies; pass `policies` for plugins') or a policy object. */
  policy: string | Policy;
  /** Where a policy name is looked up (default: Fleet's own policies). */
  policies?: PolicyRegistry;
  batch: number;
  /**
   * Decoder layers simulated; the others repeat the steady-state layer. Default 3. Decode: the
   * model's layer count asks for every layer (a few run; all only when no repeat is proven).
   */
  layers?: number;
  /** Cache block size the memory model tracks, bytes (see `SimulationOptions.granularityBytes`). */
  granularityBytes?: number;
  /** Type of the decoder layers' linear weights (default bf16). */
  weights?: WeightType;
  /** Refuse a step whose compiled tiles would take more simulated steps than this (time and memory budget). */
  maxSimSteps?: number;
  /** Schedule knobs overriding the policy's own (cache policies, SiLU fusion, traversal…). */
  overrides?: PolicyOverrides;
  /** MoE models: which experts each step's tokens go to (default uniform). */
  routing?: Routing;
  /** Subscribers to the simulation's event stream (every layer is then simulated). */
  observers?: ((events: readonly SimEvent[]) => void)[];
}

/** What a prediction's options set for each step it simulates (queries seeing up to `kvLen` positions): weights, cache granularity, observers, the model's layer kinds. */
export function stepSimulation(model: ModelSpec, opts: StepOptions, layers: number[], kvLen: number): StepSimulation {
  const kinds = layerKinds(model, kvLen);
  return {
    layers,
    weights: opts.weights,
    granularityBytes: opts.granularityBytes,
    observers: opts.observers,
    layerKind: (l) => kinds[l]!,
  };
}

/**
 * Each decoder layer's kind in a step whose queries see up to `kvLen` positions: its FFN (MoE
 * or dense) and whether a sliding window cuts its attention. Unsimulated layers repeat a
 * sampled layer of their own kind.
 */
export function layerKinds(model: ModelSpec, kvLen: number): string[] {
  return Array.from({ length: model.numLayers }, (_, l) => {
    const w = attentionWindow(model, l);
    return `${isMoeLayer(model, l) ? 'moe' : 'dense'}${w !== null && w < kvLen ? ` window ${w}` : ''}`;
  });
}

/**
 * Decoder layers to simulate, at least `asked`: past the first layer of every kind, and one
 * more, so that each kind has a sampled layer that is neither layer 0 (which carries the
 * step's start) nor the last (which the head may fuse into) wherever the model allows.
 */
export function layersToSample(kinds: readonly string[], asked: number): number {
  let need = asked;
  for (const k of new Set(kinds)) {
    const first = kinds.indexOf(k);
    if (first > 0) need = Math.max(need, first + 2);
  }
  return Math.max(1, Math.min(kinds.length, need));
}

/** How one forward step is simulated: which layers, in what detail. */
export interface StepSimulation {
  /** Decoder layers simulated (0..S-1); the others repeat the steady-state layer. */
  layers: number[];
  weights?: WeightType;
  granularityBytes?: number;
  observers?: ((events: readonly SimEvent[]) => void)[];
  /** Refuse a compiled step with more tile steps than this (checked after compiling). */
  maxSimSteps?: number;
  /** Called with the compiled step's tile steps when it is over `maxSimSteps`. */
  tooLarge?: (steps: number) => Error;
  /** Kind of a layer (`layerKinds`): unsimulated layers repeat a sampled layer of their own kind. */
  layerKind?: (layer: number) => string;
  /** Persistent policies: iterations the one launch runs; the step is the last (default 1). */
  iterations?: number;
  /**
   * The step is wanted only if its unsimulated layers are proven to repeat (a try at a
   * whole-model step): where no proof is possible with any number of layers
   * (`repetitionProvable`), `simulateStep` returns `'unprovable'` without simulating, and where
   * none came by the head's boundary, `'unproven'` without simulating the head
   * (`SimulationOptions.abandonUnproven`).
   */
  proofOnly?: boolean;
}

/**
 * The backend as a program that calls the collective library directly runs it (PyTorch's
 * `dist.all_reduce`, an engine without its custom all-reduce): its node's library alone.
 */
export function withLibraryCollectivesOnly(backend: Backend): Backend {
  return backend.node ? { ...backend, node: libraryCollectivesOnly(backend.node) } : backend;
}

/**
 * How a backend runs the collectives of a tensor-parallel step: its library's time for each
 * message (kernel-per-op), the put-with-signal latency (persistent), and the link bandwidth
 * one device has to the other ranks. Null for a single-device graph.
 */
export function collectivesFor(backend: Backend, g: OpGraph): { collective: NonNullable<CompileOptions['collective']>; linkBytesPerNs: number } | null {
  const tp = g.tp ?? 1;
  if (tp <= 1) return null;
  const node = backend.node;
  if (!node) throw inputError(`backend ${backend.name} describes no multi-device node; tensor parallelism needs one`);
  const el = DTYPE_BYTES[g.tensors[0]?.dtype ?? 'bf16'];
  return {
    collective: (op) => {
      // NCCL counts an all-gather by its whole output.
      const bytes = op.rows * op.cols * el * (op.kind === 'all-gather' ? op.devices : 1);
      const c = collectiveCost(node, op.kind, bytes, op.devices);
      return {
        libraryNs: c.latencyUs * 1000,
        // The CTAs the library launches for this size; the engine's custom kernel reports none.
        channels: c.channels > 0 ? c.channels : node.library.channels,
        signalNs: node.topology.interconnect.latencyNs,
        algorithm: `${c.algorithm}-${c.protocol}`,
      };
    },
    linkBytesPerNs: groupBytesPerNs(node.topology, tp) * node.library.linkEfficiency,
  };
}

/**
 * How the unsimulated layers were filled in: `none` — every layer was simulated; `proven` — they
 * repeat a layer that began and ended in the same layer-relative state (or in states that differ
 * only by a relabelling of interchangeable workers, under which the layer ran equivariantly) and
 * has the same ops (exact, up to rounding); `assumed` — they repeat the last sampled layers,
 * unproven.
 */
export type LayerExtrapolation = 'none' | 'proven' | 'assumed';

/** The most decoder layers a try at a proof simulates (`proofTries`). */
export const PROOF_LAYERS = 6;

/**
 * Decoder layers a whole-model prediction compiles and simulates first on `backend`, looking
 * for a provably steady layer, each try larger than the last. A layer is proven at the boundary
 * after it; the last compiled layer is followed by the head, whose kernels may take in its
 * epilogue, so a try of k layers proves one up to layer k − 2 in general. A layer's weights
 * outgrow the caches, so most machines repeat from layer 1; a memory-side cache holding a
 * layer's worth keeps some sets' older lines longer (the same sets fill alike in every layer),
 * and there kernel-per-op repeats from layer 3 and FLEET from layer 2. A layer compiled past
 * the proof is only checked and skipped, which costs about as much as compiling it; a try that
 * fails costs its layers.
 */
export function proofTries(backend: Backend): readonly number[] {
  return backend.topology.memory.llc ? [5, PROOF_LAYERS] : [3, PROOF_LAYERS];
}

/** The less certain of two extrapolations (several positions or chunks). */
export function worseExtrapolation(a: LayerExtrapolation, b: LayerExtrapolation): LayerExtrapolation {
  const rank = { none: 0, proven: 1, assumed: 2 } as const;
  return rank[a] >= rank[b] ? a : b;
}

/** One simulated forward step, extrapolated to every layer. */
export interface StepResult {
  timeNs: number;
  extrapolation: LayerExtrapolation;
  counters: MemoryCounters;
  /** Release fences of the whole step, every layer, counted from the schedule. */
  fences: number;
  /** Tasks dispatched to workers in the whole step (persistent: its tasks and the begin-task-graph task). */
  dispatches: number;
  /** Kernel launches of the whole step (a persistent kernel launched once for the run: 0). */
  launches: number;
  /** Launches per run, however many steps it has (a persistent kernel: 1). */
  launchesPerRun: number;
  tasksPerLayer: number;
  backendMetrics: BackendMetric[];
}

/**
 * What a backend gives every policy's compiler: its kernel granularity (kernel-per-op), its
 * cluster tuning and collectives (cluster policies), its vendor-library model.
 */
export function backendCompileOptions(backend: Backend): Omit<CompileOptions, 'layers'> {
  const t = backend.tuning;
  const grid = t.persistent?.linearGrid;
  const parts = backend.topology.partitions.computeUnits;
  // MPK's workers: the megakernel's CUs less its schedulers (one per partition where the tuning says so).
  const workers = (t.persistent?.workersPerPartition ?? Math.min(...parts) - 1) * parts.length;
  return {
    cluster: {
      size: t.cluster?.size,
      maxActiveClusters: t.cluster?.maxActiveClusters,
      ctasPerUnit: t.cluster?.ctasPerUnit,
      pipeline: t.cluster?.pipeline,
      collectives: backend.collectives,
    },
    kernels: t.kernels,
    library: backend.kernelLibrary,
    ...(grid ? { persistentLinears: { grid, workers } } : {}),
  };
}

/** Tile steps a compiled task graph will simulate. */
export function compiledSteps(tasks: readonly { tiles: readonly { steps?: number }[] }[]): number {
  let n = 0;
  for (const t of tasks) for (const tile of t.tiles) n += tile.steps ?? 1;
  return n;
}

/**
 * Compile and simulate one step's op graph with a sample of its layers, then extrapolate:
 * the unsimulated layers repeat the steady-state layer (time and counters).
 */
export function simulateStep(
  backend: Backend,
  resolved: ResolvedPolicy,
  g: OpGraph,
  sim: StepSimulation & { proofOnly: boolean },
): StepResult | 'unprovable' | 'unproven';
export function simulateStep(backend: Backend, resolved: ResolvedPolicy, g: OpGraph, sim: StepSimulation): StepResult;
export function simulateStep(backend: Backend, { policy, schedule }: ResolvedPolicy, g: OpGraph, sim: StepSimulation): StepResult | 'unprovable' | 'unproven' {
  const S = sim.layers.length;
  const L = g.layers;
  const multi = collectivesFor(backend, g);
  const tg = policy.compile(g, backend, schedule, {
    ...backendCompileOptions(backend),
    layers: sim.layers,
    weights: sim.weights,
    ...(multi ? { collective: multi.collective } : {}),
  });
  if (sim.maxSimSteps !== undefined && sim.tooLarge) {
    const steps = compiledSteps(tg.tasks);
    if (steps > sim.maxSimSteps) throw sim.tooLarge(steps);
  }
  const own = policy.runtime(backend, schedule);
  const runtime = own.persistent && sim.iterations ? { ...own, persistent: { ...own.persistent, iterations: sim.iterations } } : own;
  const options = {
    granularityBytes: sim.granularityBytes,
    ...runtime,
    observers: sim.observers,
    checkSteadyState: S < L,
    ...(sim.proofOnly ? { abandonUnproven: true } : {}),
    ...(multi ? { linkBytesPerNs: multi.linkBytesPerNs } : {}),
  };
  if (sim.proofOnly && !(S < L && repetitionProvable(backend, tg, options))) return 'unprovable';
  const r = simulateGraph(backend, tg, options);
  if (r.abandoned) return 'unproven';
  // Bucket b = layer + 1: 0 embedding, 1..S sampled layers, S+1 the head (layer L).
  const end = (b: number) => r.layerEndNs[b] ?? 0;
  const layerNs = (l: number) => end(l + 1) - end(l);
  // Unsampled layers repeat the steady sampled layer of their kind (`layerKinds`): the
  // sampled layers of that kind after layer 0 (which carries the step's start), else all of them.
  const kind = sim.layerKind ?? (() => '');
  const steadyOf = (k: string) => {
    const same = sim.layers.filter((l) => kind(l) === k);
    const pool = same.length > 1 ? same.filter((l) => l > 0) : same.length > 0 ? same : sim.layers.slice(S > 1 ? 1 : 0);
    return pool.length > 0 ? pool : [sim.layers[S - 1]!];
  };
  const rest = Array.from({ length: L - S }, (_, i) => S + i);
  // Proven: the steady layer and every unsimulated one have the same ops (a dense stack).
  const steady = r.steadyFrom;
  const proven = steady !== null && sim.layers.includes(steady) && rest.every((l) => sameLayerOps(g, steady, l));
  const counters = zeroCounters();
  for (const bucket of r.counters) addCounters(counters, bucket);
  let restNs = 0;
  if (proven) {
    // The layers not simulated sit between the steady one and the model's last, which the last
    // sampled layer stands for (it too is followed by the head, whose kernels may fuse into its
    // own): each repeats the steady layer exactly.
    restNs = rest.length * layerNs(steady);
    addCounters(counters, r.counters[steady + 1] ?? zeroCounters(), rest.length);
  } else {
    for (const k of [...new Set(rest.map(kind))].sort()) {
      const n = rest.filter((l) => kind(l) === k).length;
      const pool = steadyOf(k);
      restNs += (n * pool.reduce((a, l) => a + layerNs(l), 0)) / pool.length;
      for (const l of pool) addCounters(counters, r.counters[l + 1] ?? zeroCounters(), n / pool.length);
    }
  }
  const counts = stepCounts(tg, g, sim.layers, runtime.persistent, (layers) =>
    policy.compile(g, backend, schedule, {
      ...backendCompileOptions(backend),
      layers,
      weights: sim.weights,
      ...(multi ? { collective: multi.collective } : {}),
    }),
  );
  // One replay of the step's graph: its own launch and completion beside the kernels.
  const replayNs = runtime.launchMode === 'graph' ? (backend.costModel.launch.graphLaunchNs ?? 0) : 0;
  return {
    timeNs: r.timeNs + restNs + replayNs,
    extrapolation: rest.length === 0 ? 'none' : proven ? 'proven' : 'assumed',
    counters,
    fences: counts.fences,
    dispatches: counts.dispatches,
    launches: counts.launches,
    launchesPerRun: runtime.persistent ? 1 : 0,
    tasksPerLayer: tg.tasks.filter((t) => t.layer === 0).length,
    backendMetrics: r.backendMetrics,
  };
}

/**
 * Launches, dispatches and fences of the whole step, counted from its schedule — never scaled
 * from the sampled layers, so the same at any sampling. The compiled graph `tg` gives the
 * embedding, the head and the sampled layers; an unsampled layer counts as a sampled layer
 * with the same ops that follows another compiled layer (the first compiled layer's schedule
 * differs at its boundary: e.g. its input norm is a kernel of its own rather than the previous
 * residual's epilogue), else as a representative of its ops compiled after the layer before it
 * (`compileLayers`). A persistent step also dispatches its begin-task-graph task.
 */
export function stepCounts(
  tg: TaskGraph,
  g: OpGraph,
  sampled: readonly number[],
  persistent: Parameters<typeof scheduleCounts>[1],
  compileLayers: (layers: number[]) => TaskGraph,
): ScheduleCounts {
  const byBucket = scheduleCounts(tg, persistent);
  const of = (b: number) => byBucket[b] ?? zeroScheduleCounts();
  const total = zeroScheduleCounts();
  for (const b of [0, ...sampled.map((l) => l + 1), g.layers + 1]) addScheduleCounts(total, of(b));
  const interior = sampled.filter((l) => sampled.includes(l - 1));
  const missing: number[] = [];
  for (let l = 0; l < g.layers; l++) {
    if (sampled.includes(l)) continue;
    const same = interior.find((s) => sameLayerOps(g, s, l));
    if (same !== undefined) addScheduleCounts(total, of(same + 1));
    else missing.push(l);
  }
  if (missing.length > 0) {
    // One representative per distinct layer, compiled after the layer before it (so it is interior).
    const reps: number[] = [];
    const repOf = new Map<number, number>();
    for (const l of missing) {
      const r = reps.find((x) => sameLayerOps(g, x, l));
      if (r === undefined) reps.push(l);
      repOf.set(l, r ?? l);
    }
    const layers = [...new Set(reps.flatMap((r) => (r > 0 ? [r - 1, r] : [r])))].sort((a, b) => a - b);
    const own = scheduleCounts(compileLayers(layers), persistent);
    for (const l of missing) addScheduleCounts(total, own[repOf.get(l)! + 1] ?? zeroScheduleCounts());
  }
  if (persistent) total.dispatches++;
  return total;
}

/** Whether decoder layers `a` and `b` run the same ops on the same shapes (per-layer names aside). */
export function sameLayerOps(g: OpGraph, a: number, b: number): boolean {
  return layerSignature(g, a) === layerSignature(g, b);
}

const signatures = new WeakMap<OpGraph, Map<number, string>>();

function layerSignature(g: OpGraph, layer: number): string {
  let cache = signatures.get(g);
  if (!cache) signatures.set(g, (cache = new Map()));
  let sig = cache.get(layer);
  if (sig === undefined) {
    const name = (x: unknown) => {
      const n = typeof x === 'string' ? parseLayerName(x) : null;
      return n && n.layer === layer ? `L.${n.role}` : x;
    };
    const strip = (v: unknown) => (Array.isArray(v) ? v.map(name) : name(v));
    sig = JSON.stringify(
      g.ops
        .filter((o) => o.layer === layer)
        .map((o) =>
          Object.entries(o)
            .filter(([k]) => k !== 'layer')
            .map(([k, v]) => [k, strip(v)]),
        ),
    );
    cache.set(layer, sig);
  }
  return sig;
}
