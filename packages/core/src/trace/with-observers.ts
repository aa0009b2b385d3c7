import { ignoreElements, tap } from 'rxjs';
import type { Backend } from '../plugin/contract.js';
import type { SimEvent } from '../protocol/events.js';

/**
 * The same backend, with `observers` subscribed to the event stream of every simulation it
 * runs — for callers that cannot pass `observers` themselves (a prediction helper that
 * builds its own simulation options). Attached as a stream contribution that emits no
 * metrics, so results are unchanged.
 */
export function withObservers(backend: Backend, observers: readonly ((events: readonly SimEvent[]) => void)[]): Backend {
  return {
    ...backend,
    streamContributions: [
      ...backend.streamContributions,
      (events$) =>
        events$.pipe(
          tap((batch) => {
            for (const o of observers) o(batch);
          }),
          ignoreElements(),
        ),
    ],
  };
}
