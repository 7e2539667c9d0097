import { FairQueue, type DeferralReason } from './fair-queue';

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
    queue.add('a', items('a', 5), 0, queue.mark());
    queue.add('b', items('b', 2), 0, queue.mark());
    queue.add('c', items('c', 1), 0, queue.mark());
    expect(takeAll(queue)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4', 'a5']);
    expect(queue.waiting).toBe(0);
  });

  it('gives a subscription leased later its turn before the next of a large backlog', () => {
    const queue = new FairQueue<string>({ maxInFlight: 100 });
    queue.add('a', items('a', 1000), 0, queue.mark());
    expect(takeAll(queue, 2)).toEqual(['a1', 'a2']);
    queue.add('b', ['b1'], 0, queue.mark());
    expect(takeAll(queue, 2)).toEqual(['b1', 'a3']);
  });

  it('runs at most maxInFlight attempts of one subscription, and counts what waited while a slot was free', () => {
    const { counted, onDeferred } = deferrals();
    const queue = new FairQueue<string>({ maxInFlight: 2, onDeferred });
    queue.add('a', items('a', 4), 0, queue.mark());
    queue.add('b', items('b', 1), 0, queue.mark());
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
    queue.add('a', items('a', 8), 3, queue.mark());
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
    expect(queue.add('a', ['a9', 'a10', 'a11'], 8, queue.mark())).toEqual(['a10', 'a11']);
    expect(counted).toEqual([[4, 'in_flight_cap'], [2, 'cooling']]);
    expect(takeAll(queue)).toEqual(['a9']);
    expect(queue.add('a', ['a12'], 9, queue.mark())).toEqual(['a12']);
    // A success ends cooling.
    queue.finish('a', true);
    expect(queue.cooling('a')).toBe(false);
    queue.add('a', items('b', 6), 0, queue.mark());
    expect(takeAll(queue)).toEqual(['b1', 'b2', 'b3', 'b4']);
  });

  it('takes the database\'s streak unless it saw a newer outcome itself', () => {
    const queue = new FairQueue<string>({ maxInFlight: 4 });
    const before = queue.mark();
    queue.add('a', ['a1'], 4, before);
    expect(takeAll(queue)).toEqual(['a1']);
    // A read that started before this failure found the streak at 4: the queue's 5 is newer.
    const stale = queue.mark();
    queue.finish('a', false);
    expect(queue.cooling('a')).toBe(true);
    expect(queue.add('a', ['a2', 'a3'], 4, stale)).toEqual(['a3']);
    expect(queue.cooling('a')).toBe(true);
    // A read that started after it is the truth: another dispatcher's success ended the streak.
    expect(queue.add('a', ['a4'], 0, queue.mark())).toEqual([]);
    expect(queue.cooling('a')).toBe(false);
    expect(takeAll(queue)).toEqual(['a2', 'a4']);
  });

  it('reads a cooling streak from the database for a subscription it never saw', () => {
    const queue = new FairQueue<string>({ maxInFlight: 4 });
    expect(queue.add('z', ['z1', 'z2'], 6, queue.mark())).toEqual(['z2']);
    expect(takeAll(queue)).toEqual(['z1']);
  });

  it('drains what waits and keeps the turn order as subscriptions come and go', () => {
    const queue = new FairQueue<string>({ maxInFlight: 1 });
    queue.add('a', ['a1', 'a2'], 0, queue.mark());
    queue.add('b', ['b1'], 0, queue.mark());
    queue.add('c', ['c1', 'c2'], 0, queue.mark());
    expect(takeAll(queue)).toEqual(['a1', 'b1', 'c1']);
    queue.finish('b', true); // b holds nothing: it leaves the turn
    queue.finish('a', true);
    // c was served last: d, which joins after it, comes before a.
    queue.add('d', ['d1'], 0, queue.mark());
    expect(takeAll(queue)).toEqual(['d1', 'a2']);
    queue.finish('c', true);
    expect(takeAll(queue)).toEqual(['c2']);
    queue.add('e', ['e1', 'e2'], 0, queue.mark());
    expect(takeAll(queue)).toEqual(['e1']);
    expect(queue.drain()).toEqual(['e2']);
    expect(queue.waiting).toBe(0);
    expect(queue.held()).toEqual(new Map([['a', 1], ['c', 1], ['d', 1], ['e', 1]]));
  });
});
