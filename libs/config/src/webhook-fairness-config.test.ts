// The webhook fairness variables of DECISIONS §10.
import { randomBytes } from 'node:crypto';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

const env = {
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
};

describe('webhook fairness configuration', () => {
  it('defaults to 4 attempts in flight per subscription and 10000 pending deliveries', () => {
    expect(loadConfig({ mode: 'all-in-one', env })).toMatchObject({ webhookMaxInFlightPerSubscription: 4, webhookPendingLimit: 10_000 });
  });

  it('reads whole numbers', () => {
    const config = loadConfig({ mode: 'all-in-one', env: { ...env, WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: '1', WEBHOOK_PENDING_LIMIT: '250000' } });
    expect(config).toMatchObject({ webhookMaxInFlightPerSubscription: 1, webhookPendingLimit: 250_000 });
  });

  it.each([
    ['WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION', '0'],
    ['WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION', 'four'],
    ['WEBHOOK_PENDING_LIMIT', '0'],
    ['WEBHOOK_PENDING_LIMIT', '1e4'],
  ])('%s=%j gives one line naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ mode: 'all-in-one', env: { ...env, [name]: value } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(`Invalid configuration: ${name} must be a whole number of at least 1 (got ${JSON.stringify(value)})`);
  });
});
