/**
 * @fleet/core — Fleet's execution model.
 *
 * - `levels/`     task levels (wavefront, CU, chiplet, device)
 * - `topology/`   hardware description as data, its JSON Schema and validation
 * - `graph/`      op graphs (from the model loader) and task graphs (from a policy)
 * - `engine/`     the deterministic discrete-event engine (binary-heap clock)
 * - `memory/`     caches, shared bandwidth resources, the memory system
 * - `runtime/`    persistent megakernel and kernel-per-op runtimes
 * - `protocol/`   the event protocol and the RxJS event bus; metrics as subscribers
 * - `plugin/`     the backend plugin API: tokens, descriptors, loading, discovery
 * - `model/`      presets, Hugging Face config.json and safetensors headers, decode op graphs
 * - `cost/`       a vendor-neutral tile cost model backends parameterise
 * - `compute/`    occupancy, tile pipelines (bytes in flight, overlap) and the kernel-library contract
 * - `trace/`      timelines: Chrome Trace / Perfetto JSON from the event stream, and its checks
 * - `validation/` rows of `fleet validate`: published or measured numbers beside predictions
 */
import 'reflect-metadata';

export * from './levels/task-level.js';
export * from './errors/fleet-error.js';
export * from './topology/topology.js';
export { topologySchema } from './topology/schema.js';
export { validateTopology, describeAjvError } from './topology/validate.js';
export { schemaCompiler, schemaValidator, requestedSchemas } from './topology/schema-compiler.js';
export * from './graph/op-graph.js';
export * from './graph/task-graph.js';
export * from './protocol/events.js';
export * from './plugin/contract.js';
export * from './plugin/tokens.js';
export * from './plugin/load-backend.js';
export * from './plugin/discover.js';
export * from './cost/roofline-cost-model.js';
export * from './compute/tile-pipeline.js';
export * from './compute/occupancy.js';
export * from './compute/kernel-library.js';
export * from './model/model-spec.js';
export * from './model/index.js';
/** One copy of inversify for every plugin: backends import these from here. */
export { ContainerModule, Container, inject, injectable, multiInject, optional } from 'inversify';
export { Engine, onGrid, TICKS_PER_NS, type Handler } from './engine/engine.js';
export { EventQueue } from './engine/event-queue.js';
export { Cache, type AccessResult } from './memory/cache.js';
export { setIndex, homeHalf, lruVictim } from './memory/placement.js';
export { BandwidthResource } from './memory/bandwidth-resource.js';
export * from './memory/memory-system.js';
export * from './memory/loaded-latency.js';
export { EventBus } from './protocol/event-bus.js';
export { EventCounters, checkTaskGraph } from './runtime/event-counters.js';
export { PersistentRuntime, MPK_TASK_DESC_BYTES, type PersistentOptions } from './runtime/persistent-runtime.js';
export { schedulerLayout, cursorsCanRepeat, type SchedulerLayout } from './runtime/scheduler-layout.js';
export { scheduleCounts, addScheduleCounts, zeroScheduleCounts, type ScheduleCounts } from './runtime/schedule-counts.js';
export { KernelRuntime, type KernelRuntimeOptions } from './runtime/kernel-runtime.js';
export { Machine, bucketOf } from './runtime/machine.js';
export * from './simulation/simulate.js';
export { sameData, sameGraph } from './simulation/memo.js';
export * from './trace/index.js';
export * from './validation/validation-row.js';
export type { ValidationSuite } from './validation/validation-suite.js';
export * from './collectives/cluster-collectives.js';
export * from './node/index.js';
export { checkNodeSpec } from './node/check.js';
