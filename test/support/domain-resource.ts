// A Domain resource as the API and the checker put it in an event.emitted
// message: the bus's catalog checks a message's domain against the resource's
// schema, so tests that publish events carry a whole one.
import { randomUUID } from 'node:crypto';
import { toDomainResource, type DomainResource, type DomainState } from '@cds/core';

export function sampleDomainResource(fields: Partial<DomainState> = {}): DomainResource {
  const at = new Date('2025-06-01T10:00:00.000Z');
  const domain: DomainState = {
    id: randomUUID(), hostname: 'shop.example.com', reference: 'ws', status: 'ready', challengeToken: 'challenge-token',
    metadata: {}, redirectTo: null, createdAt: at, updatedAt: at, deletedAt: null, ...fields,
  };
  return toDomainResource(domain, [], { edgeTarget: 'edge.example.net', edgeAddresses: [], acmeDnsZone: null });
}
