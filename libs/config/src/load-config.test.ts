import { randomBytes } from 'node:crypto';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

const secrets = {
  OPERATOR_TOKEN: 'operator-token-for-tests-0123456789',
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
};
const splitEnv = { ...secrets, AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672', DATABASE_URL: 'postgres://postgres@127.0.0.1/test' };

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig defaults', () => {
  it('fills every default of the all-in-one mode', () => {
    const { OPERATOR_TOKEN: _unset, ...env } = secrets;
    const config = loadConfig({ mode: 'all-in-one', env });
    expect(config).toMatchObject({
      mode: 'all-in-one',
      databaseUrl: 'sqlite:./data/custom-domains.sqlite',
      amqpUrl: null,
      apiPort: 8080,
      operatorPort: null,
      edgeHttpPort: 8081,
      edgeHttpsPort: 8443,
      metricsPort: 9464,
      bindAddress: '127.0.0.1',
      edgeTarget: 'edge.localhost',
      operatorToken: null,
      operatorApiEnabled: true,
      operatorAllowedCidrs: ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
      operatorAuthFailuresPerMinute: 10,
      operatorBackup: false,
      enableLegacyApi: true,
      v1AuthFailuresPerMinute: 20,
      trustProxy: false,
      deploymentDomainLimit: 0,
      assertionDeploymentKey: secrets.ASSERTION_DEPLOYMENT_KEY,
      assertionDeploymentKid: 'deployment',
      certIssuer: 'internal',
      acmeDirectories: [{ url: 'https://acme-v02.api.letsencrypt.org/directory', eab: null, caaIdentities: null }],
      acmeEmail: null,
      acmeCaBundle: null,
      dnsServers: [],
      checkSchedulePending: [60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000],
      checkIntervalLive: 600_000,
      checkConfirmations: 3,
      checkScheduleConfirm: [30_000, 60_000],
      checkOutageGrace: 900_000,
      checkScheduleAttention: [30_000, 60_000, 120_000, 300_000],
      webhookRetrySchedule: [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000, 86_400_000, 86_400_000],
      webhookTimeout: 10_000,
      webhookCaBundle: null,
      webhookAllowPrivateCidrs: [],
      originCaBundle: null,
      originTimeout: 30_000,
      smtpUrl: null,
      smtpFrom: null,
      logLevel: 'info',
      logFormat: 'auto',
    });
    expect(config.dataEncryptionKey.equals(Buffer.from(secrets.DATA_ENCRYPTION_KEY, 'base64'))).toBe(true);
  });

  it('uses the split defaults that differ', () => {
    const config = loadConfig({ mode: 'split', env: splitEnv });
    expect(config).toMatchObject({
      mode: 'split',
      bindAddress: '0.0.0.0',
      certIssuer: 'acme',
      amqpUrl: splitEnv.AMQP_URL,
      operatorToken: secrets.OPERATOR_TOKEN,
    });
  });

  it('reads every variable and converts its value', () => {
    const config = loadConfig({
      mode: 'split',
      env: {
        ...splitEnv,
        API_PORT: '18080',
        EDGE_HTTP_PORT: '0',
        BIND_ADDRESS: '::',
        EDGE_TARGET: 'Edge.Example.NET.',
        OPERATOR_API_ENABLED: 'FALSE',
        OPERATOR_ALLOWED_CIDRS: ' 10.1.0.0/16 , 192.0.2.7 ,2001:db8::/32',
        OPERATOR_BACKUP: 'true',
        TRUST_PROXY: '2',
        DEPLOYMENT_DOMAIN_LIMIT: '500',
        CERT_ISSUER: 'internal',
        ACME_EMAIL: 'ops@example.com',
        DNS_SERVERS: '127.0.0.1:8053,[::1]:53,9.9.9.9',
        CHECK_SCHEDULE_PENDING: '500ms,1s',
        CHECK_CONFIRMATIONS: '10',
        CHECK_SCHEDULE_CONFIRM: '5s',
        CHECK_OUTAGE_GRACE: '1h',
        CHECK_SCHEDULE_ATTENTION: '10s, 20s,1.5m',
        WEBHOOK_TIMEOUT: '1.5s',
        SMTP_URL: 'smtp://mail.example.com:25',
        SMTP_FROM: 'Custom Domains <noreply@example.com>',
        LOG_LEVEL: 'debug',
        LOG_FORMAT: 'Pretty',
        UNRELATED_VARIABLE: 'ignored',
      },
    });
    expect(config).toMatchObject({
      apiPort: 18080,
      edgeHttpPort: 0,
      bindAddress: '::',
      edgeTarget: 'edge.example.net',
      operatorApiEnabled: false,
      operatorAllowedCidrs: ['10.1.0.0/16', '192.0.2.7/32', '2001:db8::/32'],
      operatorBackup: true,
      trustProxy: 2,
      deploymentDomainLimit: 500,
      certIssuer: 'internal',
      acmeEmail: 'ops@example.com',
      dnsServers: ['127.0.0.1:8053', '[::1]:53', '9.9.9.9'],
      checkSchedulePending: [500, 1000],
      checkConfirmations: 10,
      checkScheduleConfirm: [5000],
      checkOutageGrace: 3_600_000,
      checkScheduleAttention: [10_000, 20_000, 90_000],
      webhookTimeout: 1500,
      smtpFrom: 'Custom Domains <noreply@example.com>',
      logLevel: 'debug',
      logFormat: 'pretty',
    });
    expect(config).not.toHaveProperty('unrelatedVariable');
  });

  it('treats empty and blank values as unset', () => {
    const config = loadConfig({ mode: 'split', env: { ...splitEnv, API_PORT: '', LOG_LEVEL: '  ', LOG_FORMAT: ' ', ACME_EMAIL: '' } });
    expect(config.apiPort).toBe(8080);
    expect(config.logLevel).toBe('info');
    expect(config.logFormat).toBe('auto');
    expect(config.acmeEmail).toBeNull();
  });

  it('maps TRUST_PROXY to what express accepts', () => {
    const trust = (value: string) => loadConfig({ mode: 'split', env: { ...splitEnv, TRUST_PROXY: value } }).trustProxy;
    expect(trust('false')).toBe(false);
    expect(trust('1')).toBe(1);
    expect(trust('loopback, 10.0.0.0/8')).toBe('loopback, 10.0.0.0/8');
  });

  it('returns a deep-frozen object', () => {
    const config = loadConfig({ mode: 'split', env: splitEnv });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.operatorAllowedCidrs)).toBe(true);
    expect(Object.isFrozen(config.webhookRetrySchedule)).toBe(true);
    expect(() => {
      (config as { apiPort: number }).apiPort = 1;
    }).toThrow(TypeError);
    expect(() => (config.checkSchedulePending as number[]).push(1)).toThrow(TypeError);
  });

  it('does not share arrays between two loads', () => {
    const first = loadConfig({ mode: 'split', env: splitEnv });
    const second = loadConfig({ mode: 'split', env: splitEnv });
    expect(second.checkSchedulePending).toEqual(first.checkSchedulePending);
    expect(second.checkSchedulePending).not.toBe(first.checkSchedulePending);
  });
});

describe('loadConfig errors', () => {
  it.each([
    ['API_PORT', 'abc', 'Invalid configuration: API_PORT must be a port number (got "abc")'],
    ['EDGE_HTTPS_PORT', '70000', 'Invalid configuration: EDGE_HTTPS_PORT must be a port number (got "70000")'],
    ['DATABASE_URL', 'mysql://root:hunter2@db/x', 'DATABASE_URL must be postgres://…, postgresql://… or sqlite:<path> (got "mysql://root:***@db/x")'],
    ['AMQP_URL', 'http://rabbit', 'AMQP_URL must be a amqp:// or amqps:// URL (got "http://rabbit")'],
    ['BIND_ADDRESS', 'not an address', 'BIND_ADDRESS must be an IP address or a hostname'],
    ['EDGE_TARGET', 'bad_name.example', 'EDGE_TARGET must be a hostname'],
    ['OPERATOR_API_ENABLED', 'yes', 'OPERATOR_API_ENABLED must be true or false (got "yes")'],
    ['OPERATOR_ALLOWED_CIDRS', '10.0.0.0/33', 'OPERATOR_ALLOWED_CIDRS must be a comma list of CIDR ranges'],
    ['OPERATOR_ALLOWED_CIDRS', '127.1/8', 'OPERATOR_ALLOWED_CIDRS must be a comma list of CIDR ranges'],
    ['OPERATOR_AUTH_FAILURES_PER_MINUTE', '0', 'OPERATOR_AUTH_FAILURES_PER_MINUTE must be a whole number of at least 1'],
    ['V1_AUTH_FAILURES_PER_MINUTE', '2.5', 'V1_AUTH_FAILURES_PER_MINUTE must be a whole number of at least 1'],
    ['DEPLOYMENT_DOMAIN_LIMIT', '-1', 'DEPLOYMENT_DOMAIN_LIMIT must be a whole number of at least 0'],
    ['TRUST_PROXY', 'everyone', 'TRUST_PROXY must be false, a hop count'],
    ['TRUST_PROXY', 'true', 'Invalid configuration: TRUST_PROXY must not be true: it trusts every hop'],
    ['CERT_ISSUER', 'self', 'CERT_ISSUER must be one of acme, internal (got "self")'],
    ['ACME_DIRECTORY_URL', 'ftp://acme', 'ACME_DIRECTORY_URL must be a https:// or http:// URL'],
    ['ACME_EMAIL', 'nobody', 'ACME_EMAIL must be an e-mail address'],
    ['DNS_SERVERS', 'dns.google', 'DNS_SERVERS must be a comma list of DNS server addresses'],
    ['DNS_SERVERS', '[::1]', 'DNS_SERVERS must be a comma list of DNS server addresses'],
    ['CHECK_SCHEDULE_PENDING', '1m,,5m', 'CHECK_SCHEDULE_PENDING must be a comma list of durations'],
    ['CHECK_INTERVAL_LIVE', '10 minutes', 'CHECK_INTERVAL_LIVE must be a duration such as 500ms, 30s, 5m, 2h or 1d'],
    ['CHECK_CONFIRMATIONS', '0', 'CHECK_CONFIRMATIONS must be a whole number from 1 to 10 (got "0")'],
    ['CHECK_CONFIRMATIONS', '11', 'CHECK_CONFIRMATIONS must be a whole number from 1 to 10 (got "11")'],
    ['CHECK_CONFIRMATIONS', '2.5', 'CHECK_CONFIRMATIONS must be a whole number from 1 to 10'],
    ['CHECK_CONFIRMATIONS', 'three', 'CHECK_CONFIRMATIONS must be a whole number from 1 to 10'],
    ['CHECK_SCHEDULE_CONFIRM', '30s,0s', 'CHECK_SCHEDULE_CONFIRM must be a comma list of durations'],
    ['CHECK_OUTAGE_GRACE', '0s', 'CHECK_OUTAGE_GRACE must be a duration greater than zero'],
    ['CHECK_OUTAGE_GRACE', 'a while', 'CHECK_OUTAGE_GRACE must be a duration such as 500ms, 30s, 5m, 2h or 1d'],
    ['CHECK_SCHEDULE_ATTENTION', '30s,,5m', 'CHECK_SCHEDULE_ATTENTION must be a comma list of durations'],
    ['WEBHOOK_TIMEOUT', '0s', 'WEBHOOK_TIMEOUT must be a duration greater than zero'],
    ['WEBHOOK_RETRY_SCHEDULE', '1m,0s', 'WEBHOOK_RETRY_SCHEDULE must be a comma list of durations'],
    ['WEBHOOK_ALLOW_PRIVATE_CIDRS', 'private', 'WEBHOOK_ALLOW_PRIVATE_CIDRS must be a comma list of CIDR ranges'],
    ['SMTP_URL', 'smtp:nohost', 'SMTP_URL must be a smtp:// or smtps:// URL'],
    ['SMTP_FROM', 'Name <broken>', 'SMTP_FROM must be an e-mail address or "Name <address>"'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of error, warn, info, http, verbose, debug, silly (got "loud")'],
    ['LOG_FORMAT', 'text', 'LOG_FORMAT must be one of auto, json, pretty (got "text")'],
    ['ASSERTION_DEPLOYMENT_KID', 'two words', 'ASSERTION_DEPLOYMENT_KID must be 1 to 128 printable characters'],
  ])('%s=%j gives one line naming the variable', (name, value, expected) => {
    const error = errorOf(() => loadConfig({ mode: 'split', env: { ...splitEnv, [name]: value } }));
    expect(error.variable).toBe(name);
    expect(error.message).toContain(expected);
    expect(error.message.startsWith(`Invalid configuration: ${name} `)).toBe(true);
    expect(error.message).not.toContain('\n');
  });

  it.each([
    ['OPERATOR_TOKEN', 'has space'],
    ['DATA_ENCRYPTION_KEY', randomBytes(16).toString('base64')],
    ['DATA_ENCRYPTION_KEY', randomBytes(33).toString('base64')],
    ['ASSERTION_DEPLOYMENT_KEY', randomBytes(31).toString('base64url')],
    ['ASSERTION_DEPLOYMENT_KEY', `${randomBytes(32).toString('base64url')}!`],
  ])('a bad %s is named without showing the secret', (name, value) => {
    const error = errorOf(() => loadConfig({ mode: 'split', env: { ...splitEnv, [name]: value } }));
    expect(error.message).toMatch(new RegExp(`^Invalid configuration: ${name} must `));
    expect(error.message).not.toContain(value);
    expect(error.message).not.toContain('got');
  });

  it.each(['AMQP_URL', 'OPERATOR_TOKEN', 'DATA_ENCRYPTION_KEY', 'ASSERTION_DEPLOYMENT_KEY'])(
    'split mode requires %s',
    (name) => {
      const error = errorOf(() => loadConfig({ mode: 'split', env: { ...splitEnv, [name]: undefined } }));
      const instead = name === 'DATA_ENCRYPTION_KEY' ? ' unless DATA_ENCRYPTION_KEYS is set' : '';
      expect(error.message).toBe(`Invalid configuration: ${name} is required in split mode${instead}`);
    },
  );

  it.each([
    ['api', 'OPERATOR_TOKEN', ['ASSERTION_DEPLOYMENT_KEY']],
    ['checker', 'ASSERTION_DEPLOYMENT_KEY', ['OPERATOR_TOKEN']],
    ['edge-proxy', 'ASSERTION_DEPLOYMENT_KEY', ['OPERATOR_TOKEN']],
    ['webhook-dispatcher', null, ['OPERATOR_TOKEN', 'ASSERTION_DEPLOYMENT_KEY']],
  ] as const)('the %s service requires only the secrets it uses', (service, needed, unused) => {
    const without = Object.fromEntries(unused.map((name) => [name, undefined]));
    const config = loadConfig({ mode: 'split', service, env: { ...splitEnv, ...without } });
    const absent: readonly string[] = unused;
    if (absent.includes('OPERATOR_TOKEN')) expect(config.operatorToken).toBeNull();
    if (absent.includes('ASSERTION_DEPLOYMENT_KEY')) expect(config.assertionDeploymentKey).toBeNull();
    if (needed !== null) {
      const error = errorOf(() => loadConfig({ mode: 'split', service, env: { ...splitEnv, [needed]: undefined } }));
      expect(error.message).toBe(`Invalid configuration: ${needed} is required in split mode (${service})`);
    }
  });

  it('all-in-one mode needs the generated keys but not the token or AMQP_URL', () => {
    const { DATA_ENCRYPTION_KEY: _unset, ...env } = secrets;
    const error = errorOf(() => loadConfig({ mode: 'all-in-one', env }));
    expect(error.message).toMatch(/^Invalid configuration: DATA_ENCRYPTION_KEY is required/);
    expect(loadConfig({ mode: 'all-in-one', env: { ...secrets, OPERATOR_TOKEN: '' } }).operatorToken).toBeNull();
  });

  it('reads process.env when no env is given', () => {
    const saved = process.env;
    process.env = { ...splitEnv, API_PORT: '9999' };
    try {
      expect(loadConfig({ mode: 'split' }).apiPort).toBe(9999);
    } finally {
      process.env = saved;
    }
  });
});
