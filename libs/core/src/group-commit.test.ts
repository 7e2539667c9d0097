import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  it('answers each caller with its own result, items of one turn in one flush', async () => {
    const flushes: number[][] = [];
    const batcher = new GroupCommit(async (items: number[]) => {
      flushes.push(items);
      return items.map((n) => n * 10);
    }, 100);
    expect(await Promise.all([1, 2, 3].map((n) => batcher.add(n)))).toEqual([10, 20, 30]);
    expect(flushes).toEqual([[1, 2, 3]]);
  });

  it('collects what arrives during a flush into the next one, at most maxBatch each', async () => {
    const flushes: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = new GroupCommit(async (items: number[]) => {
      flushes.push(items);
      if (flushes.length === 1) await gate;
      return items;
    }, 2);
    const first = batcher.add(0);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [1, 2, 3, 4, 5].map((n) => batcher.add(n));
    release();
    expect(await Promise.all([first, ...later])).toEqual([0, 1, 2, 3, 4, 5]);
    expect(flushes).toEqual([[0], [1, 2], [3, 4], [5]]);
  });

  it('rejects every item of a failed flush and goes on with the next', async () => {
    let calls = 0;
    const batcher = new GroupCommit(async (items: string[]) => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
      return items.map((s) => s.toUpperCase());
    }, 10);
    const failed = [batcher.add('a'), batcher.add('b')];
    await expect(Promise.all(failed)).rejects.toThrow('database down');
    await expect(failed[1]).rejects.toThrow('database down');
    expect(await batcher.add('c')).toBe('C');
  });
});

describe('GroupCommit that gathers', () => {
  afterEach(() => jest.useRealTimers());

  it('waits for `items` before a flush, no longer than `ms` after the oldest came', async () => {
    jest.useFakeTimers();
    const flushes: number[][] = [];
    const batcher = new GroupCommit(async (items: number[]) => {
      flushes.push(items);
      return items;
    }, 100, { items: 3, ms: 50 });
    const first = [batcher.add(1), batcher.add(2)];
    await jest.advanceTimersByTimeAsync(10);
    expect(flushes).toEqual([]);
    const full = batcher.add(3);
    await jest.advanceTimersByTimeAsync(0);
    expect(await Promise.all([...first, full])).toEqual([1, 2, 3]);
    const alone = batcher.add(4);
    await jest.advanceTimersByTimeAsync(49);
    expect(flushes).toEqual([[1, 2, 3]]);
    await jest.advanceTimersByTimeAsync(1);
    expect(await alone).toBe(4);
    expect(flushes).toEqual([[1, 2, 3], [4]]);
  });
});
