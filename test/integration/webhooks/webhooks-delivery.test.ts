// Deliveries to a real HTTPS receiver: signatures an independent verifier
// (the stripe package) accepts, rotation overlap, retries on the configured
// schedule, abandonment, redirects, replays, revocation and idempotent fan-out.
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import Stripe from 'stripe';
import { ROUTING_KEYS } from '@cds/core';
import { expectError } from '../../support/api-harness';
import { sampleDomainResource } from '../../support/domain-resource';
import { startSlowBodyReceiver, type ReceivedRequest } from '../../support/webhook-receiver';
import { eventually } from '../../support/eventually';
import { startWebhookStack, type Subscription, type WebhookStack } from './webhook-stack';

const stripe = new Stripe('sk_test_unused');
const TOLERANCE_S = 300;
const KIB = 1024;

/** The default size of a TCP socket's receive or send buffer (`tcp_rmem`/`tcp_wmem`, middle value); `fallback` where /proc does not say. */
function defaultSocketBuffer(kind: 'rmem' | 'wmem', fallback: number): number {
  try {
    const value = Number(readFileSync(`/proc/sys/net/ipv4/tcp_${kind}`, 'utf8').trim().split(/\s+/)[1]);
    return Number.isFinite(value) && value > 0 ? value : fallback;
  } catch {
    return fallback;
  }
}

let stack: WebhookStack;
let app: { slug: string; key: string; id: string };

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '3s' });
});
// Each test its own application: its events reach only its own subscriptions.
beforeEach(async () => {
  app = await stack.application();
});
afterAll(() => stack?.close());

const received = (path: string, count: number, timeoutMs = 20_000) =>
  eventually(`${count} request(s) at ${path}`, () => stack.receiver.to(path).length >= count && stack.receiver.to(path), { timeoutMs });

const signatures = (request: ReceivedRequest) => String(request.headers['x-custom-domain-signature']).split(',');

function expectSignedBy(request: ReceivedRequest, secret: string): void {
  const header = String(request.headers['x-custom-domain-signature']);
  const event = stripe.webhooks.constructEvent(request.body, header, secret, TOLERANCE_S) as unknown as { id: string };
  expect(event.id).toBe(request.headers['x-custom-domain-event-id']);
}

describe('a delivery', () => {
  it("is a signed POST of the event that stripe's verifier accepts, with the contract's headers", async () => {
    const sub = await stack.subscribe(app.key, '/signed');
    const domain = sampleDomainResource({ hostname: 'shop.customer.example', metadata: { plan: 'pro' } });
    const eventId = await stack.emit(app.id, 'domain.ready', domain);
    const [request] = await received('/signed', 1);
    if (!request) throw new Error('no request');

    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('custom-domain-service-webhooks/1');
    expect(request.headers['x-custom-domain-event']).toBe('domain.ready');
    expect(request.headers['x-custom-domain-event-id']).toBe(eventId);
    const body = JSON.parse(request.body);
    expect(Object.keys(body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(body).toMatchObject({ id: eventId, type: 'domain.ready', data: { domain } });
    expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);

    const [t, v1, ...more] = signatures(request);
    expect(more).toEqual([]);
    expect(Math.abs(Number(t?.slice(2)) - Date.now() / 1000)).toBeLessThan(30);
    expect(v1).toBe(`v1=${createHmac('sha256', sub.secret).update(`${t?.slice(2)}.${request.body}`).digest('hex')}`);
    expectSignedBy(request, sub.secret);
    expect(() => stripe.webhooks.constructEvent(request.body, String(request.headers['x-custom-domain-signature']), 'whsec_wrong', TOLERANCE_S)).toThrow(/signature/i);
    expect(() => stripe.webhooks.constructEvent(request.body.replace('ready', 'deleted'), String(request.headers['x-custom-domain-signature']), sub.secret, TOLERANCE_S)).toThrow(/signature/i);

    const [record] = await eventually('the delivered record', async () => {
      const list = await stack.deliveries(app.key, sub.id);
      return list[0]?.state === 'delivered' && list;
    });
    expect(record).toMatchObject({ event_id: eventId, event_type: 'domain.ready', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null, replay_of: null });
    expect(record?.delivered_at).toEqual(expect.any(String));
  });

  it('carries the domain as the API showed it when a real DELETE emits domain.deleted', async () => {
    await stack.subscribe(app.key, '/deleted', { events: ['domain.deleted'] });
    const created = await stack.api.request('POST', '/v1/domains', { token: app.key, body: { hostname: 'gone.customer-shop.com', reference: 'ws_1' } });
    expect(created.status).toBe(201);
    const deleted = await stack.api.request('DELETE', `/v1/domains/${created.body.id}`, { token: app.key });
    expect(deleted.status).toBe(202);
    const [request] = await received('/deleted', 1);
    const body = JSON.parse(request?.body ?? '{}');
    expect(body.type).toBe('domain.deleted');
    expect(body.data.domain).toEqual(deleted.body);
  });

  it('goes only to active subscriptions of the event\'s application that want its type', async () => {
    const wants = await stack.subscribe(app.key, '/match', { events: ['domain.recovered'] });
    const otherType = await stack.subscribe(app.key, '/other-type', { events: ['domain.ready'] });
    const revoked = await stack.subscribe(app.key, '/revoked-before', { events: ['domain.recovered'] });
    await stack.api.request('DELETE', `/v1/webhooks/${revoked.id}`, { token: app.key });
    const other = await stack.application();
    const otherApp = await stack.subscribe(other.key, '/other-app', { events: ['domain.recovered'] });

    const eventId = await stack.emit(app.id, 'domain.recovered');
    await received('/match', 1);
    // The event is fanned out: every delivery it makes exists now, and only the matching subscription has one.
    await stack.settled();
    expect(await stack.deliveries(app.key, otherType.id)).toEqual([]);
    expect(await stack.deliveries(app.key, revoked.id)).toEqual([]);
    expect(await stack.deliveries(other.key, otherApp.id)).toEqual([]);
    expect(stack.receiver.to('/match').map((r) => r.headers['x-custom-domain-event-id'])).toEqual([eventId]);
    expect(stack.receiver.to('/other-type').filter((r) => r.headers['x-custom-domain-event-id'] === eventId)).toEqual([]);
    expect(stack.receiver.to('/revoked-before')).toEqual([]);
    expect(stack.receiver.to('/other-app')).toEqual([]);
    expect(await stack.deliveries(app.key, wants.id)).toHaveLength(1);
  });

  it('is created once however often its event.emitted message arrives', async () => {
    const sub = await stack.subscribe(app.key, '/once', { events: ['domain.attention_required'] });
    const payload = {
      event_id: randomUUID(), type: 'domain.attention_required', application_id: app.id,
      created_at: new Date().toISOString().replace('Z', '+00:00'), data: { domain: sampleDomainResource() },
    };
    await stack.bus.publish(ROUTING_KEYS.eventEmitted, payload, { messageId: 'm1' });
    await stack.bus.publish(ROUTING_KEYS.eventEmitted, payload, { messageId: 'm1' });
    await stack.bus.publish(ROUTING_KEYS.eventEmitted, payload, { messageId: 'm2' });
    await received('/once', 1);
    // Every copy of the message has been handled, and the one delivery is done.
    await stack.bus.whenIdle();
    await eventually('delivered', async () => (await stack.deliveries(app.key, sub.id))[0]?.state === 'delivered');
    expect(stack.receiver.to('/once')).toHaveLength(1);
    expect(await stack.deliveries(app.key, sub.id)).toHaveLength(1);
  });

  it('reads at most 64 KiB of the answer: a 2xx with an endless body is delivered', async () => {
    stack.receiver.script('/endless', [{ endlessBody: true }]);
    const sub = await stack.subscribe(app.key, '/endless');
    const started = Date.now();
    await stack.emit(app.id, 'domain.ready');
    await eventually('delivered', async () => (await stack.deliveries(app.key, sub.id))[0]?.state === 'delivered');
    expect(Date.now() - started).toBeLessThan(3000); // well before WEBHOOK_TIMEOUT
    expect((await stack.deliveries(app.key, sub.id))[0]).toMatchObject({ attempts: 1, last_status_code: 200 });
  });

  it('reads at most 64 KiB of the answer: of a 16 MiB 2xx body streamed slowly, the connection takes ~64 KiB, then is closed', async () => {
    const totalBytes = 16 * 1024 * KIB;
    // 4 KiB every 5 ms (about 800 KB/s): a client that kept reading would take
    // some 2.4 MB before WEBHOOK_TIMEOUT (3 s), the whole body in about 20 s.
    const slow = await startSlowBodyReceiver(stack.ca, { totalBytes, chunkBytes: 4 * KIB, intervalMs: 5, stallMs: 1000 });
    try {
      // The slow receiver has the stack's CA and listens on another port.
      const created = await stack.api.request('POST', '/v1/webhooks', { token: app.key, body: { url: slow.url('/slow-body'), events: ['domain.ready'] } });
      expect(created.status).toBe(201);
      await stack.emit(app.id, 'domain.ready');
      const [answer] = await eventually('the slow answer to end', () => slow.answers.length >= 1 && slow.answers, { timeoutMs: 15_000 });
      const [record] = await eventually('delivered', async () => {
        const list = await stack.deliveries(app.key, created.body.id);
        return list[0]?.state === 'delivered' && list;
      });
      expect(record).toMatchObject({ attempts: 1, last_status_code: 200, last_error: null });
      expect(slow.requests).toHaveLength(1);

      // What the connection took = what the dispatcher read + what sat unread in
      // the two socket buffers when it closed. The dispatcher reads at most
      // 64 KiB, give or take the chunk that crosses the limit (a TLS record
      // carries at most 16 KiB); the buffers hold at most their default sizes,
      // since a reader that keeps up at this pace never lets them grow
      // (receive buffer of the dispatcher's socket: tcp_rmem; send buffer of
      // the receiver's: tcp_wmem). On Linux defaults: 64 + 16 + 128 + 16 = 224 KiB.
      const bound = 64 * KIB + 16 * KIB + defaultSocketBuffer('rmem', 128 * KIB) + defaultSocketBuffer('wmem', 16 * KIB);
      console.log(`slow 2xx body: ${answer?.bytesTaken} of ${totalBytes} bytes taken before the connection ${answer?.end} after ${answer?.ms} ms (bound ${bound})`);
      // Closed by the dispatcher once it had its 64 KiB, long before WEBHOOK_TIMEOUT (3 s) and before the body ended.
      expect(answer?.end).toBe('closed');
      expect(answer?.ms).toBeLessThan(2000);
      expect(answer?.bytesTaken).toBeGreaterThanOrEqual(64 * KIB);
      expect(answer?.bytesTaken).toBeLessThanOrEqual(bound);
      expect(bound).toBeLessThan(totalBytes / 32);
    } finally {
      await slow.close();
    }
  });
});

describe('rotation', () => {
  it('signs with both secrets during the overlap, and with three after two rotations', async () => {
    const sub = await stack.subscribe(app.key, '/rotate');
    const rotated = (await stack.api.request('POST', `/v1/webhooks/${sub.id}/rotate`, { token: app.key })).body as Subscription;
    await stack.emit(app.id, 'domain.ready');
    const [first] = await received('/rotate', 1);
    if (!first) throw new Error('no request');
    const [t, ...v1s] = signatures(first);
    expect(t).toMatch(/^t=\d+$/);
    expect(v1s).toHaveLength(2);
    const sign = (secret: string) => `v1=${createHmac('sha256', secret).update(`${t?.slice(2)}.${first.body}`).digest('hex')}`;
    // One v1 per secret, the new one first.
    expect(v1s).toEqual([sign(rotated.secret), sign(sub.secret)]);
    expectSignedBy(first, rotated.secret);
    expectSignedBy(first, sub.secret);

    const again = (await stack.api.request('POST', `/v1/webhooks/${sub.id}/rotate`, { token: app.key })).body as Subscription;
    await stack.emit(app.id, 'domain.ready');
    const [, second] = await received('/rotate', 2);
    if (!second) throw new Error('no second request');
    expect(signatures(second)).toHaveLength(4);
    for (const secret of [again.secret, rotated.secret, sub.secret]) expectSignedBy(second, secret);
  });
});

describe('retries', () => {
  it('delivers on attempt 4 to a receiver that answers 500 three times, then 200', async () => {
    stack.receiver.script('/flaky', [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 200 }]);
    const sub = await stack.subscribe(app.key, '/flaky');
    const eventId = await stack.emit(app.id, 'domain.ready');
    await eventually('delivered', async () => (await stack.deliveries(app.key, sub.id))[0]?.state === 'delivered');
    const requests = stack.receiver.to('/flaky');
    expect(requests).toHaveLength(4);
    expect(new Set(requests.map((r) => r.headers['x-custom-domain-event-id']))).toEqual(new Set([eventId]));
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    // The retry schedule (100 ms) spaces the attempts.
    for (let i = 1; i < 4; i++) expect((requests[i] as ReceivedRequest).at - (requests[i - 1] as ReceivedRequest).at).toBeGreaterThanOrEqual(90);
    const [record] = await stack.deliveries(app.key, sub.id);
    expect(record).toMatchObject({ attempts: 4, last_status_code: 200, last_error: null, next_attempt_at: null });
    const history = await stack.api.store.run((r) => r.webhookDeliveries.attemptsOf(record?.id as string));
    expect(history.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, 'receiver answered HTTP 500'], [2, 500, 'receiver answered HTTP 500'], [3, 500, 'receiver answered HTTP 500'], [4, 200, null],
    ]);
  });

  it('abandons after 8 attempts at a receiver that always answers 500', async () => {
    stack.receiver.script('/down', [{ status: 500, body: 'boom' }]);
    const sub = await stack.subscribe(app.key, '/down');
    await stack.emit(app.id, 'domain.ready');
    const [record] = await eventually('abandoned', async () => {
      const list = await stack.deliveries(app.key, sub.id);
      return list[0]?.state === 'abandoned' && list;
    });
    expect(record).toMatchObject({ attempts: 8, last_status_code: 500, last_error: 'receiver answered HTTP 500', next_attempt_at: null, delivered_at: null });
    await sleep(600); // no ninth attempt for 600 ms (six retry periods): the quiet is what is checked
    expect(stack.receiver.to('/down')).toHaveLength(8);
  });

  it('counts a 3xx as a failure and never follows the redirect', async () => {
    stack.receiver.script('/moved', [{ status: 302, headers: { location: stack.receiver.url('/target') } }, { status: 200 }]);
    const sub = await stack.subscribe(app.key, '/moved');
    await stack.emit(app.id, 'domain.ready');
    await eventually('delivered', async () => (await stack.deliveries(app.key, sub.id))[0]?.state === 'delivered');
    expect(stack.receiver.to('/moved')).toHaveLength(2);
    expect(stack.receiver.to('/target')).toHaveLength(0);
    const [record] = await stack.deliveries(app.key, sub.id);
    const history = await stack.api.store.run((r) => r.webhookDeliveries.attemptsOf(record?.id as string));
    expect(history.map((a) => [a.statusCode, a.error])).toEqual([[302, 'receiver answered HTTP 302; redirects are not followed'], [200, null]]);
  });
});

describe('replays', () => {
  it('replays one delivery as a new delivery of the same event', async () => {
    const sub = await stack.subscribe(app.key, '/replay-one');
    const eventId = await stack.emit(app.id, 'domain.ready');
    const [original] = await eventually('delivered', async () => {
      const list = await stack.deliveries(app.key, sub.id);
      return list[0]?.state === 'delivered' && list;
    });
    const res = await stack.api.request('POST', `/v1/webhooks/${sub.id}/deliveries/${original?.id}/replay`, { token: app.key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ event_id: eventId, replay_of: original?.id, state: 'pending' });
    const [first, second] = await received('/replay-one', 2);
    expect(second?.headers['x-custom-domain-event-id']).toBe(eventId);
    expect(second?.body).toBe(first?.body);
    await eventually('the replay delivered', async () => (await stack.deliveries(app.key, sub.id)).find((d) => d.id === res.body.id)?.state === 'delivered');
  });

  it('re-queues every delivery since a time, delivered and undelivered', async () => {
    // The first event is delivered, the second is abandoned after 8 answers of 500; then the receiver recovers.
    stack.receiver.script('/since', [{ status: 200 }, ...Array.from({ length: 8 }, () => ({ status: 500 })), { status: 200 }]);
    const sub = await stack.subscribe(app.key, '/since');
    const since = new Date().toISOString();
    const delivered = await stack.emit(app.id, 'domain.ready');
    await eventually('first delivered', async () => (await stack.deliveries(app.key, sub.id))[0]?.state === 'delivered');
    const abandoned = await stack.emit(app.id, 'domain.ready');
    await eventually('second abandoned', async () => (await stack.deliveries(app.key, sub.id)).some((d) => d.state === 'abandoned'));

    const res = await stack.api.request('POST', `/v1/webhooks/${sub.id}/replay?since=${encodeURIComponent(since)}`, { token: app.key });
    expect(res.status).toBe(202);
    expect(res.body.replayed).toBe(2);
    await eventually('both replays delivered', async () => {
      const list = await stack.deliveries(app.key, sub.id);
      return (res.body.delivery_ids as string[]).every((id) => list.find((d) => d.id === id)?.state === 'delivered');
    });
    const ids = stack.receiver.to('/since').map((r) => r.headers['x-custom-domain-event-id']);
    expect(ids.filter((id) => id === delivered)).toHaveLength(2);
    expect(ids.filter((id) => id === abandoned)).toHaveLength(9);
  });
});

describe('revocation', () => {
  it('abandons the pending delivery, sends nothing more and keeps the history readable', async () => {
    stack.receiver.script('/slow', [{ hang: true }]);
    const sub = await stack.subscribe(app.key, '/slow');
    await stack.emit(app.id, 'domain.ready');
    await received('/slow', 1);
    const revoked = await stack.api.request('DELETE', `/v1/webhooks/${sub.id}`, { token: app.key });
    expect(revoked.status).toBe(200);
    const [record] = await stack.deliveries(app.key, sub.id);
    expect(record).toMatchObject({ state: 'abandoned', last_error: 'subscription revoked', next_attempt_at: null });

    // The attempt running at the revocation times out (WEBHOOK_TIMEOUT 3 s) and is recorded; no other follows.
    await eventually('the running attempt recorded', async () => (await stack.deliveries(app.key, sub.id))[0]?.attempts === 1, { timeoutMs: 10_000 });
    await sleep(500); // no other attempt for 500 ms (five retry periods): the quiet is what is checked
    expect(stack.receiver.to('/slow')).toHaveLength(1);
    const [after] = await stack.deliveries(app.key, sub.id);
    expect(after).toMatchObject({ state: 'abandoned', attempts: 1, last_error: 'subscription revoked' });
    const history = await stack.api.store.run((r) => r.webhookDeliveries.attemptsOf(after?.id as string));
    expect(history.map((a) => a.error)).toEqual(['no answer within 3000 ms']);

    await stack.emit(app.id, 'domain.ready');
    // Fanned out: a delivery for the revoked subscription would exist by now.
    await stack.settled();
    expect(stack.receiver.to('/slow')).toHaveLength(1);
    expect(await stack.deliveries(app.key, sub.id)).toHaveLength(1);
    expectError(await stack.api.request('POST', `/v1/webhooks/${sub.id}/deliveries/${after?.id}/replay`, { token: app.key }), 409, 'invalid_status_transition');
  });
});
