import type { TaskGraph } from '../graph/task-graph.js';

/** What both runtimes track of their graph's tasks: how many have finished, and which. */
export abstract class TaskProgress {
  protected finished = 0;
  protected readonly completedFlags: Uint8Array;

  constructor(protected readonly graph: TaskGraph) {
    this.completedFlags = new Uint8Array(graph.tasks.length);
  }

  get done(): boolean {
    return this.finished === this.graph.tasks.length;
  }

  /** 1 for each task that has completed. */
  get completed(): Uint8Array {
    return this.completedFlags;
  }

  get finishedTasks(): number {
    return this.finished;
  }
}
