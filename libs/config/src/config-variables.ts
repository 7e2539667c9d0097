import { InvalidDatabaseUrlError, parseDatabaseUrl } from '@cds/core';
import { ACME_NUMBERED_DOCS, parseAcmeDirectoryUrls, withNumberedAcmeSettings, type NumberedVariableDoc } from './acme-directories';
import { parseDnsUpdateServer, parseTsigKey } from './acme-dns-delegation';
import { parseCaBundlePath } from './ca-bundle';
import type { Config, Mode, SplitServiceName } from './config.types';
import { CERT_ISSUERS, LOG_FORMATS, LOG_LEVELS } from './config.types';
import { parseDuration, parseDurationList } from './duration';
import { InvalidValueError } from './invalid-value';
import { parseBindAddress, parseCidrList, parseDnsServers, parseEdgeAddresses, parseHostname, parseTrustProxy } from './network-parsers';
import {
  integerParser,
  oneOfParser,
  parseAssertionKey,
  parseBoolean,
  parseEmail,
  parseEncryptionKey,
  parseEncryptionKeyList,
  parseMailbox,
  parsePath,
  parsePort,
  tokenParser,
  urlParser,
} from './value-parsers';

export interface VariableSpec<T> {
  readonly name: string;
  /** The documentation of the variable (becomes the joi description). */
  readonly description: string;
  readonly parse: (text: string) => T;
  /** Default as environment text, per mode when the modes differ; absent means unset (null). */
  readonly default?: string | Readonly<Record<Mode, string>>;
  /** The default as the docs show it, when the text alone would not say it. */
  readonly docDefault?: string;
  /** Modes in which the variable must be set. */
  readonly requiredIn?: readonly Mode[];
  /** In split mode, the services that must have it (absent: every one); the others get only the secrets they use. */
  readonly requiredBy?: readonly SplitServiceName[];
  /** The variable that may stand in for this required one; setting both is refused. */
  readonly unlessSet?: string;
  /** Never echo the value in an error. */
  readonly secret?: boolean;
  /** Completes the value with the numbered variables that go with it (ACME_EAB_KID_<n>, …); throws ConfigError. */
  withNumbered?(value: T, env: NodeJS.ProcessEnv): T;
  /** Those numbered variables, documented after this one. */
  readonly numberedDocs?: readonly NumberedVariableDoc[];
}

type Variables = { readonly [K in Exclude<keyof Config, 'mode'>]: VariableSpec<Config[K]> };

const positiveInteger = integerParser(1);
const positiveDuration = (text: string): number => {
  const ms = parseDuration(text);
  if (ms <= 0) throw new InvalidValueError('must be a duration greater than zero, such as 500ms or 30s');
  return ms;
};

/** The private ranges (RFC 1918, IPv6 unique local): where load balancers and ingress controllers connect from. */
export const PRIVATE_RANGES = '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7';
/** Loopback and the private ranges: the default of the lists of trusted peers. */
export const LOOPBACK_AND_PRIVATE_RANGES = `127.0.0.0/8,::1/128,${PRIVATE_RANGES}`;

/** Every environment variable the project reads, in documentation order. */
export const VARIABLES: Variables = {
  databaseUrl: {
    name: 'DATABASE_URL',
    description:
      'Database connection: `postgres://…` (or `postgresql://…`) for PostgreSQL, `sqlite:<path>` for a SQLite file (the all-in-one default).',
    parse: (text) => {
      try {
        parseDatabaseUrl(text);
      } catch (err) {
        // The loader names the variable: its message is the expectation alone.
        if (err instanceof InvalidDatabaseUrlError) throw new InvalidValueError(err.expectation);
        throw err;
      }
      return text;
    },
    default: 'sqlite:./data/custom-domains.sqlite',
  },
  databaseCaBundle: {
    name: 'DATABASE_CA_BUNDLE',
    description:
      "PEM file of the CAs that sign PostgreSQL's certificate (a cloud provider's bundle), read and checked at start; set, only these are trusted for it. Without an `sslmode` in `DATABASE_URL` it means `verify-full`; `sslmode=verify-ca` checks the chain but not the host name (docs/deploy.md, \"TLS to PostgreSQL and RabbitMQ\").",
    parse: parseCaBundlePath,
  },
  databasePoolSize: {
    name: 'DATABASE_POOL_SIZE',
    description:
      'PostgreSQL connections each process keeps at most. Replicas × pool size, summed over the services, must stay below `max_connections` less what other clients need (docs/deploy.md, "Database connections").',
    parse: integerParser(1, 1000),
    docDefault: 'unset: 4 for the API, 10 for the checker, the webhook dispatcher, the edge (plus one for its change feed) and all-in-one',
  },
  amqpUrl: {
    name: 'AMQP_URL',
    description:
      'RabbitMQ connection (`amqp://…` or `amqps://…`). Unset means the in-process bus, which only all-in-one mode may use.',
    parse: urlParser(['amqp:', 'amqps:']),
    docDefault: 'unset (all-in-one); required in split mode',
    requiredIn: ['split'],
  },
  amqpCaBundle: {
    name: 'AMQP_CA_BUNDLE',
    description:
      "PEM file of the CAs that sign the broker's certificate, read and checked at start; set, only these are trusted for an `amqps://` `AMQP_URL`.",
    parse: parseCaBundlePath,
  },
  apiPort: {
    name: 'API_PORT',
    description: 'Port of the application API, the operator API, the legacy `/domains` API and `/v1/openapi.json`.',
    parse: parsePort,
    default: '8080',
  },
  edgeHttpPort: {
    name: 'EDGE_HTTP_PORT',
    description: 'Plain-HTTP port of the edge: ACME HTTP-01 answers and redirects to HTTPS.',
    parse: parsePort,
    default: '8081',
  },
  edgeHttpsPort: {
    name: 'EDGE_HTTPS_PORT',
    description: "TLS port of the edge, which picks each customer domain's certificate by SNI.",
    parse: parsePort,
    default: '8443',
  },
  metricsPort: {
    name: 'METRICS_PORT',
    description:
      'Port of Prometheus `/metrics`, `/healthz` and `/readyz`. In all-in-one mode it serves the metrics of every service.',
    parse: parsePort,
    default: '9464',
  },
  bindAddress: {
    name: 'BIND_ADDRESS',
    description: 'Address every listener binds to.',
    parse: parseBindAddress,
    default: { 'all-in-one': '127.0.0.1', split: '0.0.0.0' },
    docDefault: '`127.0.0.1` in all-in-one, `0.0.0.0` in split',
  },
  edgeTarget: {
    name: 'EDGE_TARGET',
    description: 'Hostname customers point their CNAME record at. Names under its registrable domain cannot be registered.',
    parse: parseHostname,
    default: 'edge.localhost',
  },
  operatorToken: {
    name: 'OPERATOR_TOKEN',
    description:
      'Operator API token (`Authorization: Bearer <token>`): 32 to 512 printable characters without spaces, as `PUT /operator/v1/token` requires of the token that replaces it at run time.',
    parse: tokenParser(512, 32),
    docDefault: 'all-in-one: generated on first start into `./data/operator-token`; split: required by the API',
    requiredIn: ['split'],
    requiredBy: ['api'],
    secret: true,
  },
  operatorApiEnabled: {
    name: 'OPERATOR_API_ENABLED',
    description: '`false` makes every `/operator/v1` path answer 404.',
    parse: parseBoolean,
    default: 'true',
  },
  operatorAllowedCidrs: {
    name: 'OPERATOR_ALLOWED_CIDRS',
    description: 'Comma list of CIDR ranges whose clients may use the operator API; others get 403.',
    parse: parseCidrList,
    default: LOOPBACK_AND_PRIVATE_RANGES,
  },
  operatorAuthFailuresPerMinute: {
    name: 'OPERATOR_AUTH_FAILURES_PER_MINUTE',
    description: 'Failed operator-token attempts allowed per client address within a minute before it gets 429.',
    parse: positiveInteger,
    default: '10',
  },
  operatorBackup: {
    name: 'OPERATOR_BACKUP',
    description: '`true` enables `GET /operator/v1/backup` (a `pg_dump` stream; PostgreSQL only).',
    parse: parseBoolean,
    default: 'false',
  },
  enableLegacyApi: {
    name: 'ENABLE_LEGACY_API',
    description: '`false` turns the deprecated `/domains` API off (404).',
    parse: parseBoolean,
    default: 'true',
  },
  v1AuthFailuresPerMinute: {
    name: 'V1_AUTH_FAILURES_PER_MINUTE',
    description:
      'Requests with a missing or invalid credential allowed per client address within a minute; past it every `/v1` request from that address gets 429.',
    parse: positiveInteger,
    default: '20',
  },
  trustProxy: {
    name: 'TRUST_PROXY',
    description:
      "express's `trust proxy` setting: `false` (client address from the socket), a hop count, or a comma list of addresses, CIDRs and `loopback`, `linklocal`, `uniquelocal`. `true` is refused at start: it would let every client choose its own address.",
    parse: parseTrustProxy,
    default: 'false',
  },
  deploymentDomainLimit: {
    name: 'DEPLOYMENT_DOMAIN_LIMIT',
    description: 'Live domains allowed across the whole deployment; `0` means no limit.',
    parse: integerParser(0),
    default: '0',
  },
  dataEncryptionKey: {
    name: 'DATA_ENCRYPTION_KEY',
    description:
      'Exactly 32 bytes in base64: the AES-256-GCM key that encrypts private keys and webhook secrets at rest. Set it or `DATA_ENCRYPTION_KEYS`, not both (docs/deploy.md, "The data encryption key").',
    parse: parseEncryptionKey,
    docDefault: 'all-in-one: generated on first start into `./data/data-encryption-key`; split: required unless `DATA_ENCRYPTION_KEYS` is set',
    requiredIn: ['all-in-one', 'split'],
    unlessSet: 'DATA_ENCRYPTION_KEYS',
    secret: true,
  },
  dataEncryptionKeys: {
    name: 'DATA_ENCRYPTION_KEYS',
    description:
      'Instead of `DATA_ENCRYPTION_KEY`, for a rotation: a comma list of such keys. The first one seals; every one opens what it sealed. Add the new key first, run `cdctl rekey`, then drop the old one. Setting both variables is refused at start.',
    parse: parseEncryptionKeyList,
    docDefault: 'unset: `DATA_ENCRYPTION_KEY` alone',
    secret: true,
  },
  assertionDeploymentKey: {
    name: 'ASSERTION_DEPLOYMENT_KEY',
    description:
      'Deployment key that signs the `X-Custom-Domain-Assertion` sent to origins: base64url text of at least 32 bytes (the HMAC key is the text itself).',
    parse: parseAssertionKey,
    docDefault: 'all-in-one: generated on first start into `./data/assertion-deployment-key`; split: required by the checker and the edge',
    requiredIn: ['all-in-one', 'split'],
    requiredBy: ['checker', 'edge-proxy'],
    secret: true,
  },
  assertionDeploymentKid: {
    name: 'ASSERTION_DEPLOYMENT_KID',
    description: 'Key id (`kid`) of the deployment assertion key.',
    parse: tokenParser(128),
    default: 'deployment',
  },
  certIssuer: {
    name: 'CERT_ISSUER',
    description:
      '`acme` obtains certificates from an ACME directory; `internal` signs them with a local CA kept in the database.',
    parse: oneOfParser(CERT_ISSUERS),
    default: { 'all-in-one': 'internal', split: 'acme' },
    docDefault: '`internal` in all-in-one, `acme` in split',
  },
  acmeDirectories: {
    name: 'ACME_DIRECTORY_URL',
    description:
      "Comma list of RFC 8555 directory URLs in order of preference (Let's Encrypt, ZeroSSL, Google Trust Services, Pebble in tests). An order goes to the first one not set aside; a directory that fails at the CA's side (unreachable, timeout, 5xx, `rateLimited`, `serverInternal`, account or EAB refused) is set aside for 10 minutes and the same check tries the next; a renewal goes first to the directory that issued the certificate.",
    parse: parseAcmeDirectoryUrls,
    default: 'https://acme-v02.api.letsencrypt.org/directory',
    withNumbered: withNumberedAcmeSettings,
    numberedDocs: ACME_NUMBERED_DOCS,
  },
  acmeEmail: {
    name: 'ACME_EMAIL',
    description: 'Contact e-mail of the ACME account.',
    parse: parseEmail,
  },
  acmeCaBundle: {
    name: 'ACME_CA_BUNDLE',
    description: 'PEM file of extra CAs trusted when talking to the ACME directory.',
    parse: parsePath,
  },
  acmeOrdersPerHour: {
    name: 'ACME_ORDERS_PER_HOUR',
    description:
      'ACME orders the whole deployment may send per clock hour, counted in the database across checker replicas; renewals go before first certificates when it is short.',
    parse: positiveInteger,
    default: '100',
  },
  acmeOrdersPerApplicationPerHour: {
    name: 'ACME_ORDERS_PER_APPLICATION_PER_HOUR',
    description: "ACME orders one application's domains may send per clock hour, within `ACME_ORDERS_PER_HOUR`.",
    parse: positiveInteger,
    default: '20',
  },
  acmeDnsZone: {
    name: 'ACME_DNS_ZONE',
    description:
      'Certificates before cutover (opt-in): a DNS zone the operator serves, such as `acme.edge.example.com`, into which the checker writes ACME DNS-01 challenges by TSIG-signed RFC 2136 updates. Each new domain then gets a third record, `_acme-challenge.<hostname>` CNAME to a name in this zone, and its certificate is obtained before its traffic moves. Set with `ACME_DNS_UPDATE_SERVER` and `ACME_DNS_TSIG_KEY`, or none of them.',
    parse: parseHostname,
  },
  acmeDnsUpdateServer: {
    name: 'ACME_DNS_UPDATE_SERVER',
    description: "`host[:port]` (port 53 by default) of the server that accepts RFC 2136 updates of `ACME_DNS_ZONE` (BIND, Knot, PowerDNS): usually the zone's primary.",
    parse: parseDnsUpdateServer,
  },
  acmeDnsTsigKey: {
    name: 'ACME_DNS_TSIG_KEY',
    description: 'The TSIG key that signs those updates, `name:algorithm:secret` (algorithm `hmac-sha256`, `hmac-sha384` or `hmac-sha512`; the secret in base64, as `tsig-keygen` prints it); a secret.',
    parse: parseTsigKey,
    secret: true,
  },
  dnsServers: {
    name: 'DNS_SERVERS',
    description:
      'Comma list of DNS servers (`ip` or `ip:port`, `[ipv6]:port`) the checker and the webhook address test ask.',
    parse: parseDnsServers,
    default: '',
    docDefault: 'the system resolvers',
  },
  checkSchedulePending: {
    name: 'CHECK_SCHEDULE_PENDING',
    description: 'Delays between automatic checks of a `pending_dns` domain; the last one repeats.',
    parse: parseDurationList,
    default: '1m,2m,5m,10m,30m,1h',
  },
  checkIntervalLive: {
    name: 'CHECK_INTERVAL_LIVE',
    description: 'Delay between automatic checks of `ready` and `attention_required` domains.',
    parse: positiveDuration,
    default: '10m',
  },
  checkConfirmations: {
    name: 'CHECK_CONFIRMATIONS',
    description: 'Consecutive failed runs that confirm a failure of a `ready` domain before it leaves `ready` (1 to 10).',
    parse: integerParser(1, 10),
    default: '3',
  },
  checkScheduleConfirm: {
    name: 'CHECK_SCHEDULE_CONFIRM',
    description: 'Delays between the runs that confirm a failure of a `ready` domain; the last one repeats.',
    parse: parseDurationList,
    default: '30s,1m',
  },
  checkOutageGrace: {
    name: 'CHECK_OUTAGE_GRACE',
    description: 'How long inconclusive failures (a DNS lookup that times out or answers SERVFAIL, an origin probe that fails) must last before a `ready` domain leaves `ready`.',
    parse: positiveDuration,
    default: '15m',
  },
  checkScheduleAttention: {
    name: 'CHECK_SCHEDULE_ATTENTION',
    description: 'Delays between checks of an `attention_required` domain, counted from entering the status; after the last one, `CHECK_INTERVAL_LIVE`.',
    parse: parseDurationList,
    default: '30s,1m,2m,5m',
  },
  webhookRetrySchedule: {
    name: 'WEBHOOK_RETRY_SCHEDULE',
    description: 'Delays before delivery attempts 2 to 8; the last one repeats when the list is shorter.',
    parse: parseDurationList,
    default: '1m,5m,30m,2h,12h,24h,24h',
  },
  webhookTimeout: {
    name: 'WEBHOOK_TIMEOUT',
    description: 'Time allowed for one webhook delivery attempt.',
    parse: positiveDuration,
    default: '10s',
  },
  webhookCaBundle: {
    name: 'WEBHOOK_CA_BUNDLE',
    description: 'PEM file of extra CAs trusted for webhook receivers.',
    parse: parsePath,
  },
  webhookAllowPrivateCidrs: {
    name: 'WEBHOOK_ALLOW_PRIVATE_CIDRS',
    description:
      'Comma list of otherwise refused (private, loopback, …) CIDR ranges that webhook URLs may resolve to, for tests and private deployments.',
    parse: parseCidrList,
    default: '',
    docDefault: 'empty',
  },
  originCaBundle: {
    name: 'ORIGIN_CA_BUNDLE',
    description: 'PEM file of extra CAs trusted for `https` origins.',
    parse: parsePath,
  },
  originTimeout: {
    name: 'ORIGIN_TIMEOUT',
    description: "Time the edge waits for an origin's response headers before answering 504.",
    parse: positiveDuration,
    default: '30s',
  },
  smtpUrl: {
    name: 'SMTP_URL',
    description:
      'SMTP server (`smtp://…` or `smtps://…`) for fair-use notices. Unset: the notice is logged and recorded, not sent.',
    parse: urlParser(['smtp:', 'smtps:']),
  },
  smtpFrom: {
    name: 'SMTP_FROM',
    description: 'Sender of those e-mails: `address` or `Name <address>`.',
    parse: parseMailbox,
  },
  logLevel: {
    name: 'LOG_LEVEL',
    description: `Lowest winston level written (${LOG_LEVELS.join(', ')}); logs go to stdout in the form \`LOG_FORMAT\` says.`,
    parse: oneOfParser(LOG_LEVELS),
    default: 'info',
  },
  logFormat: {
    name: 'LOG_FORMAT',
    description:
      '`json`: one JSON object a line, for log collectors. `pretty`: one readable line an entry (time, level, service, message, then `key=value` fields), coloured by level on a terminal unless `NO_COLOR` is set. `auto`: `pretty` when stdout is a terminal, `json` otherwise.',
    parse: oneOfParser(LOG_FORMATS),
    default: 'auto',
  },
  operatorPort: {
    name: 'OPERATOR_PORT',
    description:
      'Port of the operator API alone. Set, `/operator/v1` is served only there and every `/operator/v1` path on `API_PORT` answers 404: expose `API_PORT` to application teams and keep this port internal. Must differ from `API_PORT` and `METRICS_PORT`. The Helm chart sets `8082`. Unset while the API listens beyond loopback, `TRUST_PROXY` is `false` and `OPERATOR_ALLOWED_CIDRS` holds a private range, it warns at start: behind a load balancer every client would pass the allowlist.',
    parse: parsePort,
    docDefault: 'unset (the operator API is served on `API_PORT`)',
  },
  edgeProxyProtocol: {
    name: 'EDGE_PROXY_PROTOCOL',
    description:
      '`true`: every connection on both edge listeners starts with a PROXY protocol v1 or v2 header (from a load balancer), and the address it carries is the client address (limits, `X-Forwarded-For`, `X-Real-IP`, logs, traffic). A connection without a valid header within 5 seconds, or from a peer outside `EDGE_PROXY_PROTOCOL_CIDRS`, is closed.',
    parse: parseBoolean,
    default: 'false',
  },
  edgeProxyProtocolCidrs: {
    name: 'EDGE_PROXY_PROTOCOL_CIDRS',
    description:
      'Comma list of CIDR ranges of the peers (load balancers) allowed to send PROXY protocol headers when `EDGE_PROXY_PROTOCOL` is `true`. Name the ranges the balancer connects from: a peer here may claim any client address, and an edge left with this default warns at start.',
    parse: parseCidrList,
    default: LOOPBACK_AND_PRIVATE_RANGES,
  },
  edgeMaxConnections: {
    name: 'EDGE_MAX_CONNECTIONS',
    description: 'Open client connections one edge process keeps at once, both listeners together; a connection past it is closed at once.',
    parse: positiveInteger,
    default: '20000',
  },
  edgeMaxConnectionsPerClient: {
    name: 'EDGE_MAX_CONNECTIONS_PER_CLIENT',
    description:
      'Open connections one client address (the PROXY protocol address when `EDGE_PROXY_PROTOCOL` is on) keeps to one edge process; a connection past it is closed at once while other addresses are served.',
    parse: positiveInteger,
    default: '256',
  },
  edgeRequestTimeout: {
    name: 'EDGE_REQUEST_TIMEOUT',
    description:
      'Time a client has to send a whole request (headers and body) to the edge, HTTP/1.1 or HTTP/2; past it the request is ended (408, or a reset once the answer has begun). Headers must come within 10 seconds and a body may not stall for 30 seconds whatever this says.',
    parse: positiveDuration,
    default: '5m',
  },
  edgeWebsocketIdleTimeout: {
    name: 'EDGE_WEBSOCKET_IDLE_TIMEOUT',
    description: 'A proxied WebSocket with no data either way for this long is closed.',
    parse: positiveDuration,
    default: '10m',
  },
  edgeCacheMaxAge: {
    name: 'EDGE_CACHE_MAX_AGE',
    description:
      'The longest an edge serves an entry of its caches (a hostname\'s route and certificate, an application\'s signing key) without reading it again, even while its change feed says nothing changed: a change the feed never brought is served within this. Entries in use are read again in the background from 90 % of it. At least `1s`.',
    parse: (text) => {
      const ms = positiveDuration(text);
      if (ms < 1_000) throw new InvalidValueError('must be a duration of at least 1s, such as 30s or 5m');
      return ms;
    },
    default: '5m',
  },
  edgePublicHttpsPort: {
    name: 'EDGE_PUBLIC_HTTPS_PORT',
    description:
      'The HTTPS port visitors use, written in the edge\'s redirects (plain HTTP to HTTPS, and a domain\'s `redirect_to`); left out of them when it is 443. Behind a load balancer that maps 443 to `EDGE_HTTPS_PORT`, set it to `443`.',
    // A port visitors connect to: 0 (any free port, for a listener) names none.
    parse: (text) => {
      const port = parsePort(text);
      if (port === 0) throw new InvalidValueError('must be a port number from 1 to 65535');
      return port;
    },
    docDefault: '`EDGE_HTTPS_PORT`',
  },
  edgeAddresses: {
    name: 'EDGE_ADDRESSES',
    description:
      'Comma list of the IPv4 and IPv6 addresses the edge\'s load balancer answers on (duplicates are dropped). Set, apex domains (`customer.com`) may be registered: their `dns_records` ask for one `A` record per IPv4 and one `AAAA` record per IPv6 address here instead of a CNAME, and their routing check passes when every A and AAAA answer is one of them. Empty: apex domains are refused with `apex_not_supported`. Behind the Helm chart: the addresses of the edge Service\'s load balancer, once it has them.',
    parse: parseEdgeAddresses,
    default: '',
    docDefault: 'empty (apex domains refused)',
  },
  housekeepingInterval: {
    name: 'HOUSEKEEPING_INTERVAL',
    description:
      'How often housekeeping deletes what is past retention (one process at a time across all replicas; the API and all-in-one processes run it).',
    parse: positiveDuration,
    default: '10m',
  },
  outboxRetention: {
    name: 'OUTBOX_RETENTION',
    description: 'Published outbox rows are deleted this long after they were published; unpublished and set-aside rows are kept.',
    parse: positiveDuration,
    default: '7d',
  },
  webhookDeliveryRetention: {
    name: 'WEBHOOK_DELIVERY_RETENTION',
    description: '`delivered` and `abandoned` webhook deliveries, with their attempts, are deleted this long after they were created; `pending` ones never.',
    parse: positiveDuration,
    default: '30d',
  },
  deletedDomainRetention: {
    name: 'DELETED_DOMAIN_RETENTION',
    description:
      'Deleted domains, with their checks, certificates and ACME challenges, are deleted this long after their deletion; until then `include_deleted=true` shows them.',
    parse: positiveDuration,
    default: '30d',
  },
  webhookMaxInFlightPerSubscription: {
    name: 'WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION',
    description:
      "Delivery attempts of one webhook subscription that one dispatcher runs at once; due deliveries of different subscriptions are taken in turn, and one application's subscriptions together get at most half the dispatcher's slots. A cooling subscription (its last 5 attempts failed, or 16 of its last 20) gets one at a time.",
    parse: positiveInteger,
    default: '4',
  },
  webhookPendingLimit: {
    name: 'WEBHOOK_PENDING_LIMIT',
    description:
      "A replay that would raise an application's `pending` webhook deliveries above this answers 429 `rate_limited`; deliveries of new events are always created.",
    parse: positiveInteger,
    default: '10000',
  },
};
