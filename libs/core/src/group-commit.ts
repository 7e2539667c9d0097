// Group commit: callers hand in one item each and wait; items that arrive while
// a flush runs go together into the next one. Under load one database
// transaction serves many messages or attempt outcomes; alone, an item is
// flushed at once, unless the batcher was told to gather (see Gather).

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
  /** performance.now() when the item came. */
  at: number;
}

/**
 * A flush waits until `items` are queued or the oldest has waited `ms`: fewer,
 * larger statements where each costs a round trip and a plan, for a few
 * milliseconds more before an item is written.
 */
export interface Gather {
  items: number;
  ms: number;
}

export class GroupCommit<T, R> {
  private queue: Array<Pending<T, R>> = [];
  private flushing = false;
  /** Wakes a flush that gathers, once enough items are queued. */
  private gathered: (() => void) | null = null;

  /** `flush` answers one result per item, in order; when it throws, every item of the batch is rejected. */
  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
    private readonly gather?: Gather,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject, at: performance.now() });
      if (!this.flushing) void this.run();
      else if (this.gathered && this.queue.length >= (this.gather?.items ?? 0)) this.gathered();
    });
  }

  private async run(): Promise<void> {
    this.flushing = true;
    // Let the items produced in this turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      await this.waitToGather();
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.flush(batch.map((p) => p.item));
        batch.forEach((p, i) => p.resolve(results[i] as R));
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
    this.flushing = false;
  }

  private async waitToGather(): Promise<void> {
    const { gather } = this;
    const oldest = this.queue[0];
    if (!gather || !oldest || this.queue.length >= gather.items) return;
    const waitMs = oldest.at + gather.ms - performance.now();
    if (waitMs <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.gathered?.(), waitMs);
      this.gathered = () => {
        clearTimeout(timer);
        this.gathered = null;
        resolve();
      };
    });
  }
}
