// The webhook dispatcher's metrics against a real HTTPS receiver: attempts by
// the state they left the delivery in, their latency, and the events it
// consumed with their lag.
import { randomUUID } from 'node:crypto';
import { ROUTING_KEYS } from '@cds/core';
import { sampleDomainResource } from '../../support/domain-resource';
import { eventually } from '../../support/eventually';
import { startWebhookStack, type WebhookStack } from '../webhooks/webhook-stack';
import { sample } from './scrape';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_RETRY_SCHEDULE: '50ms', WEBHOOK_TIMEOUT: '3s' });
});
afterAll(() => stack?.close());

const attempts = (state: string) => sample('cds_webhook_deliveries_total', `state="${state}"`);

test('every state and the consumer are there at zero before the first delivery', async () => {
  for (const state of ['delivered', 'failed', 'abandoned']) {
    expect(await attempts(state)).toBe(0);
    expect(await sample('cds_webhook_delivery_duration_seconds_count', `state="${state}"`)).toBe(0);
  }
  expect(await sample('cds_messages_consumed_total', 'consumer="webhook-dispatcher",outcome="ack"')).toBe(0);
  expect(await sample('cds_messages_consumed_total', 'consumer="webhook-dispatcher",outcome="retry"')).toBe(0);
  expect(await sample('cds_consumer_lag_seconds_count', 'consumer="webhook-dispatcher"')).toBe(0);
});

test('counts a delivery, its failed attempts and an abandoned one, with their latency, and each consumed event with its lag', async () => {
  const app = await stack.application();
  // Two failed attempts, then delivered; and a receiver that never recovers (8 attempts, the last one abandons).
  stack.receiver.script('/flaky', [{ status: 503 }, { status: 503 }, { status: 200 }]);
  stack.receiver.script('/down', [{ status: 500 }]);
  for (const path of ['/flaky', '/down']) {
    const res = await stack.api.request('POST', '/v1/webhooks', { token: app.key, body: { url: stack.receiver.url(path), events: ['domain.ready'] } });
    expect(res.status).toBe(201);
  }
  // Written a second ago: the consumer lag counts from the event's created_at.
  const eventId = randomUUID();
  const createdAt = new Date(Date.now() - 1000).toISOString().replace(/Z$/, '+00:00');
  const domain = sampleDomainResource();
  await stack.api.store.run((r) => r.outbox.add(ROUTING_KEYS.eventEmitted, { event_id: eventId, type: 'domain.ready', application_id: app.id, created_at: createdAt, data: { domain } }));
  await stack.emit(app.id, 'domain.ready');

  // Two events, two subscriptions: /flaky delivers both after 2 failures in all, /down abandons both after 8 attempts each.
  await eventually('every delivery finished', async () => (await attempts('delivered')) === 2 && (await attempts('abandoned')) === 2, { timeoutMs: 30_000 });
  expect(stack.receiver.to('/flaky')).toHaveLength(4);
  expect(stack.receiver.to('/down')).toHaveLength(16);
  expect(await attempts('failed')).toBe(2 + 2 * 7);
  expect(await sample('cds_webhook_delivery_duration_seconds_count', 'state="failed"')).toBe(16);
  expect(await sample('cds_webhook_delivery_duration_seconds_count', 'state="abandoned"')).toBe(2);
  expect(await sample('cds_webhook_delivery_duration_seconds_count', 'state="delivered"')).toBe(2);
  // Each attempt took more than nothing and less than the timeout.
  const delivered = (await sample('cds_webhook_delivery_duration_seconds_sum', 'state="delivered"')) ?? 0;
  expect(delivered).toBeGreaterThan(0);
  expect(delivered).toBeLessThan(2 * 3);

  expect(await sample('cds_messages_consumed_total', 'consumer="webhook-dispatcher",outcome="ack"')).toBe(2);
  expect(await sample('cds_messages_consumed_total', 'consumer="webhook-dispatcher",outcome="retry"')).toBe(0);
  expect(await sample('cds_consumer_lag_seconds_count', 'consumer="webhook-dispatcher"')).toBe(2);
  // The event written a second before it was published waited at least that long.
  expect(await sample('cds_consumer_lag_seconds_bucket', 'le="0.5",consumer="webhook-dispatcher"')).toBeLessThanOrEqual(1);
  expect(await sample('cds_consumer_lag_seconds_sum', 'consumer="webhook-dispatcher"')).toBeGreaterThanOrEqual(1);
});
