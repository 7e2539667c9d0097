import { randomUUID } from 'node:crypto';
import { eventTimestamp } from '@cds/core';
import type { DomainResource } from './domain.mapper';

export type DomainEventType = 'domain.ready' | 'domain.attention_required' | 'domain.recovered' | 'domain.deleted';

/** Payload of an `event.emitted` message: the webhook event body plus its application. */
export function domainEvent(type: DomainEventType, applicationId: string, domain: DomainResource, at: Date) {
  return { event_id: randomUUID(), type, application_id: applicationId, created_at: eventTimestamp(at), data: { domain } };
}
