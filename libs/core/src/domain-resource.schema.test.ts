import { randomUUID } from 'node:crypto';
import { toDomainResource, type DomainState } from './domain-resource';
import { domainResourceSchema } from './domain-resource.schema';

const AT = new Date('2025-06-01T10:00:00.000Z');
const ROUTING = { edgeTarget: 'edge.example.net', edgeAddresses: ['192.0.2.1', '2001:db8::1'], acmeDnsZone: null };

function resource(fields: Partial<DomainState> = {}) {
  const domain: DomainState = {
    id: randomUUID(), hostname: 'shop.example.com', reference: 'ws', status: 'ready', challengeToken: 'token',
    metadata: { plan: 'pro', seats: 3 }, redirectTo: null, createdAt: AT, updatedAt: AT, deletedAt: null, ...fields,
  };
  const check = { type: 'routing' as const, status: 'failing' as const, errorCode: 'cname_not_found', message: '', observedAt: AT, nextCheckAt: null };
  return toDomainResource(domain, [check], ROUTING);
}

/** As the bus checks a message: its wire form, nothing converted. */
const errorOf = (value: unknown) => domainResourceSchema.validate(value, { convert: false, abortEarly: false }).error?.message ?? null;

describe('domainResourceSchema', () => {
  it('accepts every resource toDomainResource makes: apex records, a deleted domain, a redirect, an empty check message', () => {
    expect(errorOf(resource())).toBeNull();
    expect(errorOf(resource({ hostname: 'customer.com' }))).toBeNull();
    expect(errorOf(resource({ status: 'deleting', deletedAt: AT }))).toBeNull();
    expect(errorOf(resource({ redirectTo: 'www.example.com' }))).toBeNull();
  });

  it('counts the reference in code points, as the contract does', () => {
    expect(errorOf(resource({ reference: '🔑'.repeat(255) }))).toBeNull();
    expect(errorOf(resource({ reference: '🔑'.repeat(256) }))).toMatch(/reference/);
  });

  it('refuses what is not a domain resource', () => {
    expect(errorOf({ id: randomUUID(), hostname: 'shop.example.com' })).not.toBeNull();
    expect(errorOf({ ...resource(), status: 'gone' })).toMatch(/status/);
    expect(errorOf({ ...resource(), extra: 1 })).toMatch(/extra/);
  });
});
