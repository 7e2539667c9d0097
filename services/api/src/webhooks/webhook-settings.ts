import type { Config } from '@cds/config';

/** What the webhook use cases need of the configuration. */
export interface WebhookSettings {
  /** Seals signing secrets at rest. */
  encryptionKey: Buffer;
  /** Resolvers for the URL test; empty: the system's. */
  dnsServers: readonly string[];
  /** Otherwise refused ranges that URLs may resolve to. */
  allowPrivateCidrs: readonly string[];
}

/** What the replays need (DECISIONS §10). */
export interface ReplaySettings {
  /** Pending deliveries of an application above which replays are refused (WEBHOOK_PENDING_LIMIT). */
  pendingLimit: number;
}

export function webhookSettings(config: Config): WebhookSettings & ReplaySettings {
  return {
    encryptionKey: config.dataEncryptionKey,
    dnsServers: config.dnsServers,
    allowPrivateCidrs: config.webhookAllowPrivateCidrs,
    pendingLimit: config.webhookPendingLimit,
  };
}
