/**
 * Fleet's event protocol: what a simulated run publishes, as a versioned, JSON-schema'd
 * union discriminated by `type`. Times `t` are virtual nanoseconds since the step began.
 * Metrics, trace writers and progress bars are subscribers; backends add their own
 * accounting as stream contributions.
 */
import type { OpKind } from '../graph/op-graph.js';

export const PROTOCOL_VERSION = 1;

export interface GraphEvent {
  type: 'graph';
  t: number;
  policy: string;
  tasks: number;
  events: number;
  kernels: number;
  /** Tasks of one decoder layer (the first compiled one). */
  tasksPerLayer: number;
}

export interface LaunchEvent {
  type: 'launch';
  t: number;
  kernel: number;
  name: string;
  mode: 'eager' | 'graph' | 'persistent';
  costNs: number;
}

export interface KernelEndEvent {
  type: 'kernel-end';
  t: number;
  kernel: number;
  /** Bytes the end-of-kernel cache write-back wrote to memory. */
  writeBackBytes: number;
}

export interface DispatchEvent {
  type: 'dispatch';
  t: number;
  task: number;
  /** Workers that received it: 1 for a CU-task, all workers of a partition for a chiplet-task. */
  workers: number;
  partition: number;
  scheduler: number;
}

/** Which task a task event is about, where it runs, and when. */
export interface TaskEventFields {
  t: number;
  task: number;
  kind: OpKind;
  worker: number;
  partition: number;
  layer: number;
}

export interface TaskStartEvent extends TaskEventFields {
  type: 'task-start';
}

export interface TaskEndEvent extends TaskEventFields {
  type: 'task-end';
  tiles: number;
}

export interface EventSignal {
  type: 'event-signal';
  t: number;
  event: number;
  task: number;
  /** `chiplet`: an L2-local counter of a partition; `device`: the global counter. */
  scope: 'chiplet' | 'device';
  partition: number;
  worker: number;
}

export interface EventFire {
  type: 'event-fire';
  t: number;
  event: number;
}

export interface FenceEvent {
  type: 'fence';
  t: number;
  partition: number;
  worker: number;
  scope: 'chiplet' | 'device' | 'system';
  /** Dirty bytes the release wrote back. */
  dirtyBytes: number;
  costNs: number;
}

export interface CollectiveStepEvent {
  type: 'collective-step';
  t: number;
  collective: string;
  step: number;
  bytes: number;
}

export interface LevelCounters {
  hitBytes: number;
  missBytes: number;
  bypassBytes: number;
  writeBackBytes: number;
}

export interface MemorySummaryEvent {
  type: 'memory-summary';
  t: number;
  /** Which layers these counters cover (`-1`: outside the layers: embedding, head). */
  layer: number;
  l2: LevelCounters;
  llc: LevelCounters | null;
  hbmReadBytes: number;
  hbmWriteBytes: number;
  fabricReadBytes: number;
}

/** Periodic sample of the memory system (when the simulation is asked for samples). */
export interface MemorySampleEvent {
  type: 'memory-sample';
  t: number;
  /** HBM bytes/ns being transferred right now. */
  hbmBytesPerNs: number;
  /** Bytes of valid data in each L2 instance. */
  l2ResidentBytes: number[];
}

export interface StepEndEvent {
  type: 'step-end';
  t: number;
}

export type SimEvent =
  | GraphEvent
  | LaunchEvent
  | KernelEndEvent
  | DispatchEvent
  | TaskStartEvent
  | TaskEndEvent
  | EventSignal
  | EventFire
  | FenceEvent
  | CollectiveStepEvent
  | MemorySummaryEvent
  | MemorySampleEvent
  | StepEndEvent;

export type SimEventType = SimEvent['type'];
