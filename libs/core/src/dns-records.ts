// The two DNS records a customer publishes for a domain, in the contract's order.
import type { CheckType } from './domain-status';

export const CHALLENGE_RECORD_PREFIX = '_custom-domain-challenge.';
export const CHALLENGE_VALUE_PREFIX = 'custom-domain-verify=';

export type DnsRecordType = 'TXT' | 'CNAME';
export type DnsRecordPurpose = Extract<CheckType, 'ownership' | 'routing'>;

export interface DnsRecord {
  name: string;
  type: DnsRecordType;
  value: string;
  purpose: DnsRecordPurpose;
  help: string;
}

export function challengeRecordName(hostname: string): string {
  return CHALLENGE_RECORD_PREFIX + hostname;
}

export function challengeRecordValue(challengeToken: string): string {
  return CHALLENGE_VALUE_PREFIX + challengeToken;
}

/** The ownership TXT record, then the routing CNAME record. */
export function dnsRecords(hostname: string, challengeToken: string, edgeTarget: string): DnsRecord[] {
  const txtName = challengeRecordName(hostname);
  const txtValue = challengeRecordValue(challengeToken);
  return [
    {
      name: txtName,
      type: 'TXT',
      value: txtValue,
      purpose: 'ownership',
      help: `Publish a TXT record named ${txtName} with the value ${txtValue} to prove you control ${hostname}.`,
    },
    {
      name: hostname,
      type: 'CNAME',
      value: edgeTarget,
      purpose: 'routing',
      help: `Publish a CNAME record named ${hostname} with the value ${edgeTarget} to route its traffic through the service.`,
    },
  ];
}
