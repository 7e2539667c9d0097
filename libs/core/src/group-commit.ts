// Group commit: callers hand in one item each and wait; items that arrive while
// a flush runs go together into the next one. Under load one database
// transaction serves many messages or attempt outcomes; alone, an item is
// flushed at once.

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit<T, R> {
  private queue: Array<Pending<T, R>> = [];
  private flushing = false;

  /** `flush` answers one result per item, in order; when it throws, every item of the batch is rejected. */
  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.flushing = true;
    // Let the items produced in this turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
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
}
