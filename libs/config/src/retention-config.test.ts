// The housekeeping variables of DECISIONS §9.
import { randomBytes } from 'node:crypto';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

const env = {
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
};
const DAY = 86_400_000;

describe('housekeeping configuration', () => {
  it('defaults to a run every 10 minutes and 7 / 30 / 30 days of retention', () => {
    expect(loadConfig({ mode: 'all-in-one', env })).toMatchObject({
      housekeepingInterval: 600_000,
      outboxRetention: 7 * DAY,
      webhookDeliveryRetention: 30 * DAY,
      deletedDomainRetention: 30 * DAY,
    });
  });

  it('reads durations', () => {
    const config = loadConfig({
      mode: 'all-in-one',
      env: { ...env, HOUSEKEEPING_INTERVAL: '30s', OUTBOX_RETENTION: '36h', WEBHOOK_DELIVERY_RETENTION: '90d', DELETED_DOMAIN_RETENTION: '1.5d' },
    });
    expect(config).toMatchObject({ housekeepingInterval: 30_000, outboxRetention: 36 * 3_600_000, webhookDeliveryRetention: 90 * DAY, deletedDomainRetention: 1.5 * DAY });
  });

  it.each([
    ['HOUSEKEEPING_INTERVAL', '0s', 'must be a duration greater than zero, such as 500ms or 30s'],
    ['OUTBOX_RETENTION', 'a week', 'must be a duration such as 500ms, 30s, 5m, 2h or 1d'],
    ['WEBHOOK_DELIVERY_RETENTION', '-1d', 'must be a duration such as 500ms, 30s, 5m, 2h or 1d'],
    ['DELETED_DOMAIN_RETENTION', '0', 'must be a duration greater than zero, such as 500ms or 30s'],
  ])('%s=%j gives one line naming the variable', (name, value, problem) => {
    let error: unknown;
    try {
      loadConfig({ mode: 'all-in-one', env: { ...env, [name]: value } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(`Invalid configuration: ${name} ${problem} (got ${JSON.stringify(value)})`);
  });
});
