// The edge's database reads of names it holds nothing for are capped, and its
// change feed reads on a connection of its own. 5,000 names made to collide
// with a live hostname under the unkeyed hash LiveNames used before (anyone
// can make them: live hostnames are public) are sent over 10 s while every
// connection of the edge's pool is held: the keyed LiveNames answers them
// unknown without a read, the feed stays current, the reads stay within the
// budget, and the live domain is served throughout. With the feed stalled
// (LiveNames answering nothing), a name past the budget is answered 503 with
// Retry-After, or its handshake refused, instead of read, and the names
// already cached are served as before. An edge that starts cold reads the
// live names LiveNames vouches for whatever the budget.
import { randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import tls from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEdge, type EdgeObserver } from '@cds/edge-proxy';
import { silentLogger } from '@cds/logging';
import { eventually } from '../../support/eventually';
import { fnv1a30, fnvCollisions } from '../../support/fnv-collisions';
import { DATA_KEY, DEPLOYMENT_KEY, gatedStore, startEdgeFixture, type EdgeFixture, type GatedStore } from './edge-fixture';

type Purpose = 'route' | 'certificate' | 'key' | 'challenge' | 'feed' | 'names';

/** Small, so that the bound is tight: the edge's default is 500 a second. */
const MISS_READS = { perSecond: 20, burst: 40 };
/** The reads per cache, per second and burst, of names LiveNames answers unknown (a domain created a moment ago). */
const UNKNOWN_NAME_READS = { perSecond: 5, burst: 20 };

let f: EdgeFixture;
let feedGate: GatedStore;
const reads: Record<Purpose, number> = { route: 0, certificate: 0, key: 0, challenge: 0, feed: 0, names: 0 };
const observer = {
  answered() {}, cacheLookup() {}, limited() {}, controlPlane() {}, connectionRefused() {},
  databaseRead(purpose: Purpose) {
    reads[purpose] += 1;
  },
} as unknown as EdgeObserver;
const snapshot = () => ({ ...reads });
const since = (before: Record<Purpose, number>, ...purposes: Purpose[]) => purposes.reduce((sum, p) => sum + reads[p] - before[p], 0);
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

beforeAll(async () => {
  // Every client is 127.0.0.1: the cap per client address must not be what refuses them.
  f = await startEdgeFixture(
    { bus: undefined, observer, maxConnectionsPerClient: 20_000, missReads: MISS_READS },
    { ownFeedStore: (feed) => (feedGate = gatedStore(feed)).store },
  );
});
afterAll(async () => {
  agent.destroy();
  await f.close();
});

function hostAnswer(host: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: f.edge.httpPort, path: '/', headers: { host }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

function refusedHandshake(servername: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: f.edge.httpsPort, servername, ca: f.caPem, ALPNProtocols: ['http/1.1'] }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });
}

const randomName = () => `r${randomBytes(6).toString('hex')}.random.example`;

/** Holds every connection of the edge's pool (SQLite: its one connection) until released. */
async function saturatePool(): Promise<() => Promise<void>> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const connections = f.store.kind === 'postgres' ? 10 : 1;
  let held = 0;
  const holders = Array.from({ length: connections }, () => f.store.transaction(async () => {
    held += 1;
    await released;
  }));
  await eventually('every connection held', () => held === connections, { timeoutMs: 5_000 });
  return async () => {
    release();
    await Promise.all(holders);
  };
}

describe('names that collide under the former hash', () => {
  it('5,000 of them over 10 s, with the pool saturated: reads within the budget, the feed current, the live domain served', async () => {
    const app = await f.addApplication();
    const live = await f.addDomain(app.id);
    await eventually('the live domain served, and the live names loaded', async () => (await hostAnswer(live.hostname)).status === 308 && reads.names >= 1);
    // Once the feed has brought the domain's rows (each drops its cached route), the route is read one last time.
    const feedReads = reads.feed;
    await eventually('two more feed reads', () => reads.feed >= feedReads + 2, { timeoutMs: 5_000 });
    expect((await hostAnswer(live.hostname)).status).toBe(308);
    const names = fnvCollisions(live.hostname, 5_000);
    // The unkeyed 30-bit FNV-1a would have found each of them maybe live, and read it.
    expect(names.every((name) => fnv1a30(name) === fnv1a30(live.hostname))).toBe(true);

    const releasePool = await saturatePool();
    const before = snapshot();
    const started = Date.now();
    const hostAnswers: Array<Promise<{ status: number }>> = [];
    const handshakes: Array<Promise<boolean>> = [];
    // 500 a second: 400 by Host on plain HTTP, 100 by SNI (each would have cost a certificate and a route read).
    for (let second = 0; second < 10; second += 1) {
      for (const [i, name] of names.slice(second * 500, (second + 1) * 500).entries()) {
        if (i < 100) handshakes.push(refusedHandshake(name));
        else hostAnswers.push(hostAnswer(name));
      }
      await sleep(started + (second + 1) * 1_000 - Date.now());
    }
    const seconds = Math.ceil((Date.now() - started) / 1_000);
    const missReads = since(before, 'route', 'certificate');
    const feedReadsMeanwhile = since(before, 'feed');
    // Served from cache while no read can get a connection (an answer that waited for one would not come).
    const liveAnswer = await Promise.race([hostAnswer(live.hostname).then((a) => a.status), sleep(2_000).then(() => 'no answer in 2 s')]);
    await releasePool();
    console.log(`colliding names: ${names.length} over ${seconds} s with the pool saturated: ${missReads} route and certificate reads, ${feedReadsMeanwhile} feed reads, the live domain answered ${liveAnswer}`);
    expect(liveAnswer).toBe(308);

    expect(missReads).toBeLessThanOrEqual(MISS_READS.burst + MISS_READS.perSecond * seconds);
    // LiveNames answered them: only the few reads a second it allows for names just created were made.
    expect(missReads).toBeLessThanOrEqual(2 * (UNKNOWN_NAME_READS.burst + UNKNOWN_NAME_READS.perSecond * seconds));
    // The feed read about once a second on its own connection, and LiveNames could answer throughout.
    expect(feedReadsMeanwhile).toBeGreaterThanOrEqual(seconds - 3);
    expect(f.edge.controlPlane().reachable).toBe(true);
    expect((await Promise.all(hostAnswers)).every((a) => a.status === 404)).toBe(true);
    expect((await Promise.all(handshakes)).every(Boolean)).toBe(true);
    expect((await f.get(live.hostname)).status).toBe(200);
  });
});

describe('past the budget', () => {
  it('with the feed stalled, a name not cached is answered 503 with Retry-After or refused, and cached names are served', async () => {
    const app = await f.addApplication();
    const live = await f.addDomain(app.id);
    await eventually('the live domain served over HTTPS', async () => (await f.get(live.hostname).catch(() => null))?.status === 200);
    expect((await hostAnswer(live.hostname)).status).toBe(308);

    // The feed's reads wait: past 2 s LiveNames answers nothing, and every random name is a miss. Meanwhile the budget fills up.
    feedGate.hold();
    try {
      await sleep(3_000);
      const before = snapshot();
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 150 }, () => hostAnswer(randomName())));
      const refused = await Promise.all(Array.from({ length: 50 }, () => refusedHandshake(randomName())));
      const seconds = Math.ceil((Date.now() - started) / 1_000);
      const missReads = since(before, 'route', 'certificate');

      expect(missReads).toBeLessThanOrEqual(MISS_READS.burst + MISS_READS.perSecond * seconds);
      const unavailable = answers.filter((a) => a.status === 503);
      // Every name read was found unknown (404); every other one was answered without a read.
      expect(answers.filter((a) => a.status === 404).length).toBeLessThanOrEqual(missReads);
      expect(unavailable.length + answers.filter((a) => a.status === 404).length).toBe(150);
      expect(unavailable.length).toBeGreaterThanOrEqual(150 - MISS_READS.burst - MISS_READS.perSecond * seconds);
      expect(unavailable.every((a) => a.headers['retry-after'] === '1')).toBe(true);
      expect(refused.every(Boolean)).toBe(true);

      // The cached domain is served, over both listeners, the budget spent and the feed stalled.
      expect((await hostAnswer(live.hostname)).status).toBe(308);
      expect((await f.get(live.hostname)).status).toBe(200);
    } finally {
      feedGate.release();
    }
  });
});

describe('an edge that starts with an empty cache', () => {
  it('serves every live name LiveNames vouches for at once, however small the budget', async () => {
    const app = await f.addApplication();
    const domains = await Promise.all(Array.from({ length: 60 }, () => f.addDomain(app.id)));
    // A second edge on the same database, started after the domains exist: nothing cached, no change to mark them by.
    const coldReads = { names: 0, route: 0 };
    const cold = await startEdge({
      store: f.store, logger: silentLogger, traffic: { record: () => undefined }, httpsPort: 0, httpPort: 0, bindAddress: '127.0.0.1',
      dataEncryptionKey: DATA_KEY, deploymentKey: DEPLOYMENT_KEY, originTimeoutMs: 1_500, maxConnectionsPerClient: 20_000, missReads: { perSecond: 1, burst: 2 },
      observer: { ...observer, databaseRead: (purpose: Purpose) => void (purpose in coldReads && (coldReads[purpose as keyof typeof coldReads] += 1)) } as EdgeObserver,
    });
    try {
      await eventually('the cold edge to load the live names', () => coldReads.names >= 1, { timeoutMs: 10_000 });
      await sleep(1_500);
      const statuses = await Promise.all(domains.map((d) => new Promise<number>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: cold.httpPort, path: '/', headers: { host: d.hostname }, agent }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      })));
      // 60 route reads in a moment, 30 times the budget's burst: none refused, each read.
      expect(statuses.filter((status) => status !== 308)).toEqual([]);
      expect(coldReads.route).toBeGreaterThanOrEqual(60);
    } finally {
      await cold.close(1_000);
    }
  });
});
