// The DNS records a customer publishes for a domain, in the contract's order:
// the ownership TXT, then the routing CNAME, or for an apex domain of a
// deployment with EDGE_ADDRESSES one A or AAAA record per edge address (DECISIONS §12).
import type { CheckType } from './domain-status';
import { isApexDomain } from './hostname';

export const CHALLENGE_RECORD_PREFIX = '_custom-domain-challenge.';
export const CHALLENGE_VALUE_PREFIX = 'custom-domain-verify=';

export type DnsRecordType = 'TXT' | 'CNAME' | 'A' | 'AAAA';
export type DnsRecordPurpose = Extract<CheckType, 'ownership' | 'routing'>;

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

/** The ownership TXT record, then the routing CNAME record, or one A or AAAA record per edge address for an apex domain. */
export function dnsRecords(hostname: string, challengeToken: string, routing: EdgeRouting): DnsRecord[] {
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
