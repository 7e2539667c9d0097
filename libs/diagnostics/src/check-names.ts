/** The names of the doctor's checks, stable for monitoring. */
export const CHECK_NAMES = {
  database: 'database',
  migrations: 'migrations',
  clockSkew: 'clock_skew',
  outbox: 'outbox_backlog',
  broker: 'broker',
  acme: 'acme_directory',
  dnsResolvers: 'dns_resolvers',
  edgeTarget: 'edge_target',
  certificates: 'certificate_expiry',
  webhooks: 'webhook_backlog',
  sealedValues: 'sealed_values',
} as const;

/** One check per consuming service's queue. */
export function queueCheckName(queue: string): string {
  return `queue:${queue}`;
}
