import type { SimEvent } from '../protocol/events.js';

/**
 * Worker time spent in each task (task-start → task-end, summed over the workers that ran
 * it), per simulated step: a run of several steps (several decode positions) gives one
 * array per `graph` event, indexed by task id. Join it with the compiled graph to get time
 * per op or op class.
 */
export class TaskBusyTime {
  /** One entry per simulated step: busy ns by task id. */
  readonly steps: Float64Array[] = [];
  private readonly open = new Map<number, { task: number; t: number }>();

  readonly observer = (events: readonly SimEvent[]): void => {
    for (const e of events) {
      switch (e.type) {
        case 'graph':
          this.steps.push(new Float64Array(e.tasks));
          this.open.clear();
          break;
        case 'task-start':
          this.open.set(e.worker, { task: e.task, t: e.t });
          break;
        case 'task-end': {
          const o = this.open.get(e.worker);
          const step = this.steps[this.steps.length - 1];
          if (o && step && o.task === e.task) step[e.task]! += e.t - o.t;
          this.open.delete(e.worker);
          break;
        }
      }
    }
  };
}
