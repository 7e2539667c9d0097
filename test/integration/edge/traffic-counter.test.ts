// The edge's traffic counter against a real database: exact counts per
// application and UTC day, serialized flushes, nothing lost on a failed flush
// or on stop(), nothing counted twice; the operator endpoint shows the rows.
import type { DataStore, Repositories, TrafficDayRow } from '@cds/data';
import { TrafficCounter } from '@cds/edge-proxy';
import { anApplication, openMigratedStore, type MigratedStore } from '../data/data-fixtures';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { capturingLogger } from './edge-test-logger';

let ctx: MigratedStore;

beforeAll(async () => {
  ctx = await openMigratedStore();
});
afterAll(() => ctx?.close());

async function newApplications(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const app = anApplication();
    await ctx.store.run((r) => r.applications.insert(app));
    ids.push(app.id);
  }
  return ids;
}

const rowsOf = (applicationId: string): Promise<TrafficDayRow[]> =>
  ctx.store.run((r) => r.traffic.range(applicationId, '2000-01-01', '2100-12-31'));

/** A clock the test moves by hand. */
function manualClock(start: string): { now: () => Date; set(iso: string): void } {
  let current = new Date(start);
  return { now: () => current, set: (iso) => { current = new Date(iso); } };
}

/** The same database, with a transaction that runs the work and then fails (rolled back), `failures` times. */
function failingTransactions(store: DataStore, failures: number): { store: DataStore; attempts: () => number } {
  let left = failures;
  let attempts = 0;
  const flaky = Object.create(store) as DataStore;
  flaky.transaction = <T>(fn: (repos: Repositories) => Promise<T>): Promise<T> => {
    attempts += 1;
    if (left === 0) return store.transaction(fn);
    left -= 1;
    return store.transaction(async (r) => {
      await fn(r);
      throw new Error('connection lost before commit');
    });
  };
  return { store: flaky, attempts: () => attempts };
}

it('writes 1000 requests across 3 applications and two UTC days exactly, and nothing twice', async () => {
  const apps = await newApplications(3);
  const clock = manualClock('2026-03-31T23:59:58.500Z');
  const { logger } = capturingLogger();
  const flushed: string[][] = [];
  const counter = new TrafficCounter({ store: ctx.store, logger, now: clock.now, afterFlush: (ids) => { flushed.push([...ids].sort()); } });

  const expected = new Map<string, { requests: number; bytes: number }>();
  for (let i = 0; i < 1000; i += 1) {
    if (i === 600) clock.set('2026-04-01T00:00:00.000Z');
    const app = apps[i % 3] as string;
    const day = i < 600 ? '2026-03-31' : '2026-04-01';
    counter.record(app, i * 7);
    const entry = expected.get(`${app} ${day}`) ?? { requests: 0, bytes: 0 };
    entry.requests += 1;
    entry.bytes += i * 7;
    expected.set(`${app} ${day}`, entry);
  }
  await counter.flush();
  await counter.flush(); // nothing pending: writes nothing

  let total = 0;
  for (const app of apps) {
    const rows = await rowsOf(app);
    expect(rows.map((row) => row.day)).toEqual(['2026-03-31', '2026-04-01']);
    for (const row of rows) {
      const want = expected.get(`${app} ${row.day}`);
      expect({ requests: row.requests, bytes: row.responseBytes }).toEqual(want);
      total += row.requests;
    }
  }
  expect(total).toBe(1000);
  expect(flushed).toEqual([[...apps].sort()]);
});

it('adds later flushes to the same day, with concurrent flushes serialized', async () => {
  const [app] = (await newApplications(1)) as [string];
  let inFlight = 0;
  let maxInFlight = 0;
  const watched = Object.create(ctx.store) as DataStore;
  watched.transaction = async <T>(fn: (repos: Repositories) => Promise<T>): Promise<T> => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      return await ctx.store.transaction(fn);
    } finally {
      inFlight -= 1;
    }
  };
  const counter = new TrafficCounter({ store: watched, logger: capturingLogger().logger, now: () => new Date('2026-05-05T12:00:00Z') });

  const flushes: Promise<void>[] = [];
  for (let round = 0; round < 10; round += 1) {
    for (let i = 0; i < 50; i += 1) counter.record(app, 100);
    flushes.push(counter.flush());
  }
  await Promise.all(flushes);
  expect(maxInFlight).toBe(1);
  expect(await rowsOf(app)).toEqual([{ applicationId: app, day: '2026-05-05', requests: 500, responseBytes: 50_000 }]);
});

it('keeps the counts of a failed flush and writes them once with the next one', async () => {
  const [a, b] = (await newApplications(2)) as [string, string];
  const flaky = failingTransactions(ctx.store, 1);
  const { logger, lines } = capturingLogger();
  const afterFlush: string[][] = [];
  const counter = new TrafficCounter({ store: flaky.store, logger, now: () => new Date('2026-06-10T08:00:00Z'), afterFlush: (ids) => { afterFlush.push(ids); } });

  for (let i = 0; i < 30; i += 1) counter.record(i % 2 ? a : b, 10);
  await counter.flush(); // rows written, then rolled back
  expect(await rowsOf(a)).toEqual([]);
  expect(afterFlush).toEqual([]);
  await eventually('the flush-failed warning', () => lines.some((line) => line.level === 'warn' && line.message.startsWith('traffic flush failed')));

  for (let i = 0; i < 4; i += 1) counter.record(a, 1); // counted while the batch was out
  await counter.flush();
  await counter.flush();
  expect(flaky.attempts()).toBe(2);
  expect(await rowsOf(a)).toEqual([{ applicationId: a, day: '2026-06-10', requests: 19, responseBytes: 154 }]);
  expect(await rowsOf(b)).toEqual([{ applicationId: b, day: '2026-06-10', requests: 15, responseBytes: 150 }]);
  expect(afterFlush.length).toBe(1);
  expect([...(afterFlush[0] as string[])].sort()).toEqual([a, b].sort());
});

it('flushes on its timer, and stop() writes what is left', async () => {
  const [app] = (await newApplications(1)) as [string];
  const counter = new TrafficCounter({ store: ctx.store, logger: capturingLogger().logger, flushIntervalMs: 50, now: () => new Date('2026-07-01T00:00:00Z') });
  counter.start();
  counter.record(app, 1000);
  await eventually('one traffic row', async () => (await rowsOf(app)).length === 1);
  await counter.stop();

  const slow = new TrafficCounter({ store: ctx.store, logger: capturingLogger().logger, flushIntervalMs: 60_000, now: () => new Date('2026-07-01T00:00:00Z') });
  slow.start();
  for (let i = 0; i < 9; i += 1) slow.record(app, 1000);
  expect((await rowsOf(app))[0]?.requests).toBe(1);
  await slow.stop(); // as on SIGTERM
  expect(await rowsOf(app)).toEqual([{ applicationId: app, day: '2026-07-01', requests: 10, responseBytes: 10_000 }]);
});

it('stop() retries a failing final flush instead of dropping the counts', async () => {
  const [app] = (await newApplications(1)) as [string];
  const flaky = failingTransactions(ctx.store, 2);
  const counter = new TrafficCounter({ store: flaky.store, logger: capturingLogger().logger, now: () => new Date('2026-08-01T00:00:00Z') });
  counter.record(app, 5);
  await counter.stop();
  expect(flaky.attempts()).toBe(3);
  expect(await rowsOf(app)).toEqual([{ applicationId: app, day: '2026-08-01', requests: 1, responseBytes: 5 }]);
});

it('counts a request whose byte count is not a valid number, without its bytes', async () => {
  const [app] = (await newApplications(1)) as [string];
  const counter = new TrafficCounter({ store: ctx.store, logger: capturingLogger().logger, now: () => new Date('2026-09-01T00:00:00Z') });
  counter.record(app, Number.NaN);
  counter.record(app, -1);
  counter.record(app, 2.5);
  counter.record(app, 3);
  await counter.flush();
  expect(await rowsOf(app)).toEqual([{ applicationId: app, day: '2026-09-01', requests: 4, responseBytes: 3 }]);
});

describe('operator traffic endpoint', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('shows the counts the edge flushed for today', async () => {
    const { slug } = await api.createApplication();
    const app = await api.store.run((r) => r.applications.findLiveBySlug(slug));
    if (!app) throw new Error('application missing');
    const counter = new TrafficCounter({ store: api.store, logger: capturingLogger().logger });
    for (let i = 0; i < 25; i += 1) counter.record(app.id, 400);
    await counter.stop();

    const res = await api.operator('GET', `/operator/v1/applications/${slug}/traffic?days=2`);
    expect(res.status).toBe(200);
    const day = (await api.store.run((r) => r.traffic.range(app.id, '2000-01-01', '2100-12-31')))[0]?.day;
    expect(res.body.days).toContainEqual({ date: day, requests: 25, response_bytes: 10_000 });
    expect(res.body.totals).toEqual({ requests: 25, response_bytes: 10_000 });
  });
});
