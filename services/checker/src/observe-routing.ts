// The routing check's DNS side: the CNAME chain to EDGE_TARGET, or, for an apex
// domain of a deployment with EDGE_ADDRESSES, its A and AAAA answers (DECISIONS §12).
import { evaluateAddressRouting, evaluateRouting, routedByAddresses, type CheckOutcome, type EdgeRouting } from '@cds/core';
import type { DnsLookups } from './dns-lookups';

export function observeRouting(dns: DnsLookups, hostname: string, routing: EdgeRouting): Promise<CheckOutcome<'routing'>> {
  if (routedByAddresses(hostname, routing)) {
    return dns.addresses(hostname).then((answers) => evaluateAddressRouting(hostname, routing.edgeAddresses, answers));
  }
  return dns.cnameChain(hostname).then((chain) => evaluateRouting(hostname, routing.edgeTarget, chain));
}
