import { ConfigError } from './config-error';
import { loadConfigSubset } from './load-config';

describe('loadConfigSubset', () => {
  it('validates and defaults only the named variables, per mode, ignoring missing secrets', () => {
    const keys = ['databaseUrl', 'certIssuer', 'dnsServers'] as const;
    expect(loadConfigSubset(keys, { mode: 'all-in-one', env: {} })).toEqual({
      databaseUrl: 'sqlite:./data/custom-domains.sqlite',
      certIssuer: 'internal',
      dnsServers: [],
    });
    expect(loadConfigSubset(keys, { mode: 'split', env: { DNS_SERVERS: '127.0.0.1:8053' } })).toEqual({
      databaseUrl: 'sqlite:./data/custom-domains.sqlite',
      certIssuer: 'acme',
      dnsServers: ['127.0.0.1:8053'],
    });
  });

  it('reports a bad or missing variable like loadConfig', () => {
    expect(() => loadConfigSubset(['edgeTarget'], { mode: 'split', env: { EDGE_TARGET: 'not a host' } })).toThrow(ConfigError);
    expect(() => loadConfigSubset(['amqpUrl'], { mode: 'split', env: {} })).toThrow('Invalid configuration: AMQP_URL is required in split mode');
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfigSubset(['dnsServers'], { mode: 'split', env: {} }))).toBe(true);
  });
});
