// The DNS records a customer publishes for a domain, in the contract's order:
// the ownership TXT, then the routing CNAME, or for an apex domain of a
// deployment with EDGE_ADDRESSES one A or AAAA record per edge address (DECISIONS §12);
// then, with ACME_DNS_ZONE, the CNAME that delegates the domain's ACME DNS-01
// challenge to that zone (DECISIONS §13).
import { createHash } from 'node:crypto';
import type { CheckType } from './domain-status';
import { isApexDomain } from './hostname';

export const CHALLENGE_RECORD_PREFIX = '_custom-domain-challenge.';
export const CHALLENGE_VALUE_PREFIX = 'custom-domain-verify=';

export type DnsRecordType = 'TXT' | 'CNAME' | 'A' | 'AAAA';
export type DnsRecordPurpose = Extract<CheckType, 'ownership' | 'routing' | 'certificate'>;

export interface DnsRecord {
  name: string;
  type: DnsRecordType;
  value: string;
  purpose: DnsRecordPurpose;
  help: string;
}

/** Where customers point their domains. */
export interface EdgeRouting {
  /** The CNAME target (`EDGE_TARGET`). */
  edgeTarget: string;
  /** The edge's public addresses (`EDGE_ADDRESSES`); empty: apex domains are refused. */
  edgeAddresses: readonly string[];
  /** The zone ACME DNS-01 challenges are delegated to (`ACME_DNS_ZONE`); null: HTTP-01 alone, no third record. */
  acmeDnsZone: string | null;
}

export const ACME_CHALLENGE_PREFIX = '_acme-challenge.';

/** Where the ACME CA looks for a hostname's DNS-01 challenge (RFC 8555 §8.4). */
export function acmeChallengeName(hostname: string): string {
  return ACME_CHALLENGE_PREFIX + hostname;
}

/**
 * The name in `zone` that a domain's `_acme-challenge` CNAME points to, and
 * where the checker writes its challenges: 32 hex of a hash of the domain's
 * challenge token, so unique to the domain and the same for its whole life,
 * with nothing more stored.
 */
export function acmeDelegationTarget(challengeToken: string, zone: string): string {
  return `${createHash('sha256').update(`acme-dns:${challengeToken}`).digest('hex').slice(0, 32)}.${zone}`;
}

function certificateRecord(hostname: string, challengeToken: string, zone: string): DnsRecord {
  const name = acmeChallengeName(hostname);
  const value = acmeDelegationTarget(challengeToken, zone);
  return {
    name,
    type: 'CNAME',
    value,
    purpose: 'certificate',
    help: `Publish a CNAME record named ${name} with the value ${value} so that the certificate of ${hostname} is obtained before its traffic moves here (keep it for renewals).`,
  };
}

/** An apex domain of a deployment with edge addresses: routed by A and AAAA records, not a CNAME. */
export function routedByAddresses(hostname: string, routing: EdgeRouting): boolean {
  return routing.edgeAddresses.length > 0 && isApexDomain(hostname);
}

/** The record type of an address: AAAA for IPv6, A for IPv4. */
export function addressRecordType(address: string): 'A' | 'AAAA' {
  return address.includes(':') ? 'AAAA' : 'A';
}

export function challengeRecordName(hostname: string): string {
  return CHALLENGE_RECORD_PREFIX + hostname;
}

export function challengeRecordValue(challengeToken: string): string {
  return CHALLENGE_VALUE_PREFIX + challengeToken;
}

/** The ownership and routing records, then the certificate CNAME when ACME_DNS_ZONE is set. */
export function dnsRecords(hostname: string, challengeToken: string, routing: EdgeRouting): DnsRecord[] {
  const records = ownershipAndRouting(hostname, challengeToken, routing);
  return routing.acmeDnsZone === null ? records : [...records, certificateRecord(hostname, challengeToken, routing.acmeDnsZone)];
}

/** The ownership TXT record, then the routing CNAME record, or one A or AAAA record per edge address for an apex domain. */
function ownershipAndRouting(hostname: string, challengeToken: string, routing: EdgeRouting): DnsRecord[] {
  const txtName = challengeRecordName(hostname);
  const txtValue = challengeRecordValue(challengeToken);
  const ownership: DnsRecord = {
    name: txtName,
    type: 'TXT',
    value: txtValue,
    purpose: 'ownership',
    help: `Publish a TXT record named ${txtName} with the value ${txtValue} to prove you control ${hostname}.`,
  };
  if (!routedByAddresses(hostname, routing)) {
    const { edgeTarget } = routing;
    return [
      ownership,
      {
        name: hostname,
        type: 'CNAME',
        value: edgeTarget,
        purpose: 'routing',
        help: `Publish a CNAME record named ${hostname} with the value ${edgeTarget} to route its traffic through the service.`,
      },
    ];
  }
  const ordered = [...routing.edgeAddresses.filter((a) => addressRecordType(a) === 'A'), ...routing.edgeAddresses.filter((a) => addressRecordType(a) === 'AAAA')];
  return [
    ownership,
    ...ordered.map((address): DnsRecord => {
      const type = addressRecordType(address);
      return {
        name: hostname,
        type,
        value: address,
        purpose: 'routing',
        help: `Publish an ${type} record named ${hostname} with the value ${address} to route its traffic through the service (publish every A and AAAA record listed here, and no other address at ${hostname}).`,
      };
    }),
  ];
}
