// Operator API: traffic per UTC day (DECISIONS §4). Rows are written straight
// through the repository the edge will use.
import { expectError, expectValidationError, startTestApi, type TestApi } from '../../support/api-harness';

interface TrafficReport {
  slug: string;
  days: Array<{ date: string; requests: number; response_bytes: number }>;
  totals: { requests: number; response_bytes: number };
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The UTC day `offset` days before today, YYYY-MM-DD. */
const dayBefore = (offset: number) => new Date(Date.now() - offset * DAY_MS).toISOString().slice(0, 10);

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(async () => {
  await api?.close();
});

async function applicationWithTraffic(rows: Array<[offset: number, requests: number, bytes: number]>): Promise<string> {
  const { slug } = await api.createApplication();
  const app = await api.store.run((r) => r.applications.findLiveBySlug(slug));
  if (!app) throw new Error('application missing');
  for (const [offset, requests, bytes] of rows) await api.store.run((r) => r.traffic.addTraffic(app.id, dayBefore(offset), requests, bytes));
  return slug;
}

const traffic = (slug: string, query = '') => api.operator<TrafficReport>('GET', `/operator/v1/applications/${slug}/traffic${query}`);

it('answers the last 30 UTC days by default, oldest first, today included, zero days included', async () => {
  const slug = await applicationWithTraffic([[0, 5, 500], [2, 7, 700], [29, 1, 10], [30, 1000, 1000]]);
  const res = await traffic(slug);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['days', 'slug', 'totals']);
  expect(res.body.slug).toBe(slug);
  expect(res.body.days).toHaveLength(30);
  expect(res.body.days.map((d) => d.date)).toEqual(Array.from({ length: 30 }, (_, i) => dayBefore(29 - i)));
  expect(res.body.days[0]).toEqual({ date: dayBefore(29), requests: 1, response_bytes: 10 });
  expect(res.body.days[27]).toEqual({ date: dayBefore(2), requests: 7, response_bytes: 700 });
  expect(res.body.days[28]).toEqual({ date: dayBefore(1), requests: 0, response_bytes: 0 });
  expect(res.body.days[29]).toEqual({ date: dayBefore(0), requests: 5, response_bytes: 500 });
  expect(res.body.totals).toEqual({ requests: 13, response_bytes: 1210 });
});

it('adds up repeated flushes of a day and keeps counts beyond 32 bits', async () => {
  const slug = await applicationWithTraffic([[0, 1, 4_000_000_000], [0, 2, 4_000_000_000], [0, 3_000_000_000, 1]]);
  const res = await traffic(slug, '?days=1');
  expect(res.body.days).toEqual([{ date: dayBefore(0), requests: 3_000_000_003, response_bytes: 8_000_000_001 }]);
  expect(res.body.totals).toEqual({ requests: 3_000_000_003, response_bytes: 8_000_000_001 });
});

it('answers up to 400 days, and only the application’s own traffic', async () => {
  await applicationWithTraffic([[0, 99, 99], [10, 99, 99]]);
  const slug = await applicationWithTraffic([[399, 4, 40], [400, 8, 80]]);
  const res = await traffic(slug, '?days=400&unknown=1');
  expect(res.status).toBe(200);
  expect(res.body.days).toHaveLength(400);
  expect(res.body.days[0]).toEqual({ date: dayBefore(399), requests: 4, response_bytes: 40 });
  expect(res.body.totals).toEqual({ requests: 4, response_bytes: 40 });
  const empty = await traffic(slug, '?days=7');
  expect(empty.body.days.every((d) => d.requests === 0 && d.response_bytes === 0)).toBe(true);
  expect(empty.body.totals).toEqual({ requests: 0, response_bytes: 0 });
});

it.each(['0', '401', '-1', '1.5', 'abc', ''])('refuses days=%p', async (days) => {
  const { slug } = await api.createApplication();
  expectValidationError(await traffic(slug, `?days=${days}`), 'query', 'days');
});

it('answers 404 application_not_found for an unknown application', async () => {
  expectError(await traffic('no-such-app'), 404, 'application_not_found');
});
