// The ACME order budget variables of DECISIONS §10.
import { randomBytes } from 'node:crypto';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

const env = {
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
};

describe('ACME order budget configuration', () => {
  it('defaults to 100 orders an hour for the deployment and 20 for each application', () => {
    expect(loadConfig({ mode: 'all-in-one', env })).toMatchObject({ acmeOrdersPerHour: 100, acmeOrdersPerApplicationPerHour: 20 });
  });

  it('reads whole numbers', () => {
    const config = loadConfig({ mode: 'all-in-one', env: { ...env, ACME_ORDERS_PER_HOUR: '6', ACME_ORDERS_PER_APPLICATION_PER_HOUR: '3' } });
    expect(config).toMatchObject({ acmeOrdersPerHour: 6, acmeOrdersPerApplicationPerHour: 3 });
  });

  it.each([
    ['ACME_ORDERS_PER_HOUR', '0'],
    ['ACME_ORDERS_PER_HOUR', '1.5'],
    ['ACME_ORDERS_PER_APPLICATION_PER_HOUR', 'twenty'],
    ['ACME_ORDERS_PER_APPLICATION_PER_HOUR', '-1'],
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
