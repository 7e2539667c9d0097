import { randomUUID } from 'node:crypto';
import Joi from 'joi';
import { QUEUES, ROUTING_KEYS, type DomainChangedPayload, type DomainCheckRequestedPayload } from '@cds/core';
import { sampleDomainResource } from '../../../test/support/domain-resource';
import { CATALOG, catalogEntry, serviceQueues, validateMessage, type CatalogEntry } from './catalog';
import { MessageValidationError } from './errors';

const check = { domain_id: randomUUID(), application_id: randomUUID(), reason: 'created' };
const event = {
  event_id: randomUUID(),
  type: 'domain.ready',
  application_id: randomUUID(),
  created_at: '2025-01-02T03:04:05.678+00:00',
  data: { domain: sampleDomainResource() },
};
const changed = { domain_id: randomUUID(), hostname: 'shop.example.com', application_id: randomUUID(), change: 'status' };

describe('message catalog', () => {
  it('has a schema and a version for every routing key', () => {
    for (const key of Object.values(ROUTING_KEYS)) {
      expect(CATALOG[key].version).toBeGreaterThanOrEqual(1);
      expect(typeof CATALOG[key].schema.validate).toBe('function');
    }
  });

  it('accepts valid payloads and returns them narrowed by routing key', () => {
    const message = validateMessage(ROUTING_KEYS.domainCheckRequested, check);
    expect(message).toEqual({ routingKey: ROUTING_KEYS.domainCheckRequested, payload: check });
    expect(validateMessage(ROUTING_KEYS.eventEmitted, event).payload).toBe(event);
    expect(validateMessage(ROUTING_KEYS.domainChanged, changed).payload).toBe(changed);
  });

  it.each([
    [ROUTING_KEYS.domainCheckRequested, { ...check, reason: 'because' }],
    [ROUTING_KEYS.domainCheckRequested, { ...check, domain_id: 'not-a-uuid' }],
    [ROUTING_KEYS.domainCheckRequested, { ...check, extra: 1 }],
    [ROUTING_KEYS.domainCheckRequested, { domain_id: check.domain_id, reason: 'created' }],
    [ROUTING_KEYS.eventEmitted, { ...event, type: 'domain.created' }],
    [ROUTING_KEYS.eventEmitted, { ...event, created_at: 'yesterday' }],
    [ROUTING_KEYS.eventEmitted, { ...event, data: {} }],
    [ROUTING_KEYS.eventEmitted, { ...event, data: { domain: 'x' } }],
    [ROUTING_KEYS.eventEmitted, { ...event, data: { domain: { id: randomUUID(), hostname: 'shop.example.com' } } }],
    [ROUTING_KEYS.eventEmitted, { ...event, data: { domain: { ...event.data.domain, status: 'gone' } } }],
    [ROUTING_KEYS.domainChanged, { ...changed, change: 'moved' }],
    [ROUTING_KEYS.domainChanged, { ...changed, hostname: '' }],
    [ROUTING_KEYS.domainChanged, null],
    [ROUTING_KEYS.domainChanged, 'text'],
  ])('refuses a bad %s payload', (key, payload) => {
    expect(() => validateMessage(key, payload)).toThrow(MessageValidationError);
  });

  it('refuses a message of another schema version than the catalog\'s, and takes one that says none as the catalog\'s', () => {
    expect(CATALOG[ROUTING_KEYS.domainCheckRequested].version).toBe(1);
    expect(validateMessage(ROUTING_KEYS.domainCheckRequested, check, 1).payload).toBe(check);
    expect(() => validateMessage(ROUTING_KEYS.domainCheckRequested, check, 2)).toThrow(/schema version 2, the catalog has version 1/);
    expect(() => validateMessage(ROUTING_KEYS.domainCheckRequested, check, Number.NaN)).toThrow(MessageValidationError);
    expect(validateMessage(ROUTING_KEYS.domainCheckRequested, check).payload).toBe(check);
  });

  it('binds each consumed key to its service queue', () => {
    expect(serviceQueues()).toEqual([
      { queue: QUEUES.checker, routingKeys: [ROUTING_KEYS.domainCheckRequested] },
      { queue: QUEUES.webhookDispatcher, routingKeys: [ROUTING_KEYS.eventEmitted] },
    ]);
    expect(catalogEntry(ROUTING_KEYS.domainChanged).consumerQueue).toBeUndefined();
  });

  // The compiler is the test: tsc -p tsconfig.json checks test files, and an
  // expected error that does not occur fails it.
  it('types each schema by its payload, so a schema that does not fit it fails the build', () => {
    const misfits = [
      // @ts-expect-error a schema typed for another key's payload is not that key's entry
      ((): CatalogEntry<DomainChangedPayload> => CATALOG[ROUTING_KEYS.domainCheckRequested])(),
      // @ts-expect-error a schema names every field of its payload
      Joi.object<DomainCheckRequestedPayload, true>({ domain_id: Joi.string() }),
      // @ts-expect-error with a schema of the field's kind
      Joi.object<DomainCheckRequestedPayload, true>({ domain_id: Joi.string(), application_id: Joi.string(), reason: Joi.number() }),
    ];
    expect(misfits).toHaveLength(3);
  });

  it('refuses an unknown routing key, naming it', () => {
    expect(() => validateMessage('domain.exploded', {})).toThrow(/unknown routing key "domain.exploded"/);
  });

  it('lists every problem of a payload', () => {
    try {
      validateMessage(ROUTING_KEYS.domainCheckRequested, { domain_id: 1, application_id: 2, reason: 3 });
      throw new Error('expected a refusal');
    } catch (err) {
      expect(err).toBeInstanceOf(MessageValidationError);
      const problems = (err as MessageValidationError).problems.join('\n');
      for (const field of ['domain_id', 'application_id', 'reason']) expect(problems).toContain(`"${field}"`);
    }
  });
});
