import { CheckLanes, ISSUE_SPACING_MS, LEASE_AHEAD, MAX_CERTIFICATES_WAITING, MAX_UNWRITTEN, type LaneWidths, type LaneWork } from './check-lanes';

/** A piece of work the test finishes by hand. */
class Gate {
  readonly promise: Promise<void>;
  open!: () => void;
  constructor() {
    this.promise = new Promise<void>((resolve) => {
      this.open = resolve;
    });
  }
}

/** Lanes whose checks and issuances wait for the test to finish them; records what started, in order. */
function lanesOf(widths: LaneWidths, issueTurn?: LaneWork<string, string>['issueTurn']) {
  const started: string[] = [];
  const gates = new Map<string, Gate>();
  let settled = 0;
  const run = (name: string) => {
    started.push(name);
    const gate = new Gate();
    gates.set(name, gate);
    return gate.promise;
  };
  const lanes = new CheckLanes<string, string>(widths, {
    check: (item) => run(`check ${item}`),
    issue: (item) => run(`issue ${item}`),
    settled: () => {
      settled += 1;
    },
    ...(issueTurn ? { issueTurn } : {}),
  });
  /** Finishes a started piece of work and lets the lanes react. */
  const finish = async (name: string) => {
    const gate = gates.get(name);
    if (!gate) throw new Error(`${name} has not started`);
    gate.open();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { lanes, started, finish, settledCount: () => settled };
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_v, i) => `${prefix}${i}`);

afterEach(() => {
  jest.useRealTimers();
});

describe('the check lane', () => {
  test('runs as many checks at once as it is wide, in the order they came, and the next when one finishes', async () => {
    const { lanes, started, finish, settledCount } = lanesOf({ checks: 2, certificates: 1 });
    lanes.queueChecks(['a', 'b', 'c']);
    expect(started).toEqual(['check a', 'check b']);
    await finish('check b');
    expect(started).toEqual(['check a', 'check b', 'check c']);
    expect(settledCount()).toBe(1);
  });
});

describe('capacity', () => {
  test('is three rounds of checks ahead, less the checks waiting and running', async () => {
    const { lanes, finish } = lanesOf({ checks: 2, certificates: 1 });
    expect(lanes.capacity()).toBe(LEASE_AHEAD * 2);
    lanes.queueChecks(['a', 'b', 'c']);
    expect(lanes.capacity()).toBe(LEASE_AHEAD * 2 - 3);
    await finish('check a');
    expect(lanes.capacity()).toBe(LEASE_AHEAD * 2 - 2);
  });

  test('is none while too many first steps wait to be written', async () => {
    const { lanes } = lanesOf({ checks: 2, certificates: 1 });
    const write = new Gate();
    for (let i = 0; i < MAX_UNWRITTEN - 1; i++) lanes.addWrite(write.promise);
    expect(lanes.capacity()).toBe(LEASE_AHEAD * 2);
    lanes.addWrite(write.promise);
    expect(lanes.capacity()).toBe(0);
    write.open();
    await lanes.drain();
    expect(lanes.capacity()).toBe(LEASE_AHEAD * 2);
  });

  test('is none while too many certificates wait to be issued', () => {
    const { lanes } = lanesOf({ checks: 2, certificates: 1 });
    lanes.moreDue(true); // holds the certificates back after the first
    for (const name of names('d', MAX_CERTIFICATES_WAITING)) lanes.queueIssue(name);
    expect(lanes.capacity()).toBe(LEASE_AHEAD * 2);
    lanes.queueIssue('one more');
    expect(lanes.capacity()).toBe(0);
    lanes.stop();
  });
});

describe('the certificate lane', () => {
  test('issues as many at once as it is wide while no check runs or waits', () => {
    const { lanes, started } = lanesOf({ checks: 2, certificates: 3 });
    for (const name of names('d', 4)) lanes.queueIssue(name);
    expect(started).toEqual(['issue d0', 'issue d1', 'issue d2']);
  });

  test('while checks run, issues one at a time, at least the spacing apart', async () => {
    jest.useFakeTimers();
    const { lanes, started, finish } = lanesOf({ checks: 1, certificates: 3 });
    lanes.queueChecks(['a']);
    for (const name of names('d', 3)) lanes.queueIssue(name);
    expect(started).toEqual(['check a', 'issue d0']);
    await finish('issue d0');
    // Done, but too soon after the last one started.
    expect(started).toEqual(['check a', 'issue d0']);
    await jest.advanceTimersByTimeAsync(ISSUE_SPACING_MS);
    expect(started).toEqual(['check a', 'issue d0', 'issue d1']);
    // The spacing has passed, but one is still being issued.
    await jest.advanceTimersByTimeAsync(ISSUE_SPACING_MS * 3);
    expect(started).toEqual(['check a', 'issue d0', 'issue d1']);
    // Checks done: the lane is as wide as it is again.
    await finish('check a');
    expect(started).toEqual(['check a', 'issue d0', 'issue d1', 'issue d2']);
  });

  test("takes renewals first, then the applications' certificates in turn", async () => {
    // `<r|f>:<application><n>`: a renewal or a first certificate of an application.
    const { lanes, started, finish } = lanesOf({ checks: 1, certificates: 1 }, (item) => ({ priority: item.startsWith('r:') ? 0 : 1, group: item.slice(2, 3) }));
    for (const name of ['f:a0', 'f:a1', 'f:a2', 'f:a3', 'f:b0', 'r:c0', 'f:b1']) lanes.queueIssue(name);
    for (const name of ['f:a0', 'r:c0', 'f:a1', 'f:b0', 'f:a2', 'f:b1']) await finish(`issue ${name}`);
    expect(started).toEqual(['issue f:a0', 'issue r:c0', 'issue f:a1', 'issue f:b0', 'issue f:a2', 'issue f:b1', 'issue f:a3']);
  });

  test('holds back while the scheduler says more domains are due, and goes on when it says none are', () => {
    const { lanes, started } = lanesOf({ checks: 1, certificates: 3 });
    lanes.moreDue(true);
    for (const name of names('d', 3)) lanes.queueIssue(name);
    expect(started).toEqual(['issue d0']);
    lanes.moreDue(false);
    expect(started).toEqual(['issue d0', 'issue d1', 'issue d2']);
  });
});

describe('stop', () => {
  test('answers the work not started, starts nothing more and waits for the work under way', async () => {
    const { lanes, started, finish, settledCount } = lanesOf({ checks: 1, certificates: 1 });
    const write = new Gate();
    lanes.addWrite(write.promise);
    lanes.queueChecks(['a', 'b']);
    lanes.moreDue(true);
    lanes.queueIssue('d0');
    lanes.queueIssue('d1');
    expect(started).toEqual(['check a', 'issue d0']);

    expect(lanes.stop()).toEqual({ checks: ['b'], issues: ['d1'] });
    expect(lanes.stopped).toBe(true);
    lanes.queueChecks(['c']);
    let drained = false;
    const draining = lanes.drain().then(() => {
      drained = true;
    });
    await finish('check a');
    await finish('issue d0');
    expect(drained).toBe(false);
    write.open();
    await draining;
    expect(started).toEqual(['check a', 'issue d0']);
    expect(settledCount()).toBe(0);
  });
});
