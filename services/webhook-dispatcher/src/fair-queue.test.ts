import { coolingAfter, NOT_COOLING, type CoolingState } from '@cds/core';
import { FairQueue, type DeferralReason } from './fair-queue';

/** The cooling state of a subscription whose last `n` attempts failed. */
const failing = (n: number): CoolingState => ({ failureStreak: n, recentOutcomes: 'f'.repeat(Math.min(n, 20)) });

/** Takes until nothing can start; returns the subscriptions in the order they were served. */
function takeAll(queue: FairQueue<string>, slots = Number.POSITIVE_INFINITY): string[] {
  const served: string[] = [];
  while (served.length < slots) {
    const next = queue.take();
    if (!next) break;
    served.push(next.item);
  }
  return served;
}

function deferrals(): { counted: Array<[number, DeferralReason]>; onDeferred: (count: number, reason: DeferralReason) => void } {
  const counted: Array<[number, DeferralReason]> = [];
  return { counted, onDeferred: (count, reason) => counted.push([count, reason]) };
}

const items = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

describe('FairQueue', () => {
  it('serves subscriptions in turn, whatever order their deliveries were leased in', () => {
    const queue = new FairQueue<string>({ maxInFlight: 10 });
    queue.add('a', items('a', 5), NOT_COOLING, queue.mark());
    queue.add('b', items('b', 2), NOT_COOLING, queue.mark());
    queue.add('c', items('c', 1), NOT_COOLING, queue.mark());
    expect(takeAll(queue)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4', 'a5']);
    expect(queue.waiting).toBe(0);
  });

  it('gives a subscription leased later its turn before the next of a large backlog', () => {
    const queue = new FairQueue<string>({ maxInFlight: 100 });
    queue.add('a', items('a', 1000), NOT_COOLING, queue.mark());
    expect(takeAll(queue, 2)).toEqual(['a1', 'a2']);
    queue.add('b', ['b1'], NOT_COOLING, queue.mark());
    expect(takeAll(queue, 2)).toEqual(['b1', 'a3']);
  });

  it('runs at most maxInFlight attempts of one subscription, and counts what waited while a slot was free', () => {
    const { counted, onDeferred } = deferrals();
    const queue = new FairQueue<string>({ maxInFlight: 2, onDeferred });
    queue.add('a', items('a', 4), NOT_COOLING, queue.mark());
    queue.add('b', items('b', 1), NOT_COOLING, queue.mark());
    expect(takeAll(queue)).toEqual(['a1', 'b1', 'a2']);
    expect(queue.runnable()).toBe(0);
    expect(queue.held()).toEqual(new Map([['a', 4], ['b', 1]]));
    // a3 and a4 were passed over once; passing them again counts nothing more.
    expect(counted).toEqual([[2, 'in_flight_cap']]);
    expect(queue.take()).toBeNull();
    expect(counted).toEqual([[2, 'in_flight_cap']]);

    expect(queue.finish('a', true)).toEqual([]);
    expect(queue.runnable()).toBe(1);
    expect(takeAll(queue)).toEqual(['a3']);
    expect(queue.finish('b', true)).toEqual([]);
    expect(queue.held()).toEqual(new Map([['a', 3]]));
  });

  it('makes a subscription cooling after 5 failures in a row: one attempt at a time, the others given back', () => {
    const { counted, onDeferred } = deferrals();
    const queue = new FairQueue<string>({ maxInFlight: 4, onDeferred });
    queue.add('a', items('a', 8), failing(3), queue.mark());
    expect(takeAll(queue)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(counted).toEqual([[4, 'in_flight_cap']]);
    expect(queue.finish('a', false)).toEqual([]); // 4 failures
    expect(takeAll(queue)).toEqual(['a5']);
    // The fifth failure in a row: cooling; three attempts still run, so nothing may wait.
    expect(queue.finish('a', false)).toEqual(['a6', 'a7', 'a8']);
    expect(queue.cooling('a')).toBe(true);
    // Each delivery counts once: these had waited for the in-flight cap already.
    expect(counted).toEqual([[4, 'in_flight_cap']]);
    expect(queue.waiting).toBe(0);
    for (let i = 0; i < 3; i++) queue.finish('a', false);
    expect(queue.held()).toEqual(new Map());

    // Still cooling (remembered): of three leased, one is kept and runs alone.
    expect(queue.add('a', ['a9', 'a10', 'a11'], failing(8), queue.mark())).toEqual(['a10', 'a11']);
    expect(counted).toEqual([[4, 'in_flight_cap'], [2, 'cooling']]);
    expect(takeAll(queue)).toEqual(['a9']);
    expect(queue.add('a', ['a12'], failing(9), queue.mark())).toEqual(['a12']);
    // A success ends cooling.
    queue.finish('a', true);
    expect(queue.cooling('a')).toBe(false);
    queue.add('a', items('b', 6), NOT_COOLING, queue.mark());
    expect(takeAll(queue)).toEqual(['b1', 'b2', 'b3', 'b4']);
  });

  it('takes the database\'s cooling state unless it saw a newer outcome itself', () => {
    const queue = new FairQueue<string>({ maxInFlight: 4 });
    const before = queue.mark();
    queue.add('a', ['a1'], failing(4), before);
    expect(takeAll(queue)).toEqual(['a1']);
    // A read that started before this failure found the streak at 4: the queue's 5 is newer.
    const stale = queue.mark();
    queue.finish('a', false);
    expect(queue.cooling('a')).toBe(true);
    expect(queue.add('a', ['a2', 'a3'], failing(4), stale)).toEqual(['a3']);
    expect(queue.cooling('a')).toBe(true);
    // A read that started after it is the truth: another dispatcher's success ended the streak.
    expect(queue.add('a', ['a4'], NOT_COOLING, queue.mark())).toEqual([]);
    expect(queue.cooling('a')).toBe(false);
    expect(takeAll(queue)).toEqual(['a2', 'a4']);
  });

  it('frees a slot when the exchange ends, and vouches for a read only once the outcome is written', () => {
    const queue = new FairQueue<string>({ maxInFlight: 1 });
    queue.add('a', ['a1', 'a2'], failing(4), queue.mark());
    expect(takeAll(queue)).toEqual(['a1']);
    const first = queue.release('a', false);
    expect(queue.cooling('a')).toBe(true);
    // The slot is free before the write ends.
    expect(takeAll(queue)).toEqual(['a2']);
    const second = queue.release('a', true);
    expect(queue.cooling('a')).toBe(false);
    // A read started while both writes run may lack both: the queue's state stands.
    expect(queue.add('a', ['a3'], failing(4), queue.mark())).toEqual([]);
    expect(queue.cooling('a')).toBe(false);
    first.written();
    first.written(); // counted once
    // Only the failure is written: a read started now may still lack the success.
    expect(queue.add('a', ['a4'], failing(5), queue.mark())).toEqual([]);
    expect(queue.cooling('a')).toBe(false);
    second.written();
    // Both written: a read started now is the truth (another dispatcher's failures since).
    expect(queue.add('a', ['a5', 'a6'], failing(6), queue.mark())).toEqual(['a4', 'a5', 'a6']);
    expect(queue.cooling('a')).toBe(true);
    expect(takeAll(queue)).toEqual(['a3']);
  });

  it('reads a cooling state from the database for a subscription it never saw', () => {
    const queue = new FairQueue<string>({ maxInFlight: 4 });
    expect(queue.add('z', ['z1', 'z2'], failing(6), queue.mark())).toEqual(['z2']);
    expect(takeAll(queue)).toEqual(['z1']);
  });

  it('makes a subscription that fails 4 of every 5 attempts cooling, and keeps it so through its successes', () => {
    const queue = new FairQueue<string>({ maxInFlight: 4 });
    // 3 rounds of 4 failures and a success, then 4 failures: 16 of the last 19 failed.
    const outcomes = [...Array.from({ length: 3 }, () => [false, false, false, false, true]).flat(), false, false, false];
    queue.add('a', items('a', 30), NOT_COOLING, queue.mark());
    for (const delivered of outcomes) {
      expect(takeAll(queue, 1)).toHaveLength(1);
      expect(queue.finish('a', delivered)).toEqual([]);
    }
    expect(queue.cooling('a')).toBe(false);
    expect(takeAll(queue, 1)).toHaveLength(1);
    // The 16th failure of the last 19: cooling, with never 5 in a row; one item is kept, the others go back.
    expect(queue.finish('a', false)).toHaveLength(30 - outcomes.length - 2);
    expect(queue.cooling('a')).toBe(true);
    expect(takeAll(queue)).toHaveLength(1);
    // A success does not end it: 16 of the last 20 still failed.
    queue.finish('a', true);
    expect(queue.cooling('a')).toBe(true);
  });

  it('takes a cooling state the database read after 16 of 20 failures', () => {
    const queue = new FairQueue<string>({ maxInFlight: 4 });
    const mostlyFailing = [false, false, false, false, true, false, false, false, false, true, false, false, false, false, true, false, false, false, false, true].reduce(coolingAfter, NOT_COOLING);
    expect(queue.add('m', ['m1', 'm2', 'm3'], mostlyFailing, queue.mark())).toEqual(['m2', 'm3']);
    expect(queue.cooling('m')).toBe(true);
  });

  it("runs at most maxInFlightPerApplication attempts of one application's subscriptions together, the others' in turn", () => {
    const { counted, onDeferred } = deferrals();
    const queue = new FairQueue<string>({ maxInFlight: 3, maxInFlightPerApplication: 4, applicationOf: (item) => item.slice(0, 1), onDeferred });
    // Application a has three subscriptions (a-x, a-y, a-z), b one.
    for (const sub of ['x', 'y', 'z']) queue.add(`a-${sub}`, items(`a${sub}`, 3), NOT_COOLING, queue.mark());
    queue.add('b-w', items('bw', 3), NOT_COOLING, queue.mark());
    expect(queue.runnable()).toBe(4 + 3);
    expect(takeAll(queue)).toEqual(['ax1', 'ay1', 'az1', 'bw1', 'ax2', 'bw2', 'bw3']);
    expect(queue.applicationRunning('a')).toBe(4);
    expect(queue.applicationRunning('b')).toBe(3);
    expect(queue.runnable()).toBe(0);
    expect(queue.heldByApplication()).toEqual(new Map([['a', 9], ['b', 3]]));
    // Waiting at the application's cap with a slot of their subscription free: counted once each.
    expect(counted).toEqual([[2, 'application_cap'], [2, 'application_cap'], [1, 'application_cap']]);

    // A slot of the application frees: the application's subscription next in turn takes it.
    expect(queue.finish('a-y', true)).toEqual([]);
    expect(queue.applicationRunning('a')).toBe(3);
    expect(queue.runnable()).toBe(1);
    expect(takeAll(queue)).toEqual(['ax3']);
    expect(queue.applicationRunning('a')).toBe(4);
  });

  it('drains what waits and keeps the turn order as subscriptions come and go', () => {
    const queue = new FairQueue<string>({ maxInFlight: 1 });
    queue.add('a', ['a1', 'a2'], NOT_COOLING, queue.mark());
    queue.add('b', ['b1'], NOT_COOLING, queue.mark());
    queue.add('c', ['c1', 'c2'], NOT_COOLING, queue.mark());
    expect(takeAll(queue)).toEqual(['a1', 'b1', 'c1']);
    queue.finish('b', true); // b holds nothing: it leaves the turn
    queue.finish('a', true);
    // c was served last: d, which joins after it, comes before a.
    queue.add('d', ['d1'], NOT_COOLING, queue.mark());
    expect(takeAll(queue)).toEqual(['d1', 'a2']);
    queue.finish('c', true);
    expect(takeAll(queue)).toEqual(['c2']);
    queue.add('e', ['e1', 'e2'], NOT_COOLING, queue.mark());
    expect(takeAll(queue)).toEqual(['e1']);
    expect(queue.drain()).toEqual(['e2']);
    expect(queue.waiting).toBe(0);
    expect(queue.held()).toEqual(new Map([['a', 1], ['c', 1], ['d', 1], ['e', 1]]));
  });
});
