// Certificates before cutover (DECISIONS §13): with ACME_DNS_ZONE a pending_dns
// domain may already have its certificate. The edge completes the handshake,
// answers 503 with Retry-After: 5, and asks for a check of the domain at once
// (`domain.check.requested`, reason `edge`), at most once per domain per 10 s;
// the domain is served once the check turns it ready. Without the zone nothing
// changes: no request, Retry-After as before.
import { setTimeout as sleep } from 'node:timers/promises';
import { ROUTING_KEYS, type DomainCheckRequestedPayload } from '@cds/core';
import type { Bus, ReceivedMessage } from '@cds/messaging';
import { eventually } from '../../support/eventually';
import { startEdgeFixture, type EdgeFixture } from './edge-fixture';
import { h2Get } from './h2-client';

const ZONE = 'acme.edge.example.com';
const PENDING_TEXT = 'This domain is not ready yet: its DNS records, certificate or origin are still being checked.\n';

/** The checks the edge asked for, as the checker's queue would get them. */
async function listen(bus: Bus): Promise<DomainCheckRequestedPayload[]> {
  const seen: DomainCheckRequestedPayload[] = [];
  await bus.subscribe({
    queue: 'checker',
    routingKeys: [ROUTING_KEYS.domainCheckRequested],
    handler: async (message: ReceivedMessage) => {
      if (message.routingKey === ROUTING_KEYS.domainCheckRequested) seen.push(message.payload);
    },
  });
  return seen;
}

/** What the bus carries settles quickly in process: a short wait shows nothing more comes. */
const quietly = () => sleep(300);

describe('with ACME_DNS_ZONE', () => {
  let f: EdgeFixture;
  let app: { id: string; slug: string };
  let seen: DomainCheckRequestedPayload[];

  beforeAll(async () => {
    f = await startEdgeFixture({ acmeDnsZone: ZONE });
    app = await f.addApplication();
    seen = await listen(f.bus);
  });
  afterAll(() => f.close());

  it('a pending_dns domain with a certificate: the handshake succeeds, 503 with Retry-After: 5, and one check is asked for', async () => {
    const d = await f.addDomain(app.id, { status: 'pending_dns' });
    const answer = await f.get(d.hostname);
    expect(answer.certificate.subject.CN).toBe(d.hostname);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.body).toBe(PENDING_TEXT);
    await eventually('the check request on the bus', () => seen.some((p) => p.domain_id === d.id));
    expect(seen.filter((p) => p.domain_id === d.id)).toEqual([{ domain_id: d.id, application_id: app.id, reason: 'edge' }]);
  });

  it('20 requests within 10 s (HTTP/1.1 and HTTP/2) ask once; every one is answered 503 with Retry-After: 5', async () => {
    const d = await f.addDomain(app.id, { status: 'pending_dns' });
    // The first one alone (a name created a moment ago is read once), then 19 at once.
    const answers: Array<{ status: number; headers: Record<string, unknown> }> = [await f.get(d.hostname)];
    answers.push(...await Promise.all([
      ...Array.from({ length: 9 }, () => f.get(d.hostname)),
      ...Array.from({ length: 10 }, () => h2Get(f.edge.httpsPort, d.hostname, f.caPem)),
    ]));
    expect(answers.map((a) => [a.status, a.headers['retry-after']])).toEqual(Array.from({ length: 20 }, () => [503, '5']));
    await eventually('the check request on the bus', () => seen.some((p) => p.domain_id === d.id));
    await quietly();
    expect(seen.filter((p) => p.domain_id === d.id)).toHaveLength(1);
  });

  it('over plain HTTP too: 503 with Retry-After: 5 and one check asked for', async () => {
    const d = await f.addDomain(app.id, { status: 'pending_dns' });
    for (let i = 0; i < 3; i++) {
      const answer = await f.plain(d.hostname);
      expect([answer.status, answer.headers['retry-after']]).toEqual([503, '5']);
    }
    await eventually('the check request on the bus', () => seen.some((p) => p.domain_id === d.id));
    await quietly();
    expect(seen.filter((p) => p.domain_id === d.id)).toEqual([{ domain_id: d.id, application_id: app.id, reason: 'edge' }]);
  });

  it('the domain is served within seconds of turning ready, with no failed handshake on the way', async () => {
    const d = await f.addDomain(app.id, { status: 'pending_dns' });
    expect((await f.get(d.hostname)).status).toBe(503);
    await eventually('the check request on the bus', () => seen.some((p) => p.domain_id === d.id));
    // What the checker's run does once it sees routing pass.
    await f.store.run((r) => r.domains.update(app.id, d.id, { status: 'ready' }));
    const started = Date.now();
    await eventually('200 from the edge', async () => (await f.get(d.hostname)).status === 200, { timeoutMs: 5_000, intervalMs: 100 });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('asks nothing for a ready domain, an attention_required one or an unknown name', async () => {
    const ready = await f.addDomain(app.id);
    const attention = await f.addDomain(app.id, { status: 'attention_required' });
    const before = seen.length;
    expect((await f.get(ready.hostname)).status).toBe(200);
    const a = await f.get(attention.hostname);
    expect([a.status, a.headers['retry-after']]).toEqual([503, '60']);
    expect((await f.plain('nobody.example.org')).status).toBe(404);
    await quietly();
    expect(seen.length).toBe(before);
  });
});

describe('with ACME_DNS_ZONE and a bus that cannot publish', () => {
  let f: EdgeFixture;

  afterAll(() => f.close());

  it('answers as before: the request neither waits for nor fails with the publish', async () => {
    const failing: Bus = {
      publish: () => Promise.reject(new Error('not connected to the broker (connecting)')),
      subscribe: () => Promise.resolve({ cancel: () => Promise.resolve() }),
      healthy: () => false,
      close: () => Promise.resolve(),
    };
    f = await startEdgeFixture({ acmeDnsZone: ZONE, bus: failing });
    const app = await f.addApplication();
    const d = await f.addDomain(app.id, { status: 'pending_dns' });
    for (let i = 0; i < 3; i++) {
      const answer = await f.get(d.hostname);
      expect([answer.status, answer.headers['retry-after'], answer.body]).toEqual([503, '5', PENDING_TEXT]);
    }
    expect((await f.plain(d.hostname)).status).toBe(503);
  });
});

describe('without ACME_DNS_ZONE', () => {
  let f: EdgeFixture;
  let app: { id: string; slug: string };
  let seen: DomainCheckRequestedPayload[];

  beforeAll(async () => {
    f = await startEdgeFixture();
    app = await f.addApplication();
    seen = await listen(f.bus);
  });
  afterAll(() => f.close());

  it('a pending_dns domain with a certificate answers 503 with Retry-After: 60 as before, and no check is asked for', async () => {
    const d = await f.addDomain(app.id, { status: 'pending_dns' });
    for (let i = 0; i < 5; i++) {
      const answer = await f.get(d.hostname);
      // The first handshake shows the certificate; the next ones resume its session.
      if (i === 0) expect(answer.certificate.subject.CN).toBe(d.hostname);
      expect([answer.status, answer.headers['retry-after'], answer.body]).toEqual([503, '60', PENDING_TEXT]);
    }
    const plain = await f.plain(d.hostname);
    expect([plain.status, plain.headers['retry-after']]).toEqual([503, '60']);
    await quietly();
    expect(seen).toEqual([]);
  });
});
