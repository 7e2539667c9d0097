import {
  confirmingMessage, failureConfirmed, failureKind, nextCheckDelayMs, nextStreak, NO_STREAK, runTrigger, shortDuration, type CheckStreak,
} from './check-confirmation';

const T0 = new Date('2026-11-28T12:00:01.000Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const settings = { confirmations: 3, outageGraceMs: 15 * 60_000 };
const conclusive: { status: 'failing'; inconclusive?: true } = { status: 'failing' };
const inconclusive = { status: 'failing' as const, inconclusive: true as const };

/** The streak after failed runs at these seconds after T0. */
function runs(outcomes: Array<[number, { status: 'failing' | 'passing'; inconclusive?: true }]>): CheckStreak {
  return outcomes.reduce((streak, [s, outcome]) => nextStreak(streak, outcome, at(s), false), NO_STREAK);
}

describe('conclusive failures', () => {
  test('confirmed after CHECK_CONFIRMATIONS consecutive failed runs, not before', () => {
    expect(failureConfirmed(runs([[0, conclusive], [30, conclusive]]), at(30), settings)).toBe(false);
    expect(failureConfirmed(runs([[0, conclusive], [30, conclusive], [90, conclusive]]), at(90), settings)).toBe(true);
    expect(failureConfirmed(runs([[0, conclusive]]), at(0), { ...settings, confirmations: 1 })).toBe(true);
  });
  test('a passing run clears the count', () => {
    expect(runs([[0, conclusive], [30, conclusive], [90, { status: 'passing' }]])).toEqual(NO_STREAK);
    const again = runs([[0, conclusive], [30, conclusive], [90, { status: 'passing' }], [600, conclusive], [630, conclusive]]);
    expect(again).toEqual({ failedRuns: 2, failingSince: at(600), inconclusive: false });
    expect(failureConfirmed(again, at(630), settings)).toBe(false);
  });
  test('the second step of a run does not count again', () => {
    const first = runs([[0, conclusive]]);
    expect(nextStreak(first, conclusive, at(1), true)).toEqual(first);
    expect(nextStreak(first, inconclusive, at(1), true)).toEqual({ ...first, inconclusive: true });
  });
});

describe('inconclusive failures', () => {
  test('need CHECK_OUTAGE_GRACE since the first failed run as well as CHECK_CONFIRMATIONS runs', () => {
    const three = runs([[0, inconclusive], [30, inconclusive], [90, inconclusive]]);
    expect(three).toEqual({ failedRuns: 3, failingSince: T0, inconclusive: true });
    expect(failureConfirmed(three, at(90), settings)).toBe(false);
    expect(failureConfirmed(three, at(899), settings)).toBe(false);
    expect(failureConfirmed(three, at(900), settings)).toBe(true);
    // Grace alone is not enough.
    expect(failureConfirmed(runs([[0, inconclusive], [900, inconclusive]]), at(900), settings)).toBe(false);
  });
  test('mixed with conclusive ones, the stricter rule holds', () => {
    const mixed = runs([[0, conclusive], [30, inconclusive], [90, conclusive]]);
    expect(mixed.inconclusive).toBe(true);
    expect(failureConfirmed(mixed, at(90), settings)).toBe(false);
    expect(failureConfirmed(mixed, at(900), settings)).toBe(true);
  });
  test('failureKind', () => {
    expect(failureKind(inconclusive)).toBe('inconclusive');
    expect(failureKind(conclusive)).toBe('conclusive');
  });
});

describe('confirmingMessage', () => {
  test('says what was seen, when, and how far the confirmation is', () => {
    const streak = runs([[0, conclusive]]);
    expect(confirmingMessage('The TXT lookup of _custom-domain-challenge.shop.example.com failed (SERVFAIL).', T0, streak, settings))
      .toBe('The TXT lookup of _custom-domain-challenge.shop.example.com failed (SERVFAIL) at 12:00:01Z; confirming before the domain leaves ready (1 of 3).');
  });
  test('an inconclusive streak names the grace and its start', () => {
    const streak = runs([[0, inconclusive], [30, inconclusive], [90, inconclusive], [150, inconclusive]]);
    expect(confirmingMessage('GET https://o/health: answered 503.', at(150), streak, settings))
      .toBe('GET https://o/health: answered 503 at 12:02:31Z; confirming before the domain leaves ready (3 of 3, and failing for 15m since 12:00:01Z).');
  });
  test('shortDuration', () => {
    expect([500, 30_000, 900_000, 5_400_000, 86_400_000].map(shortDuration)).toEqual(['500ms', '30s', '15m', '1h30m', '1d']);
  });
});

describe('nextCheckDelayMs', () => {
  const schedule = { pending: [60_000, 120_000, 300_000], live: 600_000, confirm: [30_000, 60_000], attention: [30_000, 60_000, 120_000, 300_000] };
  const runsOf = (checksDone: number, statusRuns = 0, failedRuns = 0) => ({ checksDone, statusRuns, failedRuns });
  test('pending_dns walks its schedule by runs done, the last delay repeats', () => {
    expect([1, 2, 3, 4, 10].map((done) => nextCheckDelayMs('pending_dns', runsOf(done), schedule))).toEqual([60_000, 120_000, 300_000, 300_000, 300_000]);
  });
  test('a ready domain confirming a failure follows CHECK_SCHEDULE_CONFIRM, the last step repeating; otherwise the live interval', () => {
    expect([1, 2, 3, 9].map((failed) => nextCheckDelayMs('ready', runsOf(50, 40, failed), schedule))).toEqual([30_000, 60_000, 60_000, 60_000]);
    expect(nextCheckDelayMs('ready', runsOf(50, 40, 0), schedule)).toBe(600_000);
  });
  test('attention_required follows CHECK_SCHEDULE_ATTENTION from entering it, then the live interval', () => {
    expect([0, 1, 2, 3, 4, 20].map((n) => nextCheckDelayMs('attention_required', runsOf(50, n), schedule))).toEqual([30_000, 60_000, 120_000, 300_000, 600_000, 600_000]);
  });
});

describe('runTrigger', () => {
  test('requested reasons, a first run, a confirming run, the schedule', () => {
    expect(runTrigger('recheck', 7, 'ready', 2)).toBe('recheck');
    expect(runTrigger('created', 0, 'pending_dns', 0)).toBe('created');
    expect(runTrigger(null, 0, 'pending_dns', 0)).toBe('created');
    expect(runTrigger(null, 7, 'ready', 1)).toBe('confirm');
    expect(runTrigger('scheduled', 7, 'ready', 0)).toBe('schedule');
    expect(runTrigger(null, 7, 'attention_required', 0)).toBe('schedule');
  });

  test('a check the edge asked for is an edge run, whatever the domain', () => {
    expect(runTrigger('edge', 3, 'pending_dns', 0)).toBe('edge');
    expect(runTrigger('edge', 0, 'pending_dns', 0)).toBe('edge');
    expect(runTrigger('edge', 7, 'ready', 1)).toBe('edge');
  });
});
