import { WakeableLoop, type WakeableLoopOptions } from './wakeable-loop';

/** A pass that records when it started and, while `hold` is set, waits to be released. */
function recorder(result: (n: number) => number | Promise<number> = (n) => n) {
  const started: number[] = [];
  let release: (() => void) | null = null;
  let hold = false;
  const pass = async () => {
    started.push(Date.now());
    if (hold) await new Promise<void>((resolve) => (release = resolve));
    return result(started.length);
  };
  return {
    started,
    pass,
    holdNext: () => (hold = true),
    release: () => {
      hold = false;
      release?.();
    },
  };
}

const T0 = 1_000_000;
let loop: WakeableLoop<number> | null = null;

function startLoop(opts: WakeableLoopOptions<number>): WakeableLoop<number> {
  loop = new WakeableLoop(opts);
  return loop;
}

beforeEach(() => {
  jest.useFakeTimers({ now: T0 });
});

afterEach(async () => {
  const stopping = loop?.stop();
  loop = null;
  await jest.runOnlyPendingTimersAsync();
  await stopping;
  jest.useRealTimers();
});

const since = (times: number[]) => times.map((t) => t - T0);

describe('WakeableLoop', () => {
  it('runs nothing until woken, then a pass every interval', async () => {
    const { started, pass } = recorder();
    const subject = startLoop({ pass, intervalMs: 100 });
    await jest.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual([]);
    subject.kick();
    await jest.advanceTimersByTimeAsync(350);
    expect(since(started)).toEqual([1_000, 1_100, 1_200, 1_300]);
  });

  it('runs one more pass right after the one under way, however many kicks came during it', async () => {
    const passes = recorder();
    const subject = startLoop({ pass: passes.pass, intervalMs: 1_000 });
    passes.holdNext();
    subject.kick();
    await jest.advanceTimersByTimeAsync(10);
    expect(passes.started).toHaveLength(1);
    subject.kick();
    subject.kick();
    subject.wakeIn(0);
    await jest.advanceTimersByTimeAsync(10);
    expect(passes.started).toHaveLength(1);
    passes.release();
    await jest.advanceTimersByTimeAsync(0);
    expect(since(passes.started)).toEqual([0, 20]);
    await jest.advanceTimersByTimeAsync(999);
    expect(passes.started).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(since(passes.started)).toEqual([0, 20, 1_020]);
  });

  it('keeps the soonest of the passes asked for', async () => {
    const { started, pass } = recorder();
    const subject = startLoop({ pass, intervalMs: 10_000 });
    subject.wakeIn(500);
    subject.wakeIn(200);
    subject.wakeIn(800);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(since(started)).toEqual([200]);
    // After the pass its interval is planned; a sooner request still comes first.
    subject.wakeIn(300);
    await jest.advanceTimersByTimeAsync(10_300);
    expect(since(started)).toEqual([200, 1_300, 11_300]);
  });

  it('lets a pass say when the next one comes (0: at once)', async () => {
    // The first two passes find a full batch; a timer of 0 fires after 1 ms.
    const { started, pass } = recorder();
    const subject = startLoop({ pass, intervalMs: 200, next: (n) => (n < 3 ? 0 : 200) });
    subject.kick();
    await jest.advanceTimersByTimeAsync(300);
    expect(since(started)).toEqual([0, 1, 2, 202]);
  });

  it('backs off after failures in a row, doubling up to the ceiling, deaf to kicks meanwhile', async () => {
    let failing = true;
    const { started, pass } = recorder((n) => {
      if (failing) throw new Error(`pass ${n} failed`);
      return n;
    });
    const told: Array<[string, number, number]> = [];
    const subject = startLoop({
      pass, intervalMs: 100, maxBackoffMs: 500,
      onFailure: (err, failures, delayMs) => told.push([(err as Error).message, failures, delayMs]),
    });
    subject.kick();
    await jest.advanceTimersByTimeAsync(0);
    subject.kick();
    subject.wakeIn(0);
    await jest.advanceTimersByTimeAsync(1_500);
    expect(since(started)).toEqual([0, 200, 600, 1_100]);
    expect(told).toEqual([['pass 1 failed', 1, 200], ['pass 2 failed', 2, 400], ['pass 3 failed', 3, 500], ['pass 4 failed', 4, 500]]);
    failing = false;
    await jest.advanceTimersByTimeAsync(100);
    expect(since(started)).toEqual([0, 200, 600, 1_100, 1_600]);
    // A success ends the backoff: kicks wake the loop again.
    subject.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(since(started)).toEqual([0, 200, 600, 1_100, 1_600, 1_600]);
  });

  it('runs a pass at once for runNow, even while backing off, and hands its outcome to the caller', async () => {
    let failing = true;
    const { started, pass } = recorder((n) => {
      if (failing) throw new Error('database away');
      return n * 10;
    });
    const subject = startLoop({ pass, intervalMs: 100, maxBackoffMs: 5_000 });
    await expect(subject.runNow()).rejects.toThrow('database away');
    failing = false;
    await jest.advanceTimersByTimeAsync(50);
    await expect(subject.runNow()).resolves.toBe(20);
    expect(since(started)).toEqual([0, 50]);
  });

  it('without a backoff, follows a failed pass by the interval and still wakes when kicked', async () => {
    const { started, pass } = recorder((n) => {
      if (n === 1) throw new Error('once');
      return n;
    });
    const failures: number[] = [];
    const subject = startLoop({ pass, intervalMs: 1_000, onFailure: (_err, count) => failures.push(count) });
    subject.kick();
    await jest.advanceTimersByTimeAsync(10);
    subject.kick();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(since(started)).toEqual([0, 10, 1_010, 2_010]);
    expect(failures).toEqual([1]);
  });

  it('runs passes asked for together one after the other', async () => {
    let running = 0;
    let most = 0;
    const subject = startLoop({
      intervalMs: 1_000,
      pass: async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 10));
        running -= 1;
        return Date.now() - T0;
      },
    });
    const ends = Promise.all([subject.runNow(), subject.runNow(), subject.runNow()]);
    await jest.advanceTimersByTimeAsync(30);
    expect(await ends).toEqual([10, 20, 30]);
    expect(most).toBe(1);
  });

  it('stops after the pass under way, and nothing wakes it then', async () => {
    const passes = recorder();
    const subject = startLoop({ pass: passes.pass, intervalMs: 100 });
    passes.holdNext();
    subject.kick();
    await jest.advanceTimersByTimeAsync(0);
    subject.kick();
    let stopped = false;
    const stopping = subject.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(50);
    expect(stopped).toBe(false);
    passes.release();
    await stopping;
    subject.kick();
    subject.wakeIn(0);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(passes.started).toHaveLength(1);
  });

  it('lets an unref timer leave the process free to exit', () => {
    const subject = startLoop({ pass: async () => 0, intervalMs: 100, unref: true });
    const unref = jest.spyOn(global, 'setTimeout');
    subject.wakeIn(100);
    const timer = unref.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    unref.mockRestore();
  });
});
