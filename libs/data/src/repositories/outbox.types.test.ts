import { CHECK_REASONS, DOMAIN_CHANGES, ROUTING_KEYS } from '@cds/core';
import type { OutboxMessage, OutboxRepository } from './outbox.types';

const ids = { domain_id: '3f1d8f4e-0000-4000-8000-000000000001', application_id: '3f1d8f4e-0000-4000-8000-000000000002' };

/** Writes through an outbox that only records what it was given. */
function recording(): OutboxRepository & { added: unknown[] } {
  const added: unknown[] = [];
  const none = async () => undefined;
  return {
    added,
    add: async (routingKey, payload) => {
      added.push({ routingKey, payload });
      return { id: '', seq: 0, routingKey, payload, createdAt: new Date(0), publishedAt: null, attempts: 0, setAsideAt: null, setAsideReason: null };
    },
    unpublished: async () => [],
    markPublished: none,
    recordFailedAttempt: none,
    setAside: none,
    backlog: async () => ({ count: 0, oldestAt: null }),
    all: async () => [],
  };
}

// The compiler is the test: tsc -p tsconfig.json checks test files, and an
// expected error that does not occur fails it.
describe('outbox message types', () => {
  it('take a payload only under its own routing key', async () => {
    const outbox = recording();
    await outbox.add(ROUTING_KEYS.domainCheckRequested, { ...ids, reason: CHECK_REASONS.recheck });
    // @ts-expect-error a check request is not a domain.changed payload
    await outbox.add(ROUTING_KEYS.domainChanged, { ...ids, reason: CHECK_REASONS.recheck });
    // @ts-expect-error a field missing
    await outbox.add(ROUTING_KEYS.domainChanged, { ...ids, change: DOMAIN_CHANGES.status });
    // @ts-expect-error a routing key outside the catalog
    await outbox.add('domain.exploded', {});
    expect(outbox.added).toHaveLength(4);
  });

  it('pair routing key and payload in an OutboxMessage', () => {
    const messages: OutboxMessage[] = [
      { routingKey: ROUTING_KEYS.domainChanged, payload: { ...ids, hostname: 'shop.example.com', change: DOMAIN_CHANGES.created } },
      // @ts-expect-error a domain.changed payload under domain.check.requested
      { routingKey: ROUTING_KEYS.domainCheckRequested, payload: { ...ids, hostname: 'shop.example.com', change: DOMAIN_CHANGES.created } },
    ];
    expect(messages).toHaveLength(2);
  });
});
