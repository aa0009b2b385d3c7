import { Subject, type Observable } from 'rxjs';
import type { SimEvent } from './events.js';

/**
 * Publishes simulation events as an RxJS stream of batches: `Subject.next` per event costs
 * ~50 ns, per batch of 1024 ~18-32 ns per event. Subscribers iterate the batch.
 */
export class EventBus {
  private readonly subject = new Subject<readonly SimEvent[]>();
  private buf: SimEvent[] = [];
  readonly events$: Observable<readonly SimEvent[]> = this.subject.asObservable();

  constructor(private readonly batchSize = 1024) {}

  /**
   * Whether anything subscribes to the stream: emitters skip building events when nothing
   * does (the hot path of a plain prediction allocates no event objects).
   */
  get active(): boolean {
    return this.subject.observed;
  }

  emit(e: SimEvent): void {
    if (!this.subject.observed) return;
    this.buf.push(e);
    if (this.buf.length >= this.batchSize) this.flush();
  }

  flush(): void {
    if (this.buf.length === 0) return;
    const batch = this.buf;
    this.buf = [];
    this.subject.next(batch);
  }

  complete(): void {
    this.flush();
    this.subject.complete();
  }
}
