import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configSchemaDoc, renderConfigDoc } from '@cds/config';

const DOC = join(__dirname, '..', '..', 'docs', 'configuration.md');

describe('docs/configuration.md', () => {
  it('is what scripts/gen-config-doc.js produces from the current schema', () => {
    // On failure: npx tsc -b libs/config && node scripts/gen-config-doc.js > docs/configuration.md
    expect(readFileSync(DOC, 'utf8')).toBe(renderConfigDoc());
  });

  it('documents every variable with a description and a default', () => {
    const variables = configSchemaDoc();
    // Every variable of DECISIONS.md §1, in its order, then those added later (§4's OPERATOR_PORT, §5's edge connections, §9).
    expect(variables.map((variable) => variable.name)).toEqual([
      'DATABASE_URL', 'DATABASE_CA_BUNDLE', 'DATABASE_POOL_SIZE', 'AMQP_URL', 'AMQP_CA_BUNDLE', // the connections' CAs and pool size beside their URLs
      'API_PORT', 'EDGE_HTTP_PORT', 'EDGE_HTTPS_PORT', 'METRICS_PORT', 'BIND_ADDRESS',
      'EDGE_TARGET', 'OPERATOR_TOKEN', 'OPERATOR_API_ENABLED', 'OPERATOR_ALLOWED_CIDRS',
      'OPERATOR_AUTH_FAILURES_PER_MINUTE', 'OPERATOR_BACKUP', 'ENABLE_LEGACY_API', 'V1_AUTH_FAILURES_PER_MINUTE',
      'TRUST_PROXY', 'DEPLOYMENT_DOMAIN_LIMIT', 'DATA_ENCRYPTION_KEY', 'DATA_ENCRYPTION_KEYS', 'ASSERTION_DEPLOYMENT_KEY',
      'ASSERTION_DEPLOYMENT_KID', 'CERT_ISSUER', 'ACME_DIRECTORY_URL',
      'ACME_EAB_KID_<n>', 'ACME_EAB_HMAC_KEY_<n>', 'ACME_CAA_IDENTITY_<n>', // §14's numbered variables of each directory, after the list
      'ACME_EMAIL', 'ACME_CA_BUNDLE',
      'ACME_ORDERS_PER_HOUR', 'ACME_ORDERS_PER_APPLICATION_PER_HOUR', // §10's ACME order budget, beside the other ACME variables
      'ACME_DNS_ZONE', 'ACME_DNS_UPDATE_SERVER', 'ACME_DNS_TSIG_KEY', // §13's certificates before cutover
      'DNS_SERVERS',
      'CHECK_SCHEDULE_PENDING', 'CHECK_INTERVAL_LIVE',
      'CHECK_CONFIRMATIONS', 'CHECK_SCHEDULE_CONFIRM', 'CHECK_OUTAGE_GRACE', 'CHECK_SCHEDULE_ATTENTION', // §11, beside the other check schedules
      'WEBHOOK_RETRY_SCHEDULE', 'WEBHOOK_TIMEOUT',
      'WEBHOOK_CA_BUNDLE', 'WEBHOOK_ALLOW_PRIVATE_CIDRS', 'ORIGIN_CA_BUNDLE', 'ORIGIN_TIMEOUT', 'SMTP_URL',
      'SMTP_FROM', 'LOG_LEVEL', 'LOG_FORMAT', // LOG_FORMAT (the readable form on a terminal) beside LOG_LEVEL
      'OPERATOR_PORT', 'EDGE_PROXY_PROTOCOL', 'EDGE_PROXY_PROTOCOL_CIDRS', 'EDGE_MAX_CONNECTIONS',
      'EDGE_MAX_CONNECTIONS_PER_CLIENT', 'EDGE_REQUEST_TIMEOUT', 'EDGE_WEBSOCKET_IDLE_TIMEOUT', // §5's slow and silent clients
      'EDGE_CACHE_MAX_AGE', // the most a cached entry goes unread (the change feed's backstop)
      'EDGE_PUBLIC_HTTPS_PORT', 'EDGE_ADDRESSES', // §5's port in redirects, §12's apex domains
      'HOUSEKEEPING_INTERVAL', 'OUTBOX_RETENTION', 'WEBHOOK_DELIVERY_RETENTION', 'DELETED_DOMAIN_RETENTION',
      'WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION', 'WEBHOOK_PENDING_LIMIT',
    ]);
    for (const variable of variables) {
      expect(variable.description.length).toBeGreaterThan(10);
      expect(variable.default).not.toBe('');
    }
    expect(variables.find((variable) => variable.name === 'CHECK_INTERVAL_LIVE')?.default).toBe('`10m`');
  });
});
