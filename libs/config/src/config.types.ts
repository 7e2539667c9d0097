export const MODES = ['all-in-one', 'split'] as const;
export type Mode = (typeof MODES)[number];

/** winston's npm levels, most to least severe. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const CERT_ISSUERS = ['acme', 'internal'] as const;
export type CertIssuer = (typeof CERT_ISSUERS)[number];

/** The value handed to express's `trust proxy` setting. */
export type TrustProxy = boolean | number | string;

/** Validated, deep-frozen configuration. Durations are milliseconds. */
export interface Config {
  readonly mode: Mode;
  readonly databaseUrl: string;
  readonly amqpUrl: string | null;
  readonly apiPort: number;
  readonly edgeHttpPort: number;
  readonly edgeHttpsPort: number;
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
  /** Exactly 32 bytes (AES-256-GCM key). */
  readonly dataEncryptionKey: Buffer;
  /** The base64url text itself: the HMAC key is its UTF-8 bytes. */
  readonly assertionDeploymentKey: string;
  readonly assertionDeploymentKid: string;
  readonly certIssuer: CertIssuer;
  readonly acmeDirectoryUrl: string;
  readonly acmeEmail: string | null;
  readonly acmeCaBundle: string | null;
  /** `ip` or `ip:port` entries for `dns.Resolver#setServers`; empty means the system resolvers. */
  readonly dnsServers: readonly string[];
  readonly checkSchedulePending: readonly number[];
  readonly checkIntervalLive: number;
  readonly webhookRetrySchedule: readonly number[];
  readonly webhookTimeout: number;
  readonly webhookCaBundle: string | null;
  readonly webhookAllowPrivateCidrs: readonly string[];
  readonly originCaBundle: string | null;
  readonly originTimeout: number;
  readonly smtpUrl: string | null;
  readonly smtpFrom: string | null;
  readonly logLevel: LogLevel;
}
