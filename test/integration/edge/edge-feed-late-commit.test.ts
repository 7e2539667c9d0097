// A commit that lands long after its write reaches every edge: the change
// feed's position is in the database's order of commits, not a clock. An
// application suspended in a transaction held open 30 s is served as
// suspended by two edges within 5 s of the commit. Before, the feed asked for
// what was stamped after its last read minus 10 s, and the suspension, stamped
// 30 s before it committed, was never read: both edges kept forwarding to the
// suspended application while their feeds stayed healthy.
// PostgreSQL has writers side by side: meanwhile another domain turns ready
// and reaches both edges, and the suspension, not committed, is not served.
// SQLite has one writer at a time: the held transaction stops every other
// write, and the edges' reads on the shared store (their feeds read on their
// own connections), so it is held just past the former 10 s and the edges
// are asked after the commit.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDataStore, type DataStore } from '@cds/data';
import { startEdge, type Edge, type EdgeObserver } from '@cds/edge-proxy';
import { silentLogger } from '@cds/logging';
import { eventually } from '../../support/eventually';
import { DATA_KEY, DEPLOYMENT_KEY, startEdgeFixture, type EdgeFixture } from './edge-fixture';

let f: EdgeFixture;
let other: { edge: Edge; store: DataStore; feedStore: DataStore };
/** Each edge's change feed reads so far. */
const feedReads = [0, 0];
const countingFeedReads = (edge: number) =>
  ({
    answered() {}, cacheLookup() {}, limited() {}, controlPlane() {}, connectionRefused() {},
    databaseRead(purpose: string) {
      if (purpose === 'feed') feedReads[edge]! += 1;
    },
  }) as unknown as EdgeObserver;

beforeAll(async () => {
  f = await startEdgeFixture({ bus: undefined, observer: countingFeedReads(0) }, { ownFeedStore: true });
  // A second edge as another process has it: its own pool and its own feed connection.
  const store = await f.db.openAnother();
  const feedStore = await createDataStore({ url: f.db.db.url, readOnly: true, poolSize: 1 });
  const edge = await startEdge({
    store, feedStore, observer: countingFeedReads(1), logger: silentLogger, traffic: { record: () => undefined }, httpsPort: 0, httpPort: 0, bindAddress: '127.0.0.1',
    dataEncryptionKey: DATA_KEY, deploymentKey: DEPLOYMENT_KEY, originTimeoutMs: 1_500,
  });
  other = { edge, store, feedStore };
});

afterAll(async () => {
  await other.edge.close(1_000);
  await other.feedStore.close();
  await f.close();
});

/** Plain HTTP to an edge: 308 (to HTTPS) for a served domain, 503 for a suspended one. */
function plain(edge: Edge, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: edge.httpPort, path: '/', headers: { host }, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const edges = () => [f.edge, other.edge];

/** Until each edge's feed has read twice more: what was written before has reached both. */
async function feedsCaughtUp(): Promise<void> {
  const before = [...feedReads];
  await eventually('two more feed reads on each edge', () => feedReads.every((n, i) => n >= before[i]! + 2), { timeoutMs: 5_000 });
}

/** Milliseconds until every edge answers `status` (body matching `body`) for `host`, failing after 5 s. */
async function onEveryEdgeWithin5s(host: string, status: number, body?: RegExp): Promise<number> {
  const started = Date.now();
  const answers = () => Promise.all(edges().map((edge) => plain(edge, host)));
  await eventually(`${status} for ${host} from both edges`, async () => (await answers()).every((a) => a.status === status && (body?.test(a.body) ?? true)), {
    timeoutMs: 5_000,
    intervalMs: 100,
    explain: async () => `the edges answered ${(await answers()).map((a) => a.status).join(' and ')}`,
  });
  return Date.now() - started;
}

it('serves an application suspended by a transaction held open 30 s as suspended on both edges within 5 s of the commit', async () => {
  const postgres = f.store.kind === 'postgres';
  const holdMs = postgres ? 30_000 : 12_000;
  const app = await f.addApplication();
  const domain = await f.addDomain(app.id);
  await onEveryEdgeWithin5s(domain.hostname, 308);
  // Once the feeds have brought the new rows (each drops the route), both edges read the route again and hold it:
  // while their feeds are current it is not read again.
  await feedsCaughtUp();
  await onEveryEdgeWithin5s(domain.hostname, 308);

  let commit: () => void = () => undefined;
  let wrote: () => void = () => undefined;
  const written = new Promise<void>((resolve) => (wrote = resolve));
  const holding = f.store.transaction(async (r) => {
    await r.applications.update(app.id, { status: 'suspended', updatedAt: new Date() });
    wrote();
    await new Promise<void>((resolve) => (commit = resolve));
  });
  await written;
  const heldAt = Date.now();
  if (postgres) {
    const later = await f.addDomain((await f.addApplication()).id);
    expect(await onEveryEdgeWithin5s(later.hostname, 308)).toBeLessThan(5_000);
    await feedsCaughtUp();
    expect((await Promise.all(edges().map((edge) => plain(edge, domain.hostname)))).map((a) => a.status)).toEqual([308, 308]);
  }
  await sleep(heldAt + holdMs - Date.now());
  commit();
  await holding;
  expect(Date.now() - heldAt).toBeGreaterThanOrEqual(holdMs);

  expect(await onEveryEdgeWithin5s(domain.hostname, 503, /suspended/i)).toBeLessThan(5_000);
});
