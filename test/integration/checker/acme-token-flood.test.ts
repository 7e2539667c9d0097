// Random ACME tokens must not starve real validations. A child process sends
// 5,000 well-formed random tokens a second to the edge's plain-HTTP port
// (from other loopback addresses than Pebble's, as an attacker would) while
// a domain gets its certificate from Pebble: Pebble's request for the real
// token is answered 200 within 1 s, as the edge measured it, and the first
// order succeeds. Then: an order that failed because the CA got our edge's
// 503 is not counted against the hostname; one that got a 404 is.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { AcmeIssuer, IssuanceError } from '@cds/checker';
import type { EdgeObserver } from '@cds/edge-proxy';
import { orderNames } from './acme-proxy';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import { check, publishRecords, registerDomain, waitForDomain } from './checker-stack';

const RATE = 5_000;
/** Loopback addresses the flood comes from: Pebble validates from 127.0.0.1, and each address has its own connection cap. */
const FLOOD_SOURCES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8', '127.0.0.9'];
const FLOOD_CONNECTIONS = 128;
/** The flood runs this long before the domain is registered, so that it is at full rate (and any queue full) when the order runs. */
const WARM_UP_MS = 5_000;

interface FloodReport {
  sent: number;
  seconds: number;
  answered: Record<string, number>;
  reconnects: number;
}

/** What the edge reported: every HTTP-01 answer by status, the seconds of each 200, and its challenge reads. */
const seen = { answers: new Map<number, number>(), realSeconds: [] as number[], challengeReads: 0 };
const observer: EdgeObserver = {
  answered() {},
  cacheLookup() {},
  limited() {},
  controlPlane() {},
  connectionRefused() {},
  databaseRead(purpose) {
    if (purpose === 'challenge') seen.challengeReads += 1;
  },
  challengeAnswered(status, seconds) {
    seen.answers.set(status, (seen.answers.get(status) ?? 0) + 1);
    // Random tokens are never stored: a 200 is Pebble's request for a real one.
    if (status === 200) seen.realSeconds.push(seconds);
  },
};

let stack: AcmeStack;

beforeAll(async () => {
  stack = await startAcmeStack({ edgeObserver: observer });
});

afterAll(() => stack?.stop());

function startFlood(port: number): { child: ChildProcess; stop(): Promise<FloodReport> } {
  const child = fork(join(__dirname, 'token-flood.js'), [String(port), String(RATE), '180', String(FLOOD_CONNECTIONS), FLOOD_SOURCES.join(',')], { stdio: 'inherit' });
  const report = new Promise<FloodReport>((resolve, reject) => {
    child.once('message', (message) => resolve(message as FloodReport));
    child.once('exit', (code) => reject(new Error(`the flood exited (${code}) without a report`)));
  });
  return {
    child,
    stop: () => {
      child.send('stop');
      return report;
    },
  };
}

const failedOrders = (hostname: string) => stack.api.store.run(async (r) => (await r.rateCounters.peek(`acme:failed:${hostname}`, 3600, new Date())).count);

test('5,000 random ACME tokens a second during a Pebble order: the real token is answered 200 within 1 s and the first order succeeds', async () => {
  const { api, app, dns, proxy, edge } = stack;
  const flood = startFlood(edge.httpPort);
  let report: FloodReport | null = null;
  try {
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
    const readsFrom = seen.challengeReads;
    const floodFrom = Date.now();
    const domain = await registerDomain(api, app.key, `shop.flood-${process.pid}.com`);
    await publishRecords(dns, domain);
    const ready = await waitForDomain(api, app.key, domain.id, (d) => d.status === 'ready' || check(d, 'certificate').status === 'failing', 120_000).catch((err: unknown) => {
      // What the order was doing, for a run that stalls.
      throw new Error(`${String(err)}\nedge answers: ${JSON.stringify(Object.fromEntries(seen.answers))}, ACME requests: ${JSON.stringify(proxy.orders().map(orderNames))}\nchecker: ${stack.checkerLog.slice(-20).join('\n')}`);
    });
    const floodSeconds = (Date.now() - floodFrom) / 1000;
    report = await flood.stop();
    const sent = report.sent;
    const answered = Object.values(report.answered).reduce((a, b) => a + b, 0);
    console.log(`flood: ${sent} sent in ${report.seconds.toFixed(1)} s (${Math.round(sent / report.seconds)}/s), answered ${JSON.stringify(report.answered)}, reconnects ${report.reconnects}; ` +
      `edge: answers ${JSON.stringify(Object.fromEntries(seen.answers))}, real token answered in ${JSON.stringify(seen.realSeconds.map((s) => Math.round(s * 1000)))} ms, ` +
      `${seen.challengeReads - readsFrom} challenge reads in ${floodSeconds.toFixed(1)} s`);

    // The flood ran at the rate, and the edge kept up with it, answering 404 (never "unavailable").
    expect(sent / report.seconds).toBeGreaterThanOrEqual(RATE * 0.97);
    expect(answered).toBeGreaterThanOrEqual(sent * 0.95);
    expect(Object.keys(report.answered)).toEqual(['404']);
    // The order: the domain is ready with its certificate, from the first order, and no failure counted.
    expect(ready.status).toBe('ready');
    expect(check(ready, 'certificate').status).toBe('passing');
    expect(proxy.orders().map(orderNames).filter((names) => names.includes(domain.hostname))).toEqual([[domain.hostname]]);
    expect(await failedOrders(domain.hostname)).toBe(0);
    // Pebble's request for the real token: answered 200 within 1 s.
    expect(seen.realSeconds.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...seen.realSeconds)).toBeLessThan(1);
    // One read served every waiting token: at most 5 a second.
    expect(seen.challengeReads - readsFrom).toBeLessThanOrEqual(5 * Math.ceil(floodSeconds) + 1);
  } finally {
    if (!report) await flood.stop().catch(() => undefined);
  }
});

test("an order whose validation got our edge's 503 is not counted against the hostname; one that got a 404 is", async () => {
  const { api, dns, pebble, proxy, edge } = stack;
  const httpPort = edge.httpPort;
  await stack.closeEdge();
  // In the edge's place, a listener that answers every challenge as the edge does when it cannot look tokens up.
  let status = 503;
  const standIn = http.createServer((_req, res) => res.writeHead(status, { 'content-type': 'text/plain' }).end('ACME challenges are unavailable for a moment.\n'));
  await new Promise<void>((resolve) => standIn.listen(httpPort, '127.0.0.1', resolve));
  try {
    const issuer = new AcmeIssuer({
      store: api.store, encryptionKey: api.config.dataEncryptionKey, directoryUrl: proxy.directoryUrl, email: null, caBundle: pebble.caBundle, dnsServers: [dns.server],
      orderBudget: { perHour: 100, perApplicationPerHour: 20 },
    });
    const orderFailure = (hostname: string) => issuer.issue(hostname, null, randomUUID()).then(() => null, (err: unknown) => err);

    const unavailable = `unavailable.flood-${process.pid}.com`;
    const first = await orderFailure(unavailable);
    expect(first).toBeInstanceOf(IssuanceError);
    expect((first as IssuanceError).message).toMatch(/returned 503$/);
    expect(await failedOrders(unavailable)).toBe(0);

    status = 404;
    const unknown = `unknown.flood-${process.pid}.com`;
    const second = await orderFailure(unknown);
    expect((second as IssuanceError).message).toMatch(/returned 404$/);
    expect(await failedOrders(unknown)).toBe(1);
  } finally {
    await new Promise<void>((resolve) => standIn.close(() => resolve()));
  }
});
