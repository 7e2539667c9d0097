import type { DataStore } from '@cds/data';

/** What the use cases need besides their inputs. */
export interface UseCaseContext {
  store: DataStore;
  edgeTarget: string;
  /** EDGE_ADDRESSES: set, apex domains are accepted and routed by A and AAAA records (DECISIONS §12). */
  edgeAddresses: readonly string[];
  /** ACME_DNS_ZONE: set, each domain's records end with the certificate CNAME (DECISIONS §13). */
  acmeDnsZone: string | null;
  deploymentDomainLimit: number;
  now: () => Date;
  /** Called after a transaction that wrote outbox rows has committed (wakes the relay). */
  afterCommit: () => void;
}
