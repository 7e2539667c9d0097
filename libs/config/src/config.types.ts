import type { CertIssuer } from '@cds/core';
import type { AcmeDirectorySettings } from './acme-directories';

export const MODES = ['all-in-one', 'split'] as const;
export type Mode = (typeof MODES)[number];

/** The services of split mode, each its own process (and Deployment). */
export const SPLIT_SERVICES = ['api', 'checker', 'webhook-dispatcher', 'edge-proxy'] as const;
export type SplitServiceName = (typeof SPLIT_SERVICES)[number];

/** winston's npm levels, most to least severe. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How log lines are written: `auto` is `pretty` on a terminal, `json` otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export { CERT_ISSUERS, type CertIssuer } from '@cds/core';

export const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha384', 'hmac-sha512'] as const;
export type TsigAlgorithm = (typeof TSIG_ALGORITHMS)[number];

/** ACME_DNS_TSIG_KEY: the key's name as the DNS server knows it (lowercase, no trailing dot), its algorithm, its secret in base64. */
export interface TsigKey {
  readonly name: string;
  readonly algorithm: TsigAlgorithm;
  readonly secret: string;
}

/** ACME_DNS_UPDATE_SERVER. */
export interface DnsUpdateServer {
  readonly host: string;
  readonly port: number;
}

/** The value handed to express's `trust proxy` setting; never `true` (TRUST_PROXY=true is refused). */
export type TrustProxy = false | number | string;

/** Validated, deep-frozen configuration. Durations are milliseconds. */
export interface Config {
  readonly mode: Mode;
  readonly databaseUrl: string;
  /** Path of a PEM file, checked at start: the CAs trusted for PostgreSQL's certificate. */
  readonly databaseCaBundle: string | null;
  /** Connections per process; null: the service's own default. */
  readonly databasePoolSize: number | null;
  readonly amqpUrl: string | null;
  /** Path of a PEM file, checked at start: the CAs trusted for the broker's certificate (amqps). */
  readonly amqpCaBundle: string | null;
  readonly apiPort: number;
  /** null: the operator API is served on apiPort with the rest. */
  readonly operatorPort: number | null;
  readonly edgeHttpPort: number;
  readonly edgeHttpsPort: number;
  /** Every edge connection starts with a PROXY protocol header, from a peer in edgeProxyProtocolCidrs. */
  readonly edgeProxyProtocol: boolean;
  readonly edgeProxyProtocolCidrs: readonly string[];
  /** Open client connections per edge process, both listeners together. */
  readonly edgeMaxConnections: number;
  /** Open connections of one client address (the PROXY protocol one when on) per edge process. */
  readonly edgeMaxConnectionsPerClient: number;
  /** Ms a client has to send a whole request to the edge (HTTP/1.1 and HTTP/2). */
  readonly edgeRequestTimeout: number;
  /** Ms a proxied WebSocket may carry nothing either way before it is closed. */
  readonly edgeWebsocketIdleTimeout: number;
  /** Ms an edge cache entry is served without being read again, whatever the change feed says. */
  readonly edgeCacheMaxAge: number;
  /** The HTTPS port visitors use, in the edge's redirects; null: the edge's own HTTPS port. */
  readonly edgePublicHttpsPort: number | null;
  /** The edge's public addresses (DECISIONS §12), normalized; empty: apex domains are refused. */
  readonly edgeAddresses: readonly string[];
  readonly metricsPort: number;
  readonly bindAddress: string;
  readonly edgeTarget: string;
  /** null only in all-in-one mode before `ensureAllInOneSecrets` filled it. */
  readonly operatorToken: string | null;
  readonly operatorApiEnabled: boolean;
  readonly operatorAllowedCidrs: readonly string[];
  readonly operatorAuthFailuresPerMinute: number;
  readonly operatorBackup: boolean;
  readonly enableLegacyApi: boolean;
  readonly v1AuthFailuresPerMinute: number;
  readonly trustProxy: TrustProxy;
  /** 0 means no limit. */
  readonly deploymentDomainLimit: number;
  /** Exactly 32 bytes (AES-256-GCM key): the key that seals, DATA_ENCRYPTION_KEY or the first of DATA_ENCRYPTION_KEYS. */
  readonly dataEncryptionKey: Buffer;
  /** Every key that opens sealed values, the sealing one first: DATA_ENCRYPTION_KEYS, or DATA_ENCRYPTION_KEY alone. */
  readonly dataEncryptionKeys: readonly Buffer[];
  /** The base64url text itself: the HMAC key is its UTF-8 bytes. */
  /** Null only in a split-mode service that signs no assertion (the API, the webhook dispatcher). */
  readonly assertionDeploymentKey: string | null;
  readonly assertionDeploymentKid: string;
  readonly certIssuer: CertIssuer;
  /** ACME_DIRECTORY_URL in order of preference, each with its numbered variables (DECISIONS §14). */
  readonly acmeDirectories: readonly AcmeDirectorySettings[];
  readonly acmeEmail: string | null;
  readonly acmeCaBundle: string | null;
  /** ACME orders per clock hour: the deployment's budget (DECISIONS §10). */
  readonly acmeOrdersPerHour: number;
  /** ACME orders per clock hour: each application's share of it. */
  readonly acmeOrdersPerApplicationPerHour: number;
  /** DECISIONS §13, all three or none: the zone DNS-01 challenges are written into, its update server, the TSIG key. */
  readonly acmeDnsZone: string | null;
  readonly acmeDnsUpdateServer: DnsUpdateServer | null;
  readonly acmeDnsTsigKey: TsigKey | null;
  /** `ip` or `ip:port` entries for `dns.Resolver#setServers`; empty means the system resolvers. */
  readonly dnsServers: readonly string[];
  readonly checkSchedulePending: readonly number[];
  readonly checkIntervalLive: number;
  /** Consecutive failed runs that confirm a failure of a `ready` domain (DECISIONS §11). */
  readonly checkConfirmations: number;
  /** Delays between the runs that confirm a failure; the last one repeats. */
  readonly checkScheduleConfirm: readonly number[];
  /** How long inconclusive failures must last before a `ready` domain leaves `ready`. */
  readonly checkOutageGrace: number;
  /** Delays between checks of an `attention_required` domain from entering it; then `checkIntervalLive`. */
  readonly checkScheduleAttention: readonly number[];
  readonly webhookRetrySchedule: readonly number[];
  readonly webhookTimeout: number;
  readonly webhookCaBundle: string | null;
  readonly webhookAllowPrivateCidrs: readonly string[];
  /** Attempts of one subscription running at once in one dispatcher. */
  readonly webhookMaxInFlightPerSubscription: number;
  /** Pending deliveries of an application above which replays are refused. */
  readonly webhookPendingLimit: number;
  readonly originCaBundle: string | null;
  readonly originTimeout: number;
  readonly smtpUrl: string | null;
  readonly smtpFrom: string | null;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly housekeepingInterval: number;
  /** Published outbox rows are kept this long after publication. */
  readonly outboxRetention: number;
  /** Finished webhook deliveries are kept this long after creation. */
  readonly webhookDeliveryRetention: number;
  /** Deleted domains are kept this long after deletion. */
  readonly deletedDomainRetention: number;
}
