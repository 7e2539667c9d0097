import { randomUUID } from 'node:crypto';
import { CATALOG, ROUTING_KEYS, validateMessage } from './catalog';
import { MessageValidationError } from './errors';

const check = { domain_id: randomUUID(), application_id: randomUUID(), reason: 'created' };
const event = {
  event_id: randomUUID(),
  type: 'domain.ready',
  application_id: randomUUID(),
  created_at: '2025-01-02T03:04:05.678+00:00',
  data: { domain: { id: randomUUID(), hostname: 'shop.example.com' } },
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
    const message = validateMessage('domain.check.requested', check);
    expect(message).toEqual({ routingKey: 'domain.check.requested', payload: check });
    expect(validateMessage('event.emitted', event).payload).toBe(event);
    expect(validateMessage('domain.changed', changed).payload).toBe(changed);
  });

  it.each([
    ['domain.check.requested', { ...check, reason: 'because' }],
    ['domain.check.requested', { ...check, domain_id: 'not-a-uuid' }],
    ['domain.check.requested', { ...check, extra: 1 }],
    ['domain.check.requested', { domain_id: check.domain_id, reason: 'created' }],
    ['event.emitted', { ...event, type: 'domain.created' }],
    ['event.emitted', { ...event, created_at: 'yesterday' }],
    ['event.emitted', { ...event, data: {} }],
    ['event.emitted', { ...event, data: { domain: 'x' } }],
    ['domain.changed', { ...changed, change: 'moved' }],
    ['domain.changed', { ...changed, hostname: '' }],
    ['domain.changed', null],
    ['domain.changed', 'text'],
  ])('refuses a bad %s payload', (key, payload) => {
    expect(() => validateMessage(key, payload)).toThrow(MessageValidationError);
  });

  it('refuses an unknown routing key, naming it', () => {
    expect(() => validateMessage('domain.exploded', {})).toThrow(/unknown routing key "domain.exploded"/);
  });

  it('lists every problem of a payload', () => {
    try {
      validateMessage('domain.check.requested', { domain_id: 1, application_id: 2, reason: 3 });
      throw new Error('expected a refusal');
    } catch (err) {
      expect(err).toBeInstanceOf(MessageValidationError);
      const problems = (err as MessageValidationError).problems.join('\n');
      for (const field of ['domain_id', 'application_id', 'reason']) expect(problems).toContain(`"${field}"`);
    }
  });
});
