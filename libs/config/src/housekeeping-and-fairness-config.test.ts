// The variables of DECISIONS §9 (housekeeping) and §10 (fairness): defaults,
// accepted values, and one error line naming the variable for a bad value.
import { randomBytes } from 'node:crypto';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

const env = {
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
};
const DAY = 86_400_000;
const WHOLE_NUMBER = 'must be a whole number of at least 1';
const DURATION = 'must be a duration such as 500ms, 30s, 5m, 2h or 1d';
const POSITIVE_DURATION = 'must be a duration greater than zero, such as 500ms or 30s';

const load = (extra: Record<string, string> = {}) => loadConfig({ mode: 'all-in-one', env: { ...env, ...extra } });

describe('housekeeping and fairness configuration', () => {
  it('has the defaults of DECISIONS §9 and §10', () => {
    expect(load()).toMatchObject({
      housekeepingInterval: 600_000,
      outboxRetention: 7 * DAY,
      webhookDeliveryRetention: 30 * DAY,
      deletedDomainRetention: 30 * DAY,
      acmeOrdersPerHour: 100,
      acmeOrdersPerApplicationPerHour: 20,
      webhookMaxInFlightPerSubscription: 4,
      webhookPendingLimit: 10_000,
    });
  });

  it('reads durations and whole numbers', () => {
    const config = load({
      HOUSEKEEPING_INTERVAL: '30s', OUTBOX_RETENTION: '36h', WEBHOOK_DELIVERY_RETENTION: '90d', DELETED_DOMAIN_RETENTION: '1.5d',
      ACME_ORDERS_PER_HOUR: '6', ACME_ORDERS_PER_APPLICATION_PER_HOUR: '3',
      WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: '1', WEBHOOK_PENDING_LIMIT: '250000',
    });
    expect(config).toMatchObject({
      housekeepingInterval: 30_000, outboxRetention: 36 * 3_600_000, webhookDeliveryRetention: 90 * DAY, deletedDomainRetention: 1.5 * DAY,
      acmeOrdersPerHour: 6, acmeOrdersPerApplicationPerHour: 3,
      webhookMaxInFlightPerSubscription: 1, webhookPendingLimit: 250_000,
    });
  });

  it.each([
    ['HOUSEKEEPING_INTERVAL', '0s', POSITIVE_DURATION],
    ['OUTBOX_RETENTION', 'a week', DURATION],
    ['WEBHOOK_DELIVERY_RETENTION', '-1d', DURATION],
    ['DELETED_DOMAIN_RETENTION', '0', POSITIVE_DURATION],
    ['ACME_ORDERS_PER_HOUR', '0', WHOLE_NUMBER],
    ['ACME_ORDERS_PER_HOUR', '1.5', WHOLE_NUMBER],
    ['ACME_ORDERS_PER_APPLICATION_PER_HOUR', 'twenty', WHOLE_NUMBER],
    ['ACME_ORDERS_PER_APPLICATION_PER_HOUR', '-1', WHOLE_NUMBER],
    ['WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION', '0', WHOLE_NUMBER],
    ['WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION', 'four', WHOLE_NUMBER],
    ['WEBHOOK_PENDING_LIMIT', '0', WHOLE_NUMBER],
    ['WEBHOOK_PENDING_LIMIT', '1e4', WHOLE_NUMBER],
  ])('%s=%j gives one line naming the variable', (name, value, problem) => {
    const error = (() => {
      try {
        load({ [name]: value });
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(`Invalid configuration: ${name} ${problem} (got ${JSON.stringify(value)})`);
  });
});
